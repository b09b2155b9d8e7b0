"""The terminal a text report goes to: whether to colour it and how wide to lay it out.

Colour, in order: `--color`/`--no-color` as typed; else FORCE_COLOR when set and not empty
(https://force-color.org/); else NO_COLOR when set and not empty (https://no-color.org/: an
empty NO_COLOR must not disable colour); else a terminal that is not TERM=dumb. FORCE_COLOR wins
over NO_COLOR when both are set, as force-color.org's example checks it last.

Width: Rich's own measure of the terminal (it honours COLUMNS); output that is not a terminal
(a pipe, a CI log, a file) gets DEFAULT_WIDTH unless COLUMNS says otherwise.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

DEFAULT_WIDTH = 100
MIN_WIDTH = 40


def use_color(flag: bool | None, stream: TextIO | None = None) -> bool:
    if flag is not None:
        return flag
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("NO_COLOR"):
        return False
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)()) and os.environ.get("TERM") != "dumb"


def width(stream: TextIO | None = None) -> int:
    """Columns to lay a report out in for `stream` (standard output by default)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), MIN_WIDTH)
    stream = stream or sys.stdout
    if not getattr(stream, "isatty", lambda: False)():
        return DEFAULT_WIDTH
    from rich.console import Console

    return max(Console(file=stream).width, MIN_WIDTH)
