"""A progress bar on standard error for long runs (a large lint, reading or checking a vCenter),
drawn only where a person watches it: standard error is a terminal, TERM is not `dumb`, and no
CI variable is set (CI=true on GitHub Actions, GitLab, CircleCI, Travis, Azure Pipelines...;
a CI log that keeps every redraw of a bar is unreadable). Anywhere else it is a no-op, so
what a command writes does not depend on it."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def wanted() -> bool:
    """Whether a progress bar may be drawn now (see the module's docstring)."""
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


@contextmanager
def progress(label: str, total: int | None = None, show: bool = True) -> Iterator[Callable[[int], None]]:
    """A function to call with each step's count; a bar of `total` steps (None: a count
    without an end) while the block runs, removed when it ends."""
    if not (show and wanted()):
        yield lambda _n: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = ([TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()] if total is not None
               else [TextColumn(label), TextColumn("{task.completed:,}")])
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)
