"""A Markdown report for pull-request comments (GitHub-flavoured Markdown).

Sections: a heading, the totals and what was not evaluated; input errors; the findings by
severity (errors, then warnings, then info); the .vmx lines the fixes ask for, the hosts and the
VMs' predicted topologies, and the notes, each collapsed. The whole stays under LIMIT
characters: GitHub refuses a comment over 65,536. What does not fit is counted ("12 more
findings: see the SARIF/JSON artifact") rather than cut mid-row; findings come before anything
else, the more severe first.
Text from user input is escaped for the place it lands: in a table cell `|` would start a new
column and a line break would end the row, and `<`, `*`, `_`, backticks or brackets would
turn a VM name into HTML, emphasis, code or a link. Suppressed findings are counted in the
totals but not listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from advisor.output.describe import (
    IN_JSON,
    fix_lines,
    not_evaluated_lines,
    topology_summary,
    totals,
    unknowns_by_file,
    vmx_line,
)
from advisor.output.escape import command_safe, markdown, markdown_code
from advisor.report.findings import Finding, Run

# Text safe inside a table cell or a list item (advisor.output.escape.markdown).
cell = markdown


def _table(header: Iterable[str], rows: Iterable[Iterable[object]]) -> list[str]:
    head = list(header)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return lines


def _fence(body: str) -> str:
    """A backtick fence longer than any run of backticks in the body, so it cannot be closed early."""
    longest = max((len(m.group()) for m in re.finditer(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def _location(f: Finding) -> str:
    if not f.file:
        return ""
    return f.file + (f":{f.line}" if f.line else "")


def _vmx_block(run: Run, shown: list[Finding]) -> list[str]:
    """The .vmx lines of every unsuppressed fix, grouped by VM, as a fenced block."""
    groups: dict[tuple[str, str], list[str]] = {}
    for f in shown:
        vmx = f.fix.get("vmx") or {}
        if f.vm is None or not vmx:
            continue
        lines = groups.setdefault((f.file or "", f.vm), [])
        for key, value in vmx.items():
            line = vmx_line(key, value)
            if line not in lines:
                lines.append(line)
    if not groups:
        return []
    body_lines: list[str] = []
    for (file, vm), lines in groups.items():
        if body_lines:
            body_lines.append("")
        body_lines.append(f"# {markdown_code(vm)} ({markdown_code(file)})".replace("\n", " "))
        body_lines.extend(lines)
    body = "\n".join(body_lines)
    fence = _fence(body)
    return [f"{fence}ini", body, fence]


# GitHub's limit for an issue or pull-request comment is 65,536 characters; the margin leaves
# room for a workflow to add a line of its own around the report.
LIMIT = 60_000
MORE = "see the SARIF/JSON artifact"
_SEVERITY_TITLES = {"error": "Errors", "warning": "Warnings", "info": "Info"}


class _Budget:
    """The report's lines, and what is left of LIMIT (each line counts with its newline)."""

    __slots__ = ("left", "lines")

    def __init__(self, limit: int) -> None:
        self.lines: list[str] = []
        self.left = limit

    def fits(self, lines: list[str], keep: int = 0) -> bool:
        return sum(len(line) + 1 for line in lines) + keep <= self.left

    def add(self, lines: list[str]) -> None:
        self.lines += lines
        self.left -= sum(len(line) + 1 for line in lines)


def _rows(budget: _Budget, header: list[str], rows: Sequence[Sequence[object]], what: str, keep: int) -> None:
    """A table of as many rows as fit while `keep` characters stay free, then a count of the rest."""
    head = _table(header, [])
    if not budget.fits(head, keep):
        budget.add([f"{len(rows)} {what}: {MORE}.", ""])
        return
    budget.add(head)
    for index, row in enumerate(rows):
        line = _table(header, [row])[2]
        if not budget.fits([line], keep):
            budget.add(["", f"{len(rows) - index} more {what}: {MORE}."])
            break
        budget.add([line])
    budget.add([""])


def _collapsed(budget: _Budget, title: str, body: list[str], keep: int) -> None:
    """A <details> block when it fits whole, else one line saying where its content is."""
    block = ["<details>", f"<summary>{title}</summary>", "", *body, "", "</details>", ""]
    if budget.fits(block, keep):
        budget.add(block)
    else:
        budget.add([f"{title}: {MORE}.", ""])


# Room kept free for the lines after the findings: the one-line stand-ins of the collapsed
# sections when they do not fit.
_TAIL = 400


def render(run: Run, limit: int = LIMIT) -> str:
    shown = [f for f in run.findings if f.suppressed is None]
    budget = _Budget(limit)
    budget.add(["## advisor report", "", f"**{totals(run)}**", ""])
    summary = not_evaluated_lines(run, IN_JSON)
    files = unknowns_by_file(run)
    if files:
        summary.append(f"unknown template values: {len(run.unknowns)} in {len(files)} "
                       f"file{'s' if len(files) != 1 else ''} (the JSON report lists them)")
    if summary:
        budget.add([f"- {cell(line)}" for line in summary] + [""])
    if run.errors:
        budget.add(["### Input errors", ""])
        _rows(budget, ["file", "field", "problem"],
              [[e.file + (f":{e.line}" if e.line else ""), e.field or "", e.message] for e in run.errors],
              "input errors", _TAIL)
    if shown:
        budget.add(["### Findings", ""])
        for severity, title in _SEVERITY_TITLES.items():
            rows = [[f.rule, _location(f), f.subject, f.message, "\n".join(fix_lines(f.fix))]
                    for f in shown if f.severity == severity]
            if rows:
                budget.add([f"#### {title} ({len(rows)})", ""])
                _rows(budget, ["rule", "where", "subject", "message", "fix"], rows, "findings", _TAIL)
        vmx = _vmx_block(run, shown)
        if vmx:
            _collapsed(budget, ".vmx settings the fixes ask for", vmx, _TAIL)
    else:
        budget.add(["No findings.", ""])
    if run.hosts:
        hosts = _table(["host", "file", "capacity"], [(h.name, h.file, h.summary) for h in run.hosts])
        _collapsed(budget, "Hosts", hosts, _TAIL)
    placed = [v for v in run.vms if v.topology]
    if placed:
        _collapsed(budget, "Predicted topologies",
                   _table(["VM", "count", "host", "file", "topology"],
                          [(v.name, v.count, v.host or "", v.file, topology_summary(v.topology, v.host))
                           for v in placed]), _TAIL // 2)
    if run.notes:
        _collapsed(budget, "Notes", [f"- {cell(note)}" for note in run.notes], 0)
    # The fenced .vmx lines begin with keys from outside: none may begin a line of a CI log with `::`.
    return "\n".join(map(command_safe, "\n".join(budget.lines).split("\n"))).rstrip("\n") + "\n"
