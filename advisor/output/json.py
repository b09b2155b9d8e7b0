"""The JSON report: the whole Run as one document, described by schemas/report-v1.schema.json.

Keys appear in a fixed order (the order built here, never a dict's accidental order from a set)
so two runs over the same input produce byte-identical reports that diff cleanly in review:
one line per VM, finding and file.
The output is ASCII-only (non-ASCII characters are \\u-escaped) so it survives any console
encoding and any consumer that forgets to declare UTF-8.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import advisor
from advisor.report.findings import JSON_SCHEMA_ID, Finding, HostResult, InputProblem, Run, VmResult


def document(run: Run) -> dict[str, Any]:
    """The report as plain data, for callers that want it without serialising."""
    return {key: [shape(item) for item in value] if shape else value for key, value, shape in _sections(run)}


def _sections(run: Run) -> list[tuple[str, Any, Callable[[Any], Any] | None]]:
    """The top-level keys in order, each with its value; a long list comes with the function
    that shapes each item, so the report can be written item by item."""
    counts = run.counts()
    return [
        ("schema", JSON_SCHEMA_ID, None),
        ("tool", {"name": "advisor", "version": advisor.__version__}, None),
        ("files", run.files, str),
        ("hosts", run.hosts, _host),
        ("vms", run.vms, _vm),
        ("findings", run.findings, Finding.as_dict),
        ("errors", run.errors, _error),
        ("notes", run.all_notes(), str),
        ("summary", {
            "error": counts["error"],
            "warning": counts["warning"],
            "info": counts["info"],
            "suppressed": sum(1 for f in run.findings if f.suppressed is not None),
            "input_errors": len(run.errors),
        }, None),
    ]


def _host(h: HostResult) -> dict[str, Any]:
    return {
        "name": h.name,
        "file": h.file,
        "summary": h.summary,
        "capacity": h.capacity,
        "recommended_host": h.recommended_host,
        "node_load": list(h.node_load),
        "skipped": list(h.skipped),
    }


def _vm(v: VmResult) -> dict[str, Any]:
    return {
        "name": v.name,
        "file": v.file,
        "host": v.host,
        "count": v.count,
        "line": v.line,
        "topology": v.topology,
        "recommended_vmx": v.recommended_vmx,
        "recommended_guest": v.recommended_guest,
        "suggested_vmx": v.suggested_vmx,
        "skipped": list(v.skipped),
    }


def _error(e: InputProblem) -> dict[str, Any]:
    return {"file": e.file, "line": e.line, "field": e.field, "message": e.message}


# default=str: evidence values come from user rules' facts; an odd type (a date, a version)
# is reported as its text rather than aborting the whole report.
_ENCODE = json.JSONEncoder(ensure_ascii=True, default=str).encode


def render(run: Run) -> str:
    return "".join(render_pieces(run))


def _item_encoder() -> Callable[[Any], str]:
    """_ENCODE for the items of one report: json's C encoder, made with _ENCODE's settings once
    per report rather than once per item as JSONEncoder.encode makes it (a sixth of a VM line's
    time; for 10,000 templates about 14 ms of the report). Each item encoded whole leaves its
    circular-reference markers empty again; one that fails ends the report."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # an interpreter without json's C accelerator
        return _ENCODE
    encoder = make({}, str, json.encoder.encode_basestring_ascii, None, ": ", ", ", False, False, True)
    return lambda item: "".join(encoder(item, 0))


def _shaped(shape: Callable[[Any], Any], encode: Callable[[Any], str]) -> Callable[[Any], str]:
    return lambda item: encode(shape(item))


def _vm_lines(encode: Callable[[Any], str]) -> Callable[[VmResult], str]:
    """A VM's line as _ENCODE(_vm(v)) writes it, with its "not evaluated" lines encoded once per
    distinct list: the VMs a group of rules could not settle share one tuple of them (three
    kilobytes a VM without a host), almost half of a large lint report's encoding time. The
    memo lives for one report."""
    encoded: dict[tuple[str, ...], str] = {}

    def line(v: VmResult) -> str:
        shaped = _vm(v)
        del shaped["skipped"]  # the last key: written after the others, as json.dumps would
        skipped = encoded.get(v.skipped)
        if skipped is None:
            skipped = encoded[v.skipped] = encode(list(v.skipped))
        return f'{encode(shaped)[:-1]}, "skipped": {skipped}}}'

    return line


def render_pieces(run: Run) -> Iterator[str]:
    """The document line by line: each top-level key on its own line and each VM, finding or
    file of its lists on one line, so diffs and grep stay line-based. Each item is shaped and
    encoded as it is written (a report of ten thousand templates is never held whole), by
    json's C encoder (indent= would make it fall back to its pure-Python encoder, three times
    slower on a large estate)."""
    yield "{\n"
    sections = _sections(run)
    encode_item = _item_encoder()
    for index, (key, value, shape) in enumerate(sections):
        comma = "," if index < len(sections) - 1 else ""
        if shape and value:
            yield f"  {_ENCODE(key)}: [\n"
            last = len(value) - 1
            encode = _vm_lines(encode_item) if shape is _vm else _shaped(shape, encode_item)
            for i, item in enumerate(value):
                yield f"    {encode(item)}{',' if i < last else ''}\n"
            yield f"  ]{comma}\n"
        else:
            yield f"  {_ENCODE(key)}: {_ENCODE([] if shape else value)}{comma}\n"
    yield "}\n"
