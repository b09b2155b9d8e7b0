"""Report formats for `advisor check` and `advisor lint`, each rendering one findings.Run.

Each format lives in its own module and is imported only when asked for, so importing this
package (which every command does) costs nothing: Rich and xml.etree load only for the
formats that need them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from advisor.report.findings import Run

from advisor.output.display import Display as Display
from advisor.vocab import BINARY_FORMATS, Format

# Format X renders in the module advisor.output.<X's value>: adding a format is one Format member
# plus one module (tests/unit/test_vocab.py fails for a member without its module).
FORMATS: tuple[Format, ...] = tuple(Format)


def formatter_module(fmt: Format) -> str:
    return f"advisor.output.{fmt.value}"


def render(fmt: str, run: Run, *, color: bool = False, quiet: bool = False, width: int | None = None,
           display: Display | None = None) -> str:
    """The report of ``run`` in format ``fmt``; only the text format uses color, quiet, width
    and display."""
    return "".join(render_pieces(fmt, run, color=color, quiet=quiet, width=width, display=display))


def render_pieces(fmt: str, run: Run, *, color: bool = False, quiet: bool = False,
                  width: int | None = None, display: Display | None = None) -> Iterator[str]:
    """The report in pieces whose concatenation is render()'s text. A format that can be
    written as it is produced (JSON: one line per item) gives many pieces, so writing a large
    report never holds it whole; the others give one."""
    if fmt in BINARY_FORMATS:
        raise ValueError(f"{fmt} is a binary format: render_binary() writes it")
    module = _module(fmt)
    if fmt == "text":
        return iter((module.render(run, color=color, quiet=quiet, width=width, display=display or Display()),))
    if hasattr(module, "render_pieces"):
        return module.render_pieces(run)
    return iter((module.render(run),))


def render_binary(fmt: str, run: Run) -> bytes:
    """The report of ``run`` in a binary format (BINARY_FORMATS: a workbook)."""
    if fmt not in BINARY_FORMATS:
        raise ValueError(f"{fmt} is a text format: render() writes it")
    data: bytes = _module(fmt).render(run)
    return data


def _module(fmt: str) -> ModuleType:
    try:
        module_name = formatter_module(Format(fmt))
    except ValueError:
        raise ValueError(f"unknown output format {fmt!r}; choose one of {', '.join(FORMATS)}") from None
    return importlib.import_module(module_name)
