"""SARIF 2.1.0 report, for GitHub code scanning and other static-analysis dashboards.

One SARIF run: the driver lists every rule that was evaluated (so a dashboard can show a rule's
rationale and fix even for a run without findings), each finding is a result pointing at its
file and line, suppressed findings stay in the log with a `suppressions` entry (so dashboards
show them as dismissed rather than fixed), and input errors, notes and the rules that could not
be evaluated (one per rule and reason, with a count) become tool execution notifications of the
single invocation.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

import advisor
from advisor.output.escape import markdown as escape_markdown
from advisor.output.escape import terminal
from advisor.output.indented import dumps
from advisor.report.findings import Finding, Run
from advisor.vocab import BLOCKING

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/vsphere-advisor/advisor"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
# Suppressions in the spec file itself (or an inline comment) sit next to the code they excuse;
# configuration and baseline files are kept apart from it.
SUPPRESSION_KINDS = {"spec": "inSource", "inline": "inSource", "config": "external", "baseline": "external"}
_URL = re.compile(r"https?://[^\s<>\"]+")


def artifact_uri(path: str) -> str:
    """A path as given on the command line as a URI reference: relative stays relative.

    Backslashes become slashes and unsafe characters are percent-encoded, so a path with spaces
    or `#` still names the same file; an absolute path becomes a file:// URI as SARIF asks.
    """
    windows = PureWindowsPath(path)
    if windows.drive and windows.is_absolute():
        return windows.as_uri()
    posix = path.replace("\\", "/")
    if PurePosixPath(posix).is_absolute():
        return PurePosixPath(posix).as_uri()
    # A name's undecodable bytes (surrogate-escaped by os.fsdecode) are percent-encoded as the
    # bytes they are, so the URI names the very file.
    return quote(posix, safe="/-._~", errors="surrogateescape")


def pascal_case(name: str) -> str:
    """'unbalanced-vnuma-prefer-ht' -> 'UnbalancedVnumaPreferHt' (SARIF names are identifiers)."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", name) if part)


def _descriptor(rule_id: str, meta: dict[str, Any]) -> dict[str, Any]:
    # A user rule's texts come from outside: shown text escaped for a viewer, Markdown made inert
    # (advisor.output.escape) but for the references' URLs, which stay links.
    rationale = terminal(meta.get("rationale") or meta.get("summary") or rule_id)
    references = [terminal(r) for r in meta.get("references") or []]
    text = [rationale]
    markdown = [escape_markdown(rationale)]
    if meta.get("fix_text"):
        text.append(f"Fix: {terminal(meta['fix_text'])}")
        markdown.append(f"**Fix:** {escape_markdown(meta['fix_text'])}")
    if references:
        text.append("References:\n" + "\n".join(f"- {r}" for r in references))
        markdown.append("**References:**\n\n" + "\n".join(f"- {_markdown_reference(r)}" for r in references))
    descriptor: dict[str, Any] = {
        "id": rule_id,
        "name": pascal_case(meta.get("name") or rule_id),
        "shortDescription": {"text": terminal(meta.get("summary") or rule_id)},
        "fullDescription": {"text": rationale},
        "help": {"text": "\n\n".join(text), "markdown": "\n\n".join(markdown)},
        "defaultConfiguration": {"level": LEVELS.get(meta.get("severity", "warning"), "warning")},
        "properties": {"tags": _tags(rule_id, meta)},
    }
    # The rule's own page in the generated rules reference; else its first document.
    urls = [m.group(0) for r in references for m in [_URL.search(r)] if m]
    if meta.get("help_uri"):
        urls.insert(0, meta["help_uri"])
    if urls:
        descriptor["helpUri"] = urls[0]
    return descriptor


def _markdown_reference(reference: str) -> str:
    """A reference in Markdown: its text escaped, each http(s) URL in it an autolink."""
    out, last = [], 0
    for match in _URL.finditer(reference):
        out.append(escape_markdown(reference[last:match.start()]))
        out.append(f"<{match.group()}>")
        last = match.end()
    out.append(escape_markdown(reference[last:]))
    return "".join(out)


def _tags(rule_id: str, meta: dict[str, Any]) -> list[str]:
    """'vsphere', the rule family from its id prefix (NUMA001 -> numa), and its severity."""
    family = re.match(r"[A-Za-z]+", rule_id)
    tags = ["vsphere"]
    if family:
        tags.append(family.group(0).lower())
    tags.append(meta.get("severity", "warning"))
    return tags


def _location(uri: Callable[[str], str], file: str, line: int | None, column: int | None = None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri(file)}}
    if line is not None and line >= 1:
        physical["region"] = {"startLine": line}
        if column is not None and column >= 1:
            physical["region"]["startColumn"] = column
    return {"physicalLocation": physical}


def _fingerprint(f: Finding) -> str:
    """Stable across edits that only move lines, so a dashboard tracks the same finding."""
    key = "\0".join((f.rule, f.subject, f.file or ""))
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _result(f: Finding, index: int, uri: Callable[[str], str]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": f.rule,
        "ruleIndex": index,
        "level": LEVELS[f.severity],
        "message": {"text": terminal(f.message)},
    }
    if f.file:
        result["locations"] = [_location(uri, f.file, f.line, f.column)]
    result["partialFingerprints"] = {"advisorFinding/v1": _fingerprint(f)}
    if f.suppressed is not None:
        result["suppressions"] = [{
            "kind": SUPPRESSION_KINDS.get(f.suppressed.kind, "external"),
            "status": "accepted",
            "justification": terminal(f.suppressed.reason),
        }]
    result["properties"] = {"subject": f.subject, "fix": f.fix, "references": list(f.references),
                            # Whether advisor writes this fix (vmx, fix, emitters) or only shows it
                            # as a suggestion with its condition (advisor.engine.recommend).
                            "written": f.fix.get("kind", "apply") == "apply" and f.severity in BLOCKING}
    if f.fix.get("kind") == "suggest":
        result["properties"]["condition"] = f.fix.get("condition")
    return result


def document(run: Run) -> dict[str, Any]:
    rule_ids = list(run.rules)
    metadata = dict(run.rules)
    # A finding whose rule has no metadata (should not happen) still gets a descriptor, so that
    # every ruleIndex points at a rule.
    for f in run.findings:
        if f.rule not in metadata:
            metadata[f.rule] = {"name": f.name, "severity": f.severity, "summary": f.message,
                                "references": list(f.references)}
            rule_ids.append(f.rule)
    index = {rule_id: i for i, rule_id in enumerate(rule_ids)}
    # Each file's URI made once, however many results and notes point into it (for 10,000
    # templates, 17 locations per file: pathlib's parsing was a fifth of the report's time).
    uris: dict[str, str] = {}

    def uri(path: str) -> str:
        found = uris.get(path)
        if found is None:
            found = uris[path] = artifact_uri(path)
        return found

    notifications = [
        {
            "level": "error",
            "message": {"text": terminal((f"{e.field}: " if e.field else "") + e.message)},
            "locations": [_location(uri, e.file, e.line)],
        }
        for e in run.errors
    ] + [{"level": "note", "message": {"text": terminal(note)}} for note in run.all_notes()]
    notifications += _not_evaluated(run, index)
    invocation: dict[str, Any] = {"executionSuccessful": not run.errors}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "advisor",
                "version": advisor.__version__,
                "informationUri": INFORMATION_URI,
                "rules": [_descriptor(rule_id, metadata[rule_id]) for rule_id in rule_ids],
            }},
            "invocations": [invocation],
            "artifacts": [{"location": {"uri": uri(p)}, "roles": ["analysisTarget"]} for p in run.files],
            "results": [_result(f, index[f.rule], uri) for f in run.findings],
            "columnKind": "unicodeCodePoints",
            **_automation(run),
        }],
    }


def _not_evaluated(run: Run, index: dict[str, int]) -> list[dict[str, Any]]:
    """Rules the known facts could not settle (advisor.engine.undecided): one notification per
    rule and reason, with the number of VMs in its properties (the JSON report lists them per
    VM). One per VM and rule was 2,300 notifications, 45% of the log, for 109 templates."""
    from advisor.engine.undecided import skipped_rule

    counts: dict[tuple[str, str], int] = {}
    for kind, subjects in (("VM", run.vms), ("host", run.hosts)):
        for subject in subjects:
            for line in subject.skipped:
                counts[(kind, line)] = counts.get((kind, line), 0) + 1
    out = []
    for (kind, line), count in counts.items():
        rule = skipped_rule(line)
        notification: dict[str, Any] = {
            "level": "note",
            "message": {"text": terminal(f"not evaluated for {count} {kind}{'s' if count != 1 else ''}: {line}")},
            "properties": {"count": count},
        }
        if rule in index:
            notification["associatedRule"] = {"id": rule, "index": index[rule]}
        out.append(notification)
    return out


def _automation(run: Run) -> dict[str, Any]:
    """runAutomationDetails (SARIF 2.1.0 §3.17): `advisor/check/` or `advisor/lint/`. GitHub code
    scanning takes this id as the analysis category (it overrides upload-sarif's `category`), and
    refuses an upload holding two runs of one tool in one category, so the check and lint reports
    of one CI run must differ here. The trailing slash names a category without an instance."""
    if not run.command:
        return {}
    return {"automationDetails": {"id": f"advisor/{run.command}/"}}


def render(run: Run) -> str:
    return dumps(document(run), default=str) + "\n"
