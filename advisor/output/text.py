"""The terminal report: per file, each host's capacity, each VM's topology, then its findings.

Everything from user input goes into Rich ``Text`` objects (never markup strings) after its
control characters are made visible, so a VM called ``[bold]x`` or containing an ESC prints
literally. Line breaks inside user text become spaces, and a line that would still begin with
`::` (a long name wrapped just before "::error::") has that colon shown as \\x3a: GitHub Actions
runs any log line starting with `::` as a workflow command. Lines are laid out for the width
the caller gives (the terminal's: advisor.output.terminal) and broken between words only
(`_line_starts`): a word longer than the line, such as a URL or a long path, is printed whole
so it can still be clicked and copied. Quiet mode prints exactly one
`file:line: RULE severity subject: message` line per finding, sorted by file and line, with the
rule and severity padded into columns. Colour and width are the caller's decision
(advisor.output.terminal), so the environment is not consulted here.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from advisor.output.describe import (
    first_reference,
    fix_lines,
    one_line,
    report_files,
    suggestion_line,
    topology_summary,
    totals,
    visible,
)
from advisor.report.findings import Finding, HostResult, Run, VmResult

WIDTH = 100  # when the caller does not say (files, tests)
# The end of a line that holds only padding and colour codes. Patterns as text, compiled by `re`
# (and kept) when first used: a report without colour codes never uses them.
_TRAILING = r"(?:\s|\x1b\[[0-9;]*m)+$"
_CODE = r"\x1b\[[0-9;]*m"
STYLES = {"error": "bold red", "warning": "yellow", "info": "blue"}


def report_console(color: bool, width: int | None = None) -> Console:
    return Console(
        file=io.StringIO(),
        width=width or WIDTH,
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


@dataclass(slots=True)
class _Hang:
    """A line whose continuation lines start `hang` columns in, under the text after its label."""

    text: Text
    hang: int

    def __rich_console__(self, console: Console, options: Any) -> Any:  # printed whole when not by _emit
        yield self.text


def _hanging(label: str, lines: list[str], style: str, indent: int) -> list[RenderableType]:
    """`label text` per line; when the text wraps it continues under its own first column."""
    out: list[RenderableType] = []
    for number, line in enumerate(lines):
        text = Text(label if number == 0 else " " * len(label), style="dim")
        text.append(" ")
        text.append(visible(line), style=style)
        out.append(Padding(_Hang(text, len(label) + 1), (0, 0, 0, indent)))
    return out


_WORD = re.compile(r"\s*(\S+)\s*")  # a word with the spaces around it, as Rich's own breaker reads them


def _line_starts(plain: str, room: int) -> list[int]:
    """Offsets where a greedy word wrap into `room` cells starts each line after the first.

    Our own twenty lines rather than Rich: its public `Text.wrap` crops or folds a word wider
    than the line (overflow "crop", "fold" or "ellipsis"), which cuts a URL in two, and the
    breaker that can leave such a word whole (`rich._wrap.divide_line(fold=False)`) is private,
    free to change in any release. Cells, not characters, via Rich's public `cell_len`, so wide
    characters in a VM name are measured as the terminal draws them; printable ASCII (nearly
    every line) takes one cell a character, so there the offsets are the measure.
    """
    starts: list[int] = []
    if plain.isascii() and plain.isprintable():
        if len(plain) <= room:
            return starts
        line = 0  # where the current line starts; the words tile the text from there
        for match in _WORD.finditer(plain):
            if match.start() > line and match.end(1) - line > room:
                starts.append(line := match.start())
        return starts
    used = 0
    for match in _WORD.finditer(plain):
        word = match.group(0)
        if used and used + cell_len(word.rstrip()) > room and match.start():
            starts.append(match.start())
            used = 0
        used += cell_len(word)
    return starts


def _breaks(plain: str, room: int, hang: int) -> list[int]:
    """Offsets where the second and later lines start: the first line has `room` columns, the
    others `room - hang`."""
    first = _line_starts(plain, room)
    if not hang or not first:
        return first
    rest = _line_starts(plain[first[0]:], max(room - hang, 10))
    return [first[0], *(first[0] + offset for offset in rest)]


def _emit(console: Console, item: RenderableType, width: int, indent: int = 0) -> None:
    """Print a piece of the report broken into lines of at most `width` columns between words
    (`_line_starts`), never inside one: a longer word gets a line of its own, whole."""
    if isinstance(item, Group):
        for part in item.renderables:
            _emit(console, part, width, indent)
    elif isinstance(item, Padding):
        _emit(console, item.renderable, width, indent + item.left)
    elif isinstance(item, (Text, _Hang)):
        text, hang = (item.text, item.hang) if isinstance(item, _Hang) else (item, 0)
        plain = text.plain
        breaks = _breaks(plain, max(width - indent, 10), hang)
        if _plain(console, plain):
            for number, (start, end) in enumerate(zip([0, *breaks], [*breaks, len(plain)], strict=True)):
                console.file.write(" " * (indent + (hang if number else 0)) + plain[start:end].rstrip() + "\n")
            return
        for number, line in enumerate(text.divide(breaks)):
            line.rstrip()
            console.print(Text(" " * (indent + (hang if number else 0))) + line, soft_wrap=True)
    else:  # a table or panel (none in this report today): Rich lays it out itself
        console.print(item)


def _plain(console: Console, plain: str) -> bool:
    """Whether Rich would print this line as its plain text: without colour it does, but for
    expanding tabs (a Text has already dropped the control codes Rich strips, and `visible`
    escapes the rest). Such lines are written directly, skipping Rich's layout per call (a
    third of a small `advisor check`); tests/unit/test_text_plain.py holds the two ways to
    each other."""
    return console.color_system is None and "\t" not in plain


def _print(console: Console, line: Text) -> None:
    """One line, never wrapped again."""
    if _plain(console, line.plain):
        console.file.write(line.plain + "\n")
    else:
        console.print(line, soft_wrap=True)


def _quiet_line(f: Finding, rule_width: int = 0) -> Text:
    """One self-contained line per finding, `file:line[:column]: RULE severity subject: message`
    (the compilers' form editors jump to), the rule and severity padded so that they line up."""
    where = one_line(f.file or "-") + (f":{f.line}" if f.line else "") + (f":{f.column}" if f.line and f.column else "")
    line = Text(f"{where}: ")
    line.append(f.rule.ljust(rule_width), style="bold")
    line.append(" ")
    line.append(f.severity.ljust(7), style=STYLES[f.severity])
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
    header.append(topology_summary(vm.topology, vm.host), style="cyan")
    return header


def _host_header(host: HostResult) -> Text:
    header = Text()
    header.append("host ", style="bold")
    header.append(one_line(host.summary))
    return header


class _FileFindings:
    """One file's shown findings, grouped once: by VM name and by host subject. Each section
    takes its own group, so the report is linear in the findings (picking a VM's findings out
    of the file's whole list, for every VM, was quadratic: minutes for a 10,000-VM spec)."""

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        self.by_vm: dict[str, list[Finding]] = {}
        self.by_host: dict[str, list[Finding]] = {}
        for f in findings:
            if f.vm is None:
                self.by_host.setdefault(f.subject, []).append(f)
            else:
                self.by_vm.setdefault(f.vm, []).append(f)

    def take_vm(self, name: str) -> list[Finding]:
        return self.by_vm.pop(name, [])

    def take_host(self, name: str) -> list[Finding]:
        return self.by_host.pop(f"host {name}", [])

    def rest(self) -> list[Finding]:
        """The findings no section took, in the run's order."""
        if not self.by_vm and not self.by_host:
            return []
        return [f for f in self.findings if (f.subject in self.by_host if f.vm is None else f.vm in self.by_vm)]


def _file_section(run: Run, file: str, hosts: list[HostResult], vms: list[VmResult],
                  findings: list[Finding]) -> list[RenderableType]:
    """One input file: its hosts and VMs, each with its own findings, then any finding of the
    file that none of them took (so no finding prints twice or is dropped)."""
    out: list[RenderableType] = [Text(one_line(file), style="bold underline")]
    groups = _FileFindings(findings)
    for host in hosts:
        out.append(Padding(_host_header(host), (0, 0, 0, 2)))
        out.extend(_finding(f, 4) for f in groups.take_host(host.name))
    for vm in vms:
        out.append(Padding(_vm_header(vm), (0, 0, 0, 2)))
        out.extend(_finding(f, 4) for f in groups.take_vm(vm.name))
        if vm.suggested_vmx:
            out.extend(_hanging("suggested, not written:", [suggestion_line(s) for s in vm.suggested_vmx], "", 4))
        if vm.skipped:
            out.extend(_hanging("not evaluated:", list(vm.skipped), "dim", 4))
    if len(out) == 1 and any(e.file == file for e in run.errors):
        out.append(Padding(Text("not evaluated: see the input error above", style="dim"), (0, 0, 0, 2)))
    rest = groups.rest()
    if rest:
        out.append(Padding(Text("other findings", style="bold"), (0, 0, 0, 2)))
        out.extend(_finding(f, 4) for f in rest)
    return out


def _by_file(items: Iterable[Any]) -> dict[str | None, list[Any]]:
    """Items grouped by their file, each group in the items' order: sections are built from
    these rather than by scanning every list for every file (quadratic on a thousand files)."""
    groups: dict[str | None, list[Any]] = {}
    for item in items:
        groups.setdefault(item.file, []).append(item)
    return groups


def render(run: Run, *, color: bool = False, quiet: bool = False, width: int | None = None) -> str:
    width = width or WIDTH
    console = report_console(color, width)
    for problem in run.errors:
        if quiet:
            _print(console, Text(one_line(str(problem)), style="red"))
        else:
            _emit(console, Text(one_line(str(problem)), style="red"), width)
    shown = [f for f in run.findings if f.suppressed is None]
    if quiet:
        rule_width = max((len(f.rule) for f in shown), default=0)
        for f in sorted(shown, key=lambda f: (f.file or "", f.line or 0)):
            # Unwrapped on purpose: one line per finding, for grep and for editors that jump
            # to `file:line:`.
            _print(console, _quiet_line(f, rule_width))
        return _finish(console)
    if run.errors:
        console.print()
    hosts, vms, pools = _by_file(run.hosts), _by_file(run.vms), _by_file(shown)
    for file in report_files(run):
        for renderable in _file_section(run, file, hosts.get(file, []), vms.get(file, []), pools.pop(file, [])):
            _emit(console, renderable, width)
        console.print()
    pool = [f for group in pools.values() for f in group]
    if pool:  # findings without a file: none from the engine today, but never drop one silently
        _emit(console, Text("other findings", style="bold underline"), width)
        for f in pool:
            _emit(console, _finding(f, 2), width)
        console.print()
    for note in run.notes:
        _emit(console, _Hang(Text("note: " + one_line(note), style="dim"), 6), width)
    counts = run.counts()
    style = "bold red" if counts["error"] or run.errors else ("yellow" if counts["warning"] else "green")
    _emit(console, Text(totals(run), style=style), width)
    return _finish(console)


def _finish(console: Console) -> str:
    """The captured report without the spaces Rich pads each line to the full width with, and
    with no line that a CI runner would take for a `::command::` (see the module docstring)."""
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return "".join(_defused(_trimmed(line)) + "\n" for line in text.splitlines())


def _trimmed(line: str) -> str:
    """The line without its trailing padding, keeping any colour codes among it."""
    if "\x1b" not in line:
        return line.rstrip()  # str.rstrip() and the pattern's \s take the same characters
    return re.sub(_TRAILING, lambda m: "".join(re.findall(_CODE, m.group())), line)


def _defused(line: str) -> str:
    if "::" not in line or not re.sub(_CODE, "", line).lstrip().startswith("::"):
        return line
    return line.replace("::", "\\x3a:", 1)
