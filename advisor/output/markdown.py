"""A Markdown report for pull-request comments (GitHub-flavoured Markdown).

Sections: a heading and the totals, a table of hosts, a table of VMs with their predicted
topology, a table of findings, and a collapsed block with the .vmx lines the fixes ask for.
Text from user input is escaped for the place it lands: in a table cell `|` would start a new
column and a line break would end the row, and `<`, `*`, `_`, backticks or brackets would
turn a VM name into HTML, emphasis, code or a link. Suppressed findings are counted in the
totals but not listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from advisor.output.describe import fix_lines, topology_summary, totals, visible, vmx_line
from advisor.report.findings import Finding, Run

_SPECIAL = re.compile(r"([\\`*_\[\]{}<>|#!~])")


def cell(text: object) -> str:
    """Text safe inside a table cell: Markdown and HTML characters escaped, line breaks as <br>."""
    escaped = _SPECIAL.sub(r"\\\1", visible(text)).replace("&", "&amp;")
    return "<br>".join(escaped.replace("\r\n", "\n").replace("\r", "\n").split("\n"))


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
    """The .vmx lines of every unsuppressed fix, grouped by VM, in a collapsed <details>."""
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
        body_lines.append(f"# {visible(vm)} ({visible(file)})".replace("\n", " "))
        body_lines.extend(lines)
    body = "\n".join(body_lines)
    fence = _fence(body)
    return ["<details>", "<summary>.vmx settings the fixes ask for</summary>", "", f"{fence}ini", body, fence, "",
            "</details>", ""]


def render(run: Run) -> str:
    shown = [f for f in run.findings if f.suppressed is None]
    out = ["## advisor report", "", f"**{totals(run)}**", ""]
    if run.errors:
        out += ["### Input errors", ""]
        out += _table(["file", "field", "problem"],
                      [(e.file + (f":{e.line}" if e.line else ""), e.field or "", e.message) for e in run.errors])
        out.append("")
    if run.hosts:
        out += ["### Hosts", ""]
        out += _table(["host", "file", "capacity"], [(h.name, h.file, h.summary) for h in run.hosts])
        out.append("")
    if run.vms:
        out += ["### VMs", ""]
        out += _table(["VM", "count", "host", "file", "topology"],
                      [(v.name, v.count, v.host or "", v.file, topology_summary(v.topology, v.host)) for v in run.vms])
        out.append("")
    if shown:
        out += ["### Findings", ""]
        out += _table(["severity", "rule", "subject", "where", "message", "fix"],
                      [(f.severity, f.rule, f.subject, _location(f), f.message, "\n".join(fix_lines(f.fix)))
                       for f in shown])
        out.append("")
        out += _vmx_block(run, shown)
    else:
        out += ["No findings.", ""]
    if run.notes:
        out += ["### Notes", ""]
        out += [f"- {cell(note)}" for note in run.notes]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
