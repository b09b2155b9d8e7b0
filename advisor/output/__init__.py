"""Report formats for `advisor check` and `advisor lint`, each rendering one findings.Run.

Each format lives in its own module and is imported only when asked for, so importing this
package (which every command does) costs nothing: Rich and xml.etree load only for the
formats that need them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from advisor.findings import Run

# Format name (as given to --format) -> module under advisor.output that renders it.
FORMATS: dict[str, str] = {
    "text": "advisor.output.text",
    "json": "advisor.output.jsonout",
    "sarif": "advisor.output.sarif",
    "junit": "advisor.output.junit",
    "github": "advisor.output.github",
    "markdown": "advisor.output.markdown",
}


def render(fmt: str, run: Run, *, color: bool = False, quiet: bool = False) -> str:
    """The report of ``run`` in format ``fmt``; only the text format uses color and quiet."""
    try:
        module_name = FORMATS[fmt]
    except KeyError:
        raise ValueError(f"unknown output format {fmt!r}; choose one of {', '.join(FORMATS)}") from None
    module = importlib.import_module(module_name)
    if fmt == "text":
        return module.render(run, color=color, quiet=quiet)
    return module.render(run)
