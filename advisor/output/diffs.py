"""`advisor diff` in every report format but the standalone SVG (a picture of one run's NUMA maps: a
difference between two estates has none).

The change list (advisor.report.diff.changes: one row per VM added, removed or reshaped and per
finding new or fixed) is what the tabular formats lay out (table, csv, xlsx, markdown, html); the
CI formats carry the findings: github annotates each new finding, SARIF marks each result with its
`baselineState` ("new", "absent": SARIF 2.1.0 §3.27.24, made for exactly this comparison), JUnit
fails one test case per new finding. Every name from the snapshots goes through the escaping
boundary of its format (advisor.output.escape).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

import advisor
from advisor.output.escape import command_safe, markdown, one_line, terminal, xml
from advisor.report.diff import COLUMNS, SCHEMA, Diff, changes, summary, text
from advisor.vocab import DIFF_FORMATS

FORMATS = DIFF_FORMATS
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render(fmt: str, diff: Diff) -> bytes:
    """The report of `diff` in `fmt` (one of FORMATS) as the bytes to write."""
    if fmt == "xlsx":
        return _xlsx(diff)
    out = {"text": text, "json": _json, "sarif": _sarif, "junit": _junit, "github": _github, "markdown": _markdown,
           "html": _html, "table": _table, "csv": _csv}[fmt](diff)
    return out.encode("utf-8", "surrogateescape")


def _json(diff: Diff) -> str:
    return json.dumps(diff.as_dict(), indent=2) + "\n"


def _table(diff: Diff) -> str:
    rows = [[one_line(r[c])[:60] for c in COLUMNS] for r in changes(diff)]
    head = [c.upper() for c in COLUMNS]
    widths = [max(len(c) for c in column) for column in zip(head, *rows, strict=True)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in [head, *rows]]
    return "\n".join(map(command_safe, lines)) + "\n" + summary(diff) + "\n"


def _csv(diff: Diff) -> str:
    from advisor.output.csv import table

    return table(COLUMNS, changes(diff))


def _xlsx(diff: Diff) -> bytes:
    from advisor.output.xlsx import workbook

    return workbook("changes", list(COLUMNS), [[row[c] for c in COLUMNS] for row in changes(diff)],
                    [summary(diff)])


def _markdown(diff: Diff) -> str:
    lines = [f"## advisor diff: {markdown(diff.old)} → {markdown(diff.new)}", "",
             f"{markdown(summary(diff))} (VMs matched by {markdown(diff.matched_by)})", ""]
    rows = changes(diff)
    if rows:
        lines += ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        lines += ["| " + " | ".join(markdown(one_line(r[c])).replace("|", "\\|") for c in COLUMNS) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _html(diff: Diff) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in COLUMNS)
    body = "".join(f"<tr data-change=\"{xml(r['change'])}\">" + "".join(f"<td>{xml(r[c])}</td>" for c in COLUMNS)
                   + "</tr>" for r in changes(diff))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>advisor diff</title><style>body{font-family:system-ui,sans-serif;overflow-wrap:anywhere;"
            "max-width:80rem;margin:0 auto;padding:1rem}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:.15rem .5rem;text-align:left}</style></head><body>"
            f"<h1>advisor diff</h1><p>{xml(diff.old)} → {xml(diff.new)} (VMs matched by {xml(diff.matched_by)})</p>"
            f"<p class=\"totals\">{xml(summary(diff))}</p>"
            f"<table class=\"changes\"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></body></html>\n")


def _github(diff: Diff) -> str:
    from advisor.output.github import COMMANDS, command

    lines = [command(COMMANDS.get(f["severity"], "warning"), f"new since {diff.old}: {f['message']}",
                     file=f["file"], line=f["line"], title=f"{f['rule']} (new)") for f in diff.new_findings]
    lines.append(f"advisor diff: {summary(diff)}")  # counts only: no name can start a command here
    return "\n".join(lines) + "\n"


def _sarif(diff: Diff) -> str:
    from advisor.output.sarif import SARIF_SCHEMA

    def result(f: dict[str, Any], state: str) -> dict[str, Any]:
        out: dict[str, Any] = {"ruleId": f["rule"], "level": _LEVEL.get(f["severity"], "warning"),
                               "message": {"text": terminal(f"{f['subject']}: {f['message']}", keep="")},
                               "baselineState": state}
        if f["file"]:
            where: dict[str, Any] = {"artifactLocation": {"uri": f["file"]}}
            if f["line"]:
                where["region"] = {"startLine": f["line"]}
            out["locations"] = [{"physicalLocation": where}]
        return out

    results = [result(f, "new") for f in diff.new_findings] + [result(f, "absent") for f in diff.fixed]
    document = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "advisor", "version": advisor.__version__,
                            "informationUri": "https://github.com/vsphere-advisor/advisor"}},
        "results": results, "properties": {"schema": SCHEMA, "summary": summary(diff)}}]}
    return json.dumps(document, indent=2) + "\n"


def _junit(diff: Diff) -> str:
    cases = []
    for f in diff.new_findings:
        cases.append(f"<testcase classname=\"{xml(f['rule'])}\" name=\"{xml(f['subject'])}\">"
                     f"<failure type=\"{xml(f['severity'])}\" message=\"{xml(f['message'])}\">"
                     f"{xml(f['file'] or '')}:{f['line'] or ''} new since {xml(diff.old)}</failure></testcase>")
    for f in diff.fixed:
        cases.append(f"<testcase classname=\"{xml(f['rule'])}\" name=\"{xml(f['subject'])} (fixed)\"/>")
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            f"<testsuites><testsuite name=\"advisor diff\" tests=\"{len(cases)}\" "
            f"failures=\"{len(diff.new_findings)}\">{''.join(cases)}</testsuite></testsuites>\n")
