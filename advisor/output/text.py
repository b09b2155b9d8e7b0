"""The terminal report, ruff-like: each finding one line (`path:line:col  RULE  severity
subject: message`), its fix and its rule's page under it; then what was not evaluated and the
values templates leave unknown, summed up in a few lines; the notes; the totals. `check` puts
each VM's predicted topology on a line before its findings (a running estate's, an RVTools export's
or a vCenter's, only with -v: one line says where they are). --show-sources, --show-skipped and
-v add the rest (advisor.output.display.Display); the other formats carry all of it.

Everything from user input goes into the report as text (Rich ``Text`` parts, never markup
strings) after its control characters are made visible, so a VM called ``[bold]x`` or containing
an ESC prints literally. Line breaks inside user text become spaces, and a line that would still
begin with `::` (a file named "::error::...") has that colon shown as \\x3a: GitHub Actions runs
any log line starting with `::` as a workflow command. A finding, a topology and a summary line
are never broken (a terminal wraps them; grep and editors read them whole, as ruff's and
hadolint's); what --show-skipped lists is laid out for the width the caller gives (the
terminal's: advisor.output.terminal) and broken between words only (`_line_starts`): a word
longer than the line, such as a URL or a long path, is printed whole so it can still be clicked
and copied. Quiet mode prints exactly one `file:line: RULE severity subject: message` line per
finding, sorted by file and line, with the rule and severity padded into columns. Colour and
width are the caller's decision (advisor.output.terminal), so the environment is not consulted
here.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING

from advisor.output.describe import (
    SHOW_SKIPPED,
    by_file,
    fix_summary,
    not_evaluated_lines,
    one_line,
    report_files,
    rule_link,
    suggestion_line,
    topology_summary,
    totals,
    unknown_file_line,
    unknowns_by_file,
    visible,
)
from advisor.output.display import Display
from advisor.output.escape import command_safe
from advisor.report.findings import Finding, HostResult, Run, VmResult

# Rich is imported by the lines that need it: a report without colour is written as plain text
# (see _Out), and importing Rich's console and text is about 7% of a small `advisor check`'s CPU.
if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

WIDTH = 100  # when the caller does not say (files, tests)
# The end of a line that holds only padding and colour codes. Patterns as text, compiled by `re`
# (and kept) when first used: a report without colour codes never uses them.
_TRAILING = r"(?:\s|\x1b\[[0-9;]*m)+$"
_CODE = r"\x1b\[[0-9;]*m"
STYLES = {"error": "bold red", "warning": "yellow", "info": "blue"}


def report_console(color: bool, width: int | None = None) -> Console:
    from rich.console import Console

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


class _Line:
    """A paragraph of the report: its (text, style) parts, a style for the whole of it, the
    columns it is indented by and the columns its continuation lines start further in.

    The report is built as these rather than as Rich renderables: without colour (pipes, CI
    logs, files) they are joined and written as plain strings, and only the coloured report
    (or a line holding a tab, which Rich expands) becomes a Rich ``Text`` (`_rich_text`)."""

    __slots__ = ("hang", "indent", "parts", "style")

    def __init__(self, parts: list[tuple[str, str]], style: str = "", indent: int = 0, hang: int = 0) -> None:
        self.parts = parts
        self.style = style
        self.indent = indent
        self.hang = hang

    def plain(self) -> str:
        """The text as Rich's ``Text.plain`` would hold it (Rich drops some control codes, none
        of them printable)."""
        plain = "".join([text for text, _ in self.parts])
        if plain.isprintable():
            return plain
        from rich.control import strip_control_codes

        return strip_control_codes(plain)


def _rich_text(line: _Line) -> Text:
    from rich.text import Text

    text = Text(style=line.style)
    for part, style in line.parts:
        text.append(part, style=style or None)
    return text


def _hanging(label: str, lines: list[str], style: str, indent: int) -> list[_Line]:
    """`label text` per line; when the text wraps it continues under its own first column."""
    blank = " " * len(label)
    return [_Line([(label if number == 0 else blank, ""), (" ", ""), (visible(line), style)], "dim", indent,
                  len(label) + 1)
            for number, line in enumerate(lines)]


_WORD = re.compile(r"\s*(\S+)\s*")  # a word with the spaces around it, as Rich's own breaker reads them
_NOT_SPACE = re.compile(r"\S")
# Printable ASCII and the symbols advisor's own wording puts among it (a topology's arrow, a
# count's ×, a shortened list's …, the en dash of the rules' reference titles): one cell each,
# and never a space but " ".
ONE_CELL_SYMBOLS = "→×…–"
_NOT_ONE_CELL = re.compile(f"[^\x20-\x7e{ONE_CELL_SYMBOLS}]")


def _line_starts(plain: str, room: int) -> list[int]:
    """Offsets where a greedy word wrap into `room` cells starts each line after the first.

    Our own twenty lines rather than Rich: its public `Text.wrap` crops or folds a word wider
    than the line (overflow "crop", "fold" or "ellipsis"), which cuts a URL in two, and the
    breaker that can leave such a word whole (`rich._wrap.divide_line(fold=False)`) is private,
    free to change in any release. Cells, not characters, via Rich's public `cell_len`, so wide
    characters in a VM name are measured as the terminal draws them; printable ASCII and
    advisor's own one-cell symbols (nearly every line) take one cell a character, so there the
    offsets are the measure and each line is found by looking at the character just past its
    room rather than at every word.
    """
    starts: list[int] = []
    if _NOT_ONE_CELL.search(plain) is None:  # the only space is " "
        if len(plain) <= room:
            return starts
        lead = len(plain) - len(plain.lstrip())  # the first word: its line starts at 0, spaces and all
        line = 0
        while line + room < len(plain):
            past = line + room  # the first character that does not fit: the word holding it moves on
            if plain[past] == " ":
                found = _NOT_SPACE.search(plain, past)
                if found is None:
                    break
                at = found.start()
            else:
                at = plain.rfind(" ", 0, past) + 1
            if at <= max(line, lead):  # the line's own first word, longer than the line: kept whole
                after = plain.find(" ", at)
                found = _NOT_SPACE.search(plain, after) if after >= 0 else None
                if found is None:
                    break
                at = found.start()
            starts.append(line := at)
        return starts
    from rich.cells import cell_len

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


class _Out:
    """The report being written. Without colour, a line is written as its plain text, broken
    between words (`_line_starts`), never inside one: a longer word gets a line of its own,
    whole. That is what Rich prints for it, less Rich's layout per line (most of a large
    report's cost); a line holding a tab goes through Rich, which expands it.
    tests/unit/test_text_plain.py holds the two ways to each other."""

    def __init__(self, color: bool, width: int) -> None:
        self.width = width
        self.color = color
        self._console: Console | None = None
        self.file = io.StringIO()

    @property
    def console(self) -> Console:
        if self._console is None:
            self._console = report_console(self.color, self.width)
            self._console.file = self.file
        return self._console

    def _plain(self, plain: str) -> bool:
        return not self.color and "\t" not in plain

    def emit(self, line: _Line) -> None:
        """The line broken into lines of at most the report's width."""
        plain = line.plain()
        indent, hang = line.indent, line.hang
        breaks = _breaks(plain, max(self.width - indent, 10), hang)
        if self._plain(plain):
            if not breaks:
                self.file.write(" " * indent + plain.rstrip() + "\n")
                return
            more = " " * (indent + hang)
            ends = [*breaks[1:], len(plain)]
            lines = [" " * indent + plain[:breaks[0]].rstrip()]
            lines += [more + plain[start:end].rstrip() for start, end in zip(breaks, ends, strict=True)]
            self.file.write("\n".join(lines) + "\n")
            return
        from rich.text import Text

        for number, part in enumerate(_rich_text(line).divide(breaks)):
            part.rstrip()
            self.console.print(Text(" " * (indent + (hang if number else 0))) + part, soft_wrap=True)

    def print(self, line: _Line) -> None:
        """One line, never wrapped again."""
        plain = line.plain()
        if self._plain(plain):
            self.file.write(plain + "\n")
        else:
            self.console.print(_rich_text(line), soft_wrap=True)

    def blank(self) -> None:
        if self.color:
            self.console.print()
        else:
            self.file.write("\n")


def _quiet_line(f: Finding, rule_width: int = 0) -> _Line:
    """One self-contained line per finding, `file:line[:column]: RULE severity subject: message`
    (the compilers' form editors jump to), the rule and severity padded so that they line up."""
    where = one_line(f.file or "-") + (f":{f.line}" if f.line else "") + (f":{f.column}" if f.line and f.column else "")
    return _Line([(f"{where}: ", ""), (f.rule.ljust(rule_width), "bold"), (" ", ""),
                  (f.severity.ljust(7), STYLES[f.severity]), (f" {one_line(f.subject)}: {one_line(f.message)}", "")])


def _where(f: Finding) -> str:
    return one_line(f.file or "-") + (f":{f.line}" if f.line else "") + (f":{f.column}" if f.line and f.column else "")


def _finding(f: Finding, run: Run, widths: tuple[int, int], display: Display) -> list[_Line]:
    """`path:line:col  RULE  severity  subject: message`, then the fix and one link, indented:
    at most three lines unless --show-sources or -v asks for more. Never wrapped: a finding is
    one line for grep and for editors that jump to `path:line:col`, as ruff's and hadolint's."""
    out = [_Line([(_where(f), ""), ("  ", ""), (f.rule.ljust(widths[0]), "bold"), ("  ", ""),
                  (f.severity.ljust(widths[1]), STYLES[f.severity]),
                  (f"  {one_line(f.subject)}: {one_line(f.message)}", "")])]
    fix = fix_summary(f.fix)
    if fix:
        out.append(_Line([("    fix: ", ""), (fix, "")], "dim"))
    if display.verbose and f.fix.get("text") and fix != one_line(f.fix["text"]):
        out.append(_Line([("         " + one_line(f.fix["text"]), "")], "dim"))
    if display.sources:
        out.extend(_Line([("    source: ", ""), (one_line(reference), "")], "dim") for reference in f.references)
    else:
        link = rule_link(run, f)
        if link:
            out.append(_Line([("    see: ", ""), (link, "")], "dim"))
    return out


def _context(file: str, hosts: list[HostResult], vms: list[VmResult], display: Display, topology: bool) -> list[_Line]:
    """The file's hosts (-v) and, when `topology`, its VMs with their predicted topology, a line each."""
    out = []
    if display.verbose:
        out += [_Line([(one_line(file), ""), (": ", ""), ("host ", "bold"), (one_line(h.summary), "")]) for h in hosts]
    if not topology:
        return out
    for vm in vms:
        parts = [(one_line(file) + (f":{vm.line}" if vm.line else ""), ""), (": ", ""), ("vm ", "bold"),
                 (one_line(vm.name), "bold")]
        if vm.count > 1:
            parts.append((f" ×{vm.count}", "bold"))
        if vm.host:
            parts.append((f" on {one_line(vm.host)}", ""))
        parts += [(": ", ""), (topology_summary(vm.topology, vm.host), "cyan")]
        out.append(_Line(parts))
        if display.verbose and vm.suggested_vmx:
            out += [_Line([("    suggested, not written: ", ""), (suggestion_line(s), "")], "dim")
                    for s in vm.suggested_vmx]
    return out


def _skipped(run: Run) -> list[_Line]:
    """--show-skipped: each host's and VM's rules not evaluated, with what each needs (wrapped
    under it), then every unknown template value, a line each."""
    out = []
    for host in run.hosts:
        if host.skipped:
            out.append(_Line([(f"{one_line(host.file)}: host {one_line(host.name)}: not evaluated", "")]))
            out.extend(_hanging("-", list(host.skipped), "dim", 4))
    for vm in run.vms:
        if vm.skipped:
            where = one_line(vm.file) + (f":{vm.line}" if vm.line else "")
            out.append(_Line([(f"{where}: vm {one_line(vm.name)}: not evaluated", "")]))
            out.extend(_hanging("-", list(vm.skipped), "dim", 4))
    for file, values in unknowns_by_file(run).items():
        out.extend(_Line([(f"{one_line(file)}: {one_line(value)}", "")], "dim") for value in values)
    return out


# The text report names at most this many files' unknown values; --show-skipped lists them all.
UNKNOWN_FILES_SHOWN = 3


def _summary(run: Run, display: Display, hidden: bool = False) -> list[_Line]:
    """What was not evaluated and what was unknown, in a few lines; the notes; where the VM
    topologies left out (`hidden`) are; the totals."""
    out = [_Line([(line, "")], "dim") for line in not_evaluated_lines(run, "" if display.skipped else SHOW_SKIPPED)]
    if not display.skipped:
        files = unknowns_by_file(run)
        for file, values in list(files.items())[:UNKNOWN_FILES_SHOWN]:
            out.append(_Line([(unknown_file_line(file, values), "")], "dim"))
        if len(files) > UNKNOWN_FILES_SHOWN:
            more = len(files) - UNKNOWN_FILES_SHOWN
            out.append(_Line([(f"unknown values in {more} more file{'s' if more > 1 else ''} "
                               "(--show-skipped lists them)", "")], "dim"))
    out += [_Line([("note: " + one_line(note), "")], "dim") for note in run.notes]
    if hidden:
        out.append(_Line([("each VM's predicted vNUMA layout: --format table lists them, -v prints them here", "")],
                         "dim"))
    counts = run.counts()
    style = "bold red" if counts["error"] or run.errors else ("yellow" if counts["warning"] else "green")
    out.append(_Line([(totals(run), "")], style))
    return out


def render(run: Run, *, color: bool = False, quiet: bool = False, width: int | None = None,
           display: Display | None = None) -> str:
    display = display or Display()
    out = _Out(color, width or WIDTH)
    for problem in run.errors:
        out.print(_Line([(one_line(str(problem)), "")], "red"))
    shown = [f for f in run.findings if f.suppressed is None]
    if quiet:
        rule_width = max((len(f.rule) for f in shown), default=0)
        for f in sorted(shown, key=lambda f: (f.file or "", f.line or 0)):
            # Unwrapped on purpose: one line per finding, for grep and for editors that jump
            # to `file:line:`.
            out.print(_quiet_line(f, rule_width))
        return _finish(out.file.getvalue())
    widths = (max((len(f.rule) for f in shown), default=0), max((len(f.severity) for f in shown), default=0))
    hosts, vms, pools = by_file(run.hosts), by_file(run.vms), by_file(shown)
    # A spec file's topologies are the point of `check`; a running estate's are on demand (-v), so
    # its report grows with its findings, not its VMs (a line per VM buried 66 findings in 10,000).
    estate = run.estate_specs()
    hidden = display.topology and not display.verbose and any(file in vms for file in estate)
    lines: list[_Line] = []
    for file in report_files(run):
        topology = display.verbose or (display.topology and file not in estate)
        lines += _context(file, hosts.get(file, []), vms.get(file, []), display, topology)
        for f in sorted(pools.pop(file, []), key=lambda f: (f.line or 0, f.column or 0)):
            lines += _finding(f, run, widths, display)
    for f in (f for group in pools.values() for f in group):  # without a file: none today, never dropped
        lines += _finding(f, run, widths, display)
    for line in lines:
        out.print(line)
    if display.skipped:
        for line in _skipped(run):
            out.emit(line)
    if lines or run.errors or display.skipped:
        out.blank()
    for line in _summary(run, display, hidden):
        out.print(line)
    return _finish(out.file.getvalue())


def _finish(text: str) -> str:
    """The captured report without the spaces Rich pads each line to the full width with, and
    with no line that a CI runner would take for a `::command::` (see the module docstring)."""
    lines = [command_safe(_trimmed(line)) for line in text.splitlines()]
    return "\n".join(lines) + "\n" if lines else ""


def _trimmed(line: str) -> str:
    """The line without its trailing padding, keeping any colour codes among it."""
    if "\x1b" not in line:
        return line.rstrip()  # str.rstrip() and the pattern's \s take the same characters
    return re.sub(_TRAILING, lambda m: "".join(re.findall(_CODE, m.group())), line)
