"""`-o/--output FILE` for every command that prints a document (a topology, a sizing, .vmx
settings, the rule list, a schema ...), one convention across commands: the text goes to
standard output, or replaces FILE atomically; FILE is checked before any work (a folder, a
symlink, one of the command's own inputs are refused) so a bad target costs nothing. check
and lint take the same flag through their report options (advisor.commands.common)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

HELP = "Write to FILE (atomically) instead of standard output."


def output_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--output", "-o", "output", metavar="FILE", type=click.Path(dir_okay=False), help=HELP)(func)


def check_output(output: str | None, inputs: Iterable[str | Path] = ()) -> None:
    """Refuse a bad --output before the command reads or computes anything."""
    if output is None:
        return
    from advisor.atomic import check_target
    from advisor.overwrites import refuse_inputs

    check_target(output)
    refuse_inputs([output], list(inputs))


def deliver(text: str, output: str | None, color: bool = False) -> None:
    """`text` to standard output (ending in one line break), or written to `output`."""
    if output is None:
        click.echo(text, nl=not text.endswith("\n"), color=color)
        return
    from advisor.atomic import write_atomic

    write_atomic(Path(output), (text if text.endswith("\n") else text + "\n").encode("utf-8"))


def layout_width(output: str | None) -> int:
    """The columns a text document is laid out in: the terminal's when it goes there, else
    advisor.output.terminal's default (a file has no width of its own)."""
    from advisor.output.terminal import DEFAULT_WIDTH, width

    return width(sys.stdout) if output is None else DEFAULT_WIDTH


def console_text(console: Any) -> str:
    """What a text_console recorded, without the spaces Rich pads lines with."""
    return "".join(line.rstrip() + "\n" for line in console.file.getvalue().splitlines())


def text_console(output: str | None, color: bool = False) -> Any:
    """A Rich console that records into a string at layout_width(output)."""
    import io

    from rich.console import Console

    return Console(file=io.StringIO(), width=layout_width(output), color_system="standard" if color else None,
                   force_terminal=color, no_color=not color, highlight=False, markup=False, emoji=False,
                   soft_wrap=False, legacy_windows=False)
