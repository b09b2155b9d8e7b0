"""Issue 34's limits, on the third-party templates of ../shared/corpus (read in place), with
and without a host: the text report holds at most three lines per finding plus ten of summary;
Markdown stays under GitHub's comment limit; `github` annotates the findings and adds at most
three lines; JUnit skips exactly the rule × VM pairs the JSON report lists as not evaluated;
SARIF condenses them to one notification per rule and reason and still validates; no report
names a seed paper by its file name."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import REPO, require_shared

SEED_FILE = re.compile(r"\d{3}_[0-9a-f]{16}\.txt")
OUTPUTS = {"json": "r.json", "markdown": "r.md", "github": "r.github", "junit": "r.xml", "sarif": "r.sarif"}


@pytest.fixture(scope="module", params=[None, "hp-dl580-g7"], ids=["no-host", "host"])
def reports(request, corpus: Path, tmp_path_factory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("reports")
    argv = [sys.executable, "-m", "advisor", "lint", str(corpus), "--fail-on", "never"]
    if request.param:
        argv += ["--host", request.param]
    for fmt, name in OUTPUTS.items():
        argv += ["--format", fmt, "-o", str(out / name)]
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "GITHUB_STEP_SUMMARY", "FORCE_COLOR")}
    result = subprocess.run([*argv, "--format", "text"], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    texts = {fmt: (out / name).read_text(encoding="utf-8") for fmt, name in OUTPUTS.items()}
    return {"text": result.stdout, **texts}


@pytest.fixture(scope="module")
def corpus() -> Path:
    return require_shared("corpus")  # skipped without it, failed under CI=true


def _shown(reports: dict[str, str]) -> list[dict]:
    return [f for f in json.loads(reports["json"])["findings"] if f["suppressed"] is None]


def test_text_is_three_lines_a_finding_and_ten_of_summary(reports):
    shown = _shown(reports)
    lines = reports["text"].splitlines()
    assert len(shown) > 50  # the corpus has findings to show
    assert len(lines) <= 3 * len(shown) + 10, len(lines)
    starts = [line for line in lines if re.match(r"\S.*:\d+(:\d+)?  [A-Z]+\d+ +(error|warning|info) ", line)]
    assert len(starts) == len(shown)


def test_markdown_fits_a_pull_request_comment(reports):
    assert len(reports["markdown"]) <= 60_000
    assert "no host given" not in reports["markdown"]


def test_github_annotates_findings_and_sums_up_in_three_lines(reports):
    doc = json.loads(reports["json"])
    lines = reports["github"].splitlines()
    annotations = [line for line in lines if line.startswith("::")]
    assert len(annotations) == len(_shown(reports)) + len(doc["errors"])
    assert len(lines) - len(annotations) <= 3


def test_junit_skips_exactly_the_pairs_not_evaluated(reports):
    doc = json.loads(reports["json"])
    pairs = sum(len(s.get("skipped", [])) for s in (*doc["vms"], *doc["hosts"]))
    suppressed = sum(1 for f in doc["findings"] if f["suppressed"] is not None)
    root = ET.fromstring(reports["junit"])
    assert pairs > 0 and suppressed == 0
    assert int(root.get("skipped")) == pairs
    reasons = [s.get("message") for s in root.iter("skipped")]
    assert all(reason.startswith("not evaluated: ") and " needs " in reason for reason in reasons)


def test_sarif_condenses_what_was_not_evaluated_and_validates(reports):
    import jsonschema

    doc = json.loads(reports["json"])
    sarif = json.loads(reports["sarif"])
    schema = json.loads((REPO / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(sarif)
    notes = [n for n in sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
             if n["message"]["text"].startswith("not evaluated for ")]
    subjects = [("VM", vm) for vm in doc["vms"]] + [("host", h) for h in doc["hosts"]]
    distinct = {(kind, line) for kind, s in subjects for line in s.get("skipped", [])}
    assert len(notes) == len(distinct)
    assert sum(n["properties"]["count"] for n in notes) == sum(len(s.get("skipped", [])) for _, s in subjects)
    assert all(n["associatedRule"]["id"] == n["message"]["text"].split(": ", 1)[1].split()[0] for n in notes)


def test_no_report_names_a_seed_file(reports):
    for fmt, text in reports.items():
        assert not SEED_FILE.search(text), fmt


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github", "markdown", "html"])
def test_check_reports_name_no_seed_file_and_explain_keeps_the_public_copy(fmt):
    """Every format of `check` on the bundled examples; `advisor explain` (with docs/rules.md)
    is where a paper's public copy is listed, and it names no seed file either."""
    from advisor.engine.catalog import load_catalog
    from advisor.engine.engine import Policy
    from advisor.engine.specs import check_files
    from advisor.output import Display, render

    examples = sorted(str(p) for p in (REPO / "examples").glob("*.yaml"))
    run = check_files(examples, load_catalog(), Policy())
    assert not SEED_FILE.search(render(fmt, run, display=Display(verbose=True)))
    if fmt == "text":
        from advisor.engine.ruledocs import explain_text

        numa = load_catalog().by_id("NUMA001")
        explained = explain_text(numa)
        assert "(public copy: <https://" in explained and not SEED_FILE.search(explained)
        assert "public copy" not in render(fmt, run, display=Display(sources=True))
