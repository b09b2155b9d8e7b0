"""The JSON report: the whole Run as one document, described by schemas/report-v1.schema.json.

Keys appear in a fixed order (the order built here, never a dict's accidental order from a set)
so two runs over the same input produce byte-identical reports that diff cleanly in review:
one line per VM, finding and file.
The output is ASCII-only (non-ASCII characters are \\u-escaped) so it survives any console
encoding and any consumer that forgets to declare UTF-8.
"""

from __future__ import annotations

import json
from typing import Any

import advisor
from advisor.findings import JSON_SCHEMA_ID, Run


def document(run: Run) -> dict[str, Any]:
    """The report as plain data, for callers that want it without serialising."""
    counts = run.counts()
    return {
        "schema": JSON_SCHEMA_ID,
        "tool": {"name": "advisor", "version": advisor.__version__},
        "files": list(run.files),
        "hosts": [
            {
                "name": h.name,
                "file": h.file,
                "summary": h.summary,
                "capacity": h.capacity,
                "recommended_host": h.recommended_host,
                "node_load": list(h.node_load),
            }
            for h in run.hosts
        ],
        "vms": [
            {
                "name": v.name,
                "file": v.file,
                "host": v.host,
                "count": v.count,
                "line": v.line,
                "topology": v.topology,
                "recommended_vmx": v.recommended_vmx,
                "recommended_guest": v.recommended_guest,
                "skipped": list(v.skipped),
            }
            for v in run.vms
        ],
        "findings": [f.as_dict() for f in run.findings],
        "errors": [{"file": e.file, "line": e.line, "field": e.field, "message": e.message} for e in run.errors],
        "notes": list(run.notes),
        "summary": {
            "error": counts["error"],
            "warning": counts["warning"],
            "info": counts["info"],
            "suppressed": sum(1 for f in run.findings if f.suppressed is not None),
            "input_errors": len(run.errors),
        },
    }


# default=str: evidence values come from user rules' facts; an odd type (a date, a version)
# is reported as its text rather than aborting the whole report.
_ENCODE = json.JSONEncoder(ensure_ascii=True, default=str).encode


def render(run: Run) -> str:
    """The document with each top-level key on its own line and each VM, finding or file of
    its lists on one line: diffs and grep stay line-based, and json's C encoder writes every
    item (indent= would make it fall back to its pure-Python encoder, three times slower on a
    large estate)."""
    lines = ["{"]
    items = list(document(run).items())
    for index, (key, value) in enumerate(items):
        comma = "," if index < len(items) - 1 else ""
        if isinstance(value, list) and value:
            lines.append(f"  {_ENCODE(key)}: [")
            last = len(value) - 1
            lines.extend(f"    {_ENCODE(item)}{',' if i < last else ''}" for i, item in enumerate(value))
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {_ENCODE(key)}: {_ENCODE(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"
