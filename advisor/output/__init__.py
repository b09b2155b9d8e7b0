"""Report formats for `advisor check` and `advisor lint`, each rendering one findings.Run.

Each format lives in its own module and is imported only when asked for, so importing this
package (which every command does) costs nothing: Rich and xml.etree load only for the
formats that need them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from advisor.report.findings import Run

from advisor.vocab import Format

# Each format -> the module under advisor.output that renders it. Every Format member must have
# one (tests/unit/test_vocab.py): adding a format is one enum member plus one module.
FORMATS: dict[Format, str] = {
    Format.TEXT: "advisor.output.text",
    Format.JSON: "advisor.output.jsonout",
    Format.SARIF: "advisor.output.sarif",
    Format.JUNIT: "advisor.output.junit",
    Format.GITHUB: "advisor.output.github",
    Format.MARKDOWN: "advisor.output.markdown",
}


def render(fmt: str, run: Run, *, color: bool = False, quiet: bool = False) -> str:
    """The report of ``run`` in format ``fmt``; only the text format uses color and quiet."""
    return "".join(render_pieces(fmt, run, color=color, quiet=quiet))


def render_pieces(fmt: str, run: Run, *, color: bool = False, quiet: bool = False) -> Iterator[str]:
    """The report in pieces whose concatenation is render()'s text. A format that can be
    written as it is produced (JSON: one line per item) gives many pieces, so writing a large
    report never holds it whole; the others give one."""
    try:
        module_name = FORMATS[Format(fmt)]
    except (KeyError, ValueError):
        raise ValueError(f"unknown output format {fmt!r}; choose one of {', '.join(FORMATS)}") from None
    module = importlib.import_module(module_name)
    if fmt == "text":
        return iter((module.render(run, color=color, quiet=quiet),))
    if hasattr(module, "render_pieces"):
        return module.render_pieces(run)
    return iter((module.render(run),))
