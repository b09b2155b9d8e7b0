"""Verdicts as text (one line a VM, a line a difference), JSON, SARIF 2.1.0 and a self-contained HTML page.

Every string that came from a log (VM names, file names, setting values) is escaped for the output
it goes to: terminal controls made visible in text, XML-forbidden characters replaced in HTML, JSON
and SARIF written by the json module (which escapes controls itself).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import advisor
from advisor.errors import InputError, printable
from advisor.output.sarif import INFORMATION_URI, SARIF_SCHEMA, artifact_uri
from advisor.verify.compare import CODES, Verdict

SCHEMA = "advisor/verify/v1"
DOCS = "docs/verify.md"
# Characters XML 1.0 does not allow (C0 but tab/LF/CR, surrogates, U+FFFE/U+FFFF), and the
# controls and bidi overrides no page should carry from a log.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u202a-\u202e\u2066-\u2069]")


def _h(value: object) -> str:
    return html.escape(_NOT_XML.sub("\ufffd", str(value)))


def summary(verdicts: list[Verdict]) -> dict[str, int]:
    agree = sum(v.agrees for v in verdicts)
    return {"vms": len(verdicts), "agree": agree, "disagree": len(verdicts) - agree,
            "notes": sum(1 for v in verdicts for d in v.differences if d.level == "note")}


def _layout(view: dict[str, Any]) -> str:
    nodes = view.get("vnuma_nodes") or []
    clients = view.get("numa_clients") or []
    parts = []
    if nodes:
        parts.append(f"vNUMA {len(nodes)} {nodes}")
    if clients:
        parts.append(f"clients {len(clients)} {clients}")
    if view.get("home_nodes"):
        parts.append(f"home nodes {view['home_nodes']}")
    return ", ".join(parts) or "no layout lines"


def text(verdicts: list[Verdict], errors: list[InputError]) -> str:
    lines: list[str] = []
    for v in verdicts:
        where = printable(f"{v.file}:{v.line}")
        head = f"{where}  {printable(v.name)}"
        if not v.differences:
            lines.append(f"{head}  agree  {_layout(v.logged)} (host {printable(v.host)}, vSphere {v.version})")
        for d in v.differences:
            lines.append(f"{head}  {d.code} {d.level}  {d.title}: logged {printable(d.logged)}, "
                         f"predicted {printable(d.predicted)} (host {printable(v.host)}, vSphere {v.version})")
            lines += [f"    why: {printable(w)}" for w in d.why]
        lines += [f"    assumed: {printable(a)}" for a in v.assumptions]
    lines += [f"advisor: {printable(str(e))}" for e in errors]
    s = summary(verdicts)
    lines.append(f"{s['vms']} VM(s): {s['agree']} agree, {s['disagree']} disagree, {s['notes']} note(s); "
                 f"codes in {DOCS}")
    return "\n".join(lines) + "\n"


def _verdict_dict(v: Verdict) -> dict[str, Any]:
    return {
        "name": v.name, "file": v.file, "line": v.line, "host": v.host,
        "vsphere": v.version, "vsphere_from": v.version_from, "agrees": v.agrees,
        "logged": v.logged, "predicted": v.predicted,
        "differences": [{"code": d.code, "level": d.level, "title": d.title, "logged": d.logged,
                         "predicted": d.predicted, "why": d.why} for d in v.differences],
        "assumptions": v.assumptions, "uncertain": v.uncertain,
    }


def as_json(verdicts: list[Verdict], errors: list[InputError]) -> str:
    doc = {
        "schema": SCHEMA, "advisor": advisor.__version__, "summary": summary(verdicts),
        "verdicts": [_verdict_dict(v) for v in verdicts],
        "errors": [{"file": e.file, "line": e.line, "message": e.message} for e in errors],
    }
    return json.dumps(doc, indent=2) + "\n"


def sarif(verdicts: list[Verdict], errors: list[InputError]) -> str:
    rules = [{"id": code, "name": "".join(w.capitalize() for w in title.split()),
              "shortDescription": {"text": title}, "helpUri": f"{INFORMATION_URI}/blob/main/{DOCS}",
              "defaultConfiguration": {"level": "warning" if level == "disagree" else "note"}}
             for code, (level, title) in CODES.items()]
    results = []
    for v in verdicts:
        for d in v.differences:
            results.append({
                "ruleId": d.code, "ruleIndex": list(CODES).index(d.code),
                "level": "warning" if d.level == "disagree" else "note",
                "message": {"text": f"{v.name}: {d.title}: logged {d.logged}, predicted {d.predicted}"
                                    + "".join(f"; {w}" for w in d.why)},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": artifact_uri(v.file)},
                                                    "region": {"startLine": max(v.line, 1)}}}],
            })
    notes = [{"level": "error", "message": {"text": str(e)}} for e in errors]
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "advisor", "version": advisor.__version__, "informationUri": INFORMATION_URI,
                            "rules": rules}},
        "invocations": [{"executionSuccessful": not errors, "toolExecutionNotifications": notes}],
        "results": results,
    }]}
    return json.dumps(doc, indent=2) + "\n"


def page(verdicts: list[Verdict], errors: list[InputError]) -> str:
    s = summary(verdicts)
    rows = []
    for v in verdicts:
        state = "agree" if v.agrees else "disagree"
        diffs = "".join(f"<li><b>{d.code}</b> {_h(d.title)}: logged {_h(d.logged)}, predicted {_h(d.predicted)}"
                        + "".join(f"<br><small>{_h(w)}</small>" for w in d.why) + "</li>" for d in v.differences)
        rows.append(
            f'<tr class="{state}" data-state="{state}"><td>{_h(v.name)}</td><td>{_h(v.file)}:{v.line}</td>'
            f"<td>{_h(v.host)}, vSphere {_h(v.version)}</td><td>{_h(_layout(v.logged))}</td>"
            f"<td>{_h(_layout(v.predicted))}</td><td>{state}<ul>{diffs}</ul></td></tr>")
    errs = "".join(f"<li>{_h(e)}</li>" for e in errors)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<title>advisor verify</title><style>body{font-family:sans-serif;margin:1rem;overflow-wrap:anywhere}"
        "table{border-collapse:collapse;display:block;overflow-x:auto}td,th{border:1px solid #ccc;padding:.3rem;"
        "vertical-align:top}tr.disagree{background:#fde8e8}tr.agree{background:#e8f6ea}</style></head><body>"
        f"<h1>advisor verify</h1><p id=\"summary\">{s['vms']} VM(s): {s['agree']} agree, {s['disagree']} disagree, "
        f"{s['notes']} note(s)</p><table><thead><tr><th>VM</th><th>log</th><th>host</th><th>logged by ESXi</th>"
        f"<th>predicted by advisor</th><th>verdict</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        + (f"<h2>Not read</h2><ul id=\"errors\">{errs}</ul>" if errs else "")
        + "</body></html>\n"
    )


RENDERERS = {"text": text, "json": as_json, "sarif": sarif, "html": page}
