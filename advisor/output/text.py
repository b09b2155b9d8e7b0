"""The terminal report: per file, each host's capacity, each VM's topology, then its findings.

Everything from user input goes into Rich ``Text`` objects (never markup strings) after its
control characters are made visible, so a VM called ``[bold]x`` or containing an ESC prints
literally. Line breaks inside user text become spaces, and a line that would still begin with
`::` (a long name wrapped just before "::error::") has that colon shown as \\x3a: GitHub Actions
runs any log line starting with `::` as a workflow command. Lines are laid out for 100 columns
and wrapped by Rich, except in quiet mode, which prints exactly one
`file:line: RULE severity subject: message` line per finding. Colour is the caller's decision
(--color, NO_COLOR, a terminal or not), so the environment is not consulted.
"""

from __future__ import annotations

import io
import re
import textwrap
from collections.abc import Iterable
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from advisor.output.describe import (
    first_reference,
    fix_lines,
    one_line,
    suggestion_line,
    topology_summary,
    totals,
    visible,
)
from advisor.report.findings import Finding, HostResult, Run, VmResult

WIDTH = 100
# The end of a line that holds only padding and colour codes.
_TRAILING = re.compile(r"(?:\s|\x1b\[[0-9;]*m)+$")
_CODE = re.compile(r"\x1b\[[0-9;]*m")
STYLES = {"error": "bold red", "warning": "yellow", "info": "blue"}


def report_console(color: bool) -> Console:
    return Console(
        file=io.StringIO(),
        width=WIDTH,
        color_system="standard" if color else None,
        force_terminal=color,
        force_jupyter=False,
        no_color=False,
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=False,
        legacy_windows=False,
    )


def _finding(f: Finding, indent: int) -> RenderableType:
    """'RULE severity  message', then the fix lines and the first reference, indented."""
    head = Text()
    head.append(f.rule, style="bold")
    head.append(" ")
    head.append(f.severity, style=STYLES[f.severity])
    head.append("  ")
    head.append(one_line(f.message))
    parts: list[RenderableType] = [Padding(head, (0, 0, 0, indent))]
    lines = fix_lines(f.fix)
    if lines:
        parts.extend(_hanging("fix:", lines, "", indent + 2))
    reference = first_reference(f)
    if reference:
        parts.extend(_hanging("see:", [reference], "dim", indent + 2))
    return Group(*parts)


def _hanging(label: str, lines: list[str], style: str, indent: int) -> list[Text]:
    """`label text`, wrapped under the text's first column. Wrapped here rather than by a Rich
    table: a report of a thousand findings spent most of its time measuring tables."""
    width = WIDTH - indent - len(label) - 1
    out: list[Any] = []
    for line in lines:
        pieces = textwrap.wrap(visible(line), width, break_long_words=True, break_on_hyphens=False) or [""]
        for piece in pieces:
            text = Text(" " * indent)
            text.append(label if not out else " " * len(label), style="dim")
            text.append(" ")
            text.append(piece, style=style)
            out.append(text)
    return out


def _quiet_line(f: Finding) -> Text:
    """One self-contained line per finding, `file:line: RULE severity subject: message`."""
    where = one_line(f.file or "-") + (f":{f.line}" if f.line else "")
    line = Text(f"{where}: ")
    line.append(f.rule, style="bold")
    line.append(" ")
    line.append(f.severity, style=STYLES[f.severity])
    line.append(f" {one_line(f.subject)}: {one_line(f.message)}")
    return line


def _vm_header(vm: VmResult) -> Text:
    header = Text()
    header.append("vm ", style="bold")
    header.append(one_line(vm.name), style="bold")
    if vm.count > 1:
        header.append(f" ×{vm.count}", style="bold")
    if vm.host:
        header.append(f" on {one_line(vm.host)}")
    header.append(": ")
    header.append(topology_summary(vm.topology), style="cyan")
    return header


def _host_header(host: HostResult) -> Text:
    header = Text()
    header.append("host ", style="bold")
    header.append(one_line(host.summary))
    return header


def _files(run: Run) -> list[str]:
    """Input files in command-line order, then any file only a result mentions."""
    seen = dict.fromkeys(run.files)
    items: list[Any] = [*run.hosts, *run.vms, *run.findings]
    for item in items:
        if item.file is not None:
            seen.setdefault(item.file)
    return list(seen)


def _take(pool: list[Finding], keep: Iterable[Finding]) -> list[Finding]:
    """Remove ``keep`` from ``pool`` (so no finding prints twice) and return it as a list."""
    chosen = list(keep)
    ids = {id(f) for f in chosen}
    pool[:] = [f for f in pool if id(f) not in ids]
    return chosen


def _file_section(run: Run, file: str, hosts: list[HostResult], vms: list[VmResult],
                  pool: list[Finding]) -> list[RenderableType]:
    """One input file: its hosts and VMs, each with its findings taken from `pool` (the file's
    findings not yet shown)."""
    out: list[RenderableType] = [Text(one_line(file), style="bold underline")]
    for host in hosts:
        out.append(Padding(_host_header(host), (0, 0, 0, 2)))
        subject = f"host {host.name}"
        for f in _take(pool, [f for f in pool if f.vm is None and f.subject == subject]):
            out.append(_finding(f, 4))
    for vm in vms:
        out.append(Padding(_vm_header(vm), (0, 0, 0, 2)))
        for f in _take(pool, [f for f in pool if f.vm == vm.name]):
            out.append(_finding(f, 4))
        if vm.suggested_vmx:
            out.extend(_hanging("suggested, not written:", [suggestion_line(s) for s in vm.suggested_vmx], "", 4))
        if vm.skipped:
            out.extend(_hanging("not evaluated:", list(vm.skipped), "dim", 4))
    if len(out) == 1 and any(e.file == file for e in run.errors):
        out.append(Padding(Text("not evaluated: see the input error above", style="dim"), (0, 0, 0, 2)))
    if pool:
        out.append(Padding(Text("other findings", style="bold"), (0, 0, 0, 2)))
        out.extend(_finding(f, 4) for f in pool)
    return out


def _by_file(items: Iterable[Any]) -> dict[str | None, list[Any]]:
    """Items grouped by their file, each group in the items' order: sections are built from
    these rather than by scanning every list for every file (quadratic on a thousand files)."""
    groups: dict[str | None, list[Any]] = {}
    for item in items:
        groups.setdefault(item.file, []).append(item)
    return groups


def render(run: Run, *, color: bool = False, quiet: bool = False) -> str:
    console = report_console(color)
    for problem in run.errors:
        console.print(Text(one_line(str(problem)), style="red"), soft_wrap=quiet)
    shown = [f for f in run.findings if f.suppressed is None]
    if quiet:
        for f in shown:
            # Unwrapped on purpose: one line per finding, for grep and for editors that jump
            # to `file:line:`.
            console.print(_quiet_line(f), soft_wrap=True)
        return _finish(console)
    if run.errors:
        console.print()
    hosts, vms, pools = _by_file(run.hosts), _by_file(run.vms), _by_file(shown)
    for file in _files(run):
        for renderable in _file_section(run, file, hosts.get(file, []), vms.get(file, []), pools.pop(file, [])):
            console.print(renderable)
        console.print()
    pool = [f for group in pools.values() for f in group]
    if pool:  # findings without a file: none from the engine today, but never drop one silently
        console.print(Text("other findings", style="bold underline"))
        for f in pool:
            console.print(_finding(f, 2))
        console.print()
    for note in run.notes:
        console.print(Text("note: " + one_line(note), style="dim"))
    counts = run.counts()
    style = "bold red" if counts["error"] or run.errors else ("yellow" if counts["warning"] else "green")
    console.print(Text(totals(run), style=style))
    return _finish(console)


def _finish(console: Console) -> str:
    """The captured report without the spaces Rich pads each line to the full width with, and
    with no line that a CI runner would take for a `::command::` (see the module docstring)."""
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return "".join(_defused(_TRAILING.sub(lambda m: "".join(_CODE.findall(m.group())), line)) + "\n"
                   for line in text.splitlines())


def _defused(line: str) -> str:
    if not _CODE.sub("", line).lstrip().startswith("::"):
        return line
    return line.replace("::", "\\x3a:", 1)
