"""Every rule's own examples: each failing example fires it, each passing one does not.

The examples live beside the rule in rules/*.yaml, so a rule cannot be added without proof
that it triggers and that it stays quiet on the corrected configuration.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from advisor.engine.catalog import SEEDS, builtin_catalog
from advisor.engine.specs import run_example

CATALOG = builtin_catalog()
CASES = [
    pytest.param(rule, verdict, index, example, id=f"{rule.id}-{verdict}{index}")
    for rule in CATALOG.rules
    for verdict, examples in rule.examples.items()
    for index, example in enumerate(examples)
]


@pytest.mark.parametrize(("rule", "verdict", "index", "example"), CASES)
def test_rule_example(rule, verdict, index, example):
    run = run_example(CATALOG, rule, example, f"{rule.id}.{verdict}[{index}]")
    assert not run.errors, run.errors
    fired = [f for f in run.findings if f.rule == rule.id]
    if verdict == "fail":
        skipped = [s for vm in run.vms for s in vm.skipped]
        assert fired, f"{rule.id} did not fire on its failing example {index} (skipped: {skipped})"
        for finding in fired:
            assert "unknown" not in finding.message, finding.message
            assert finding.line, "a finding must point at a line of the input"
    else:
        assert not fired, f"{rule.id} fired on its passing example {index}: {fired[0].message}"


def test_catalog_is_not_empty():
    assert len(CATALOG.rules) >= 40


@pytest.mark.parametrize("rule", CATALOG.rules, ids=lambda r: r.id)
def test_rule_is_documented(rule):
    d = rule.d
    assert d.references and d.rationale.strip() and d.fix.text.strip()
    assert d.examples.fail and d.examples.pass_
    # A fix is something to type: a .vmx key, a guest or host setting, or a resize.
    assert d.fix.vmx or d.fix.guest or d.fix.host or d.fix.resize or len(d.fix.text) > 20


@pytest.mark.parametrize("rule", CATALOG.rules, ids=lambda r: r.id)
def test_seed_sections_exist(rule, shared_dir):
    for ref in rule.d.references:
        if ref.seed:
            assert ref.seed in SEEDS
            text = (shared_dir / "seeds" / ref.seed).read_text(encoding="utf-8", errors="replace")
            squashed = re.sub(r"\s+", " ", text).lower()
            assert re.sub(r"\s+", " ", ref.section).lower() in squashed, (
                f"{rule.id}: section {ref.section!r} not in {ref.seed}"
            )


def test_rule_ids_are_stable_format():
    for rule in CATALOG.rules:
        assert re.fullmatch(r"[A-Z]+[0-9]{3}", rule.id)


def test_rules_reference_page_is_current():
    """docs/rules.md is generated from the catalog; regenerate with
    `advisor rules --format markdown > docs/rules.md`."""
    from conftest import REPO

    from advisor.engine.ruledocs import catalog_markdown

    page = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert page == catalog_markdown(CATALOG), "docs/rules.md is stale: advisor rules --format markdown > docs/rules.md"


def test_user_rule_with_duplicate_id_is_refused(tmp_path):
    from advisor.engine.catalog import load_catalog
    from advisor.errors import InputError

    rule = (CATALOG.rules[0].file)
    text = Path(rule).read_text(encoding="utf-8")
    (tmp_path / "dup.yaml").write_text(text)
    with pytest.raises(InputError, match="already defined"):
        load_catalog([tmp_path])


def test_shipped_rule_files_pass_full_validation():
    """At run time the built-in catalog skips validators; here every file is validated."""
    from advisor.engine.catalog import load_rule_file, rule_files
    from advisor.resources import data_path

    for path in rule_files(data_path("rules")):
        validated = load_rule_file(path, builtin=True, validate=True)
        trusted = load_rule_file(path, builtin=True, validate=False)
        assert [r.d for r in validated] == [r.d for r in trusted], path.name


# --- references a reader can follow (issue 17) --------------------------------------------------

@pytest.mark.parametrize("rule", CATALOG.rules, ids=lambda r: r.id)
def test_every_reference_names_a_document_and_a_followable_url(rule):
    """Every reference shows a document title and an http(s) address: an external document its
    own, a seed paper section the published paper or VROOM! post it is (rules/references)."""
    from advisor.engine.references import FOLLOWABLE

    for ref in rule.d.references:
        title, url = ref.document()
        assert title and not title.endswith(".txt"), f"{rule.id}: {ref} has no document title"
        assert url and FOLLOWABLE.match(url), f"{rule.id}: {title!r} has no followable URL ({url!r})"


def test_every_seed_paper_resolves_to_a_published_document():
    from advisor.engine.references import seed_document

    for seed in SEEDS:
        found = seed_document(seed, None)
        assert found and found[1].startswith("https://"), seed


def test_a_reference_without_a_followable_url_is_refused():
    from advisor.engine.catalog import Reference

    with pytest.raises(ValueError, match="followable"):
        Reference.model_validate({"doc": "Some KB", "url": "kb 12345"})


@pytest.mark.parametrize("rule", CATALOG.rules, ids=lambda r: r.id)
def test_every_rule_has_a_help_page_anchor_in_the_rules_reference(rule):
    """SARIF helpUri points at the rule's heading in docs/rules.md, which is generated from the catalog."""
    from conftest import REPO

    from advisor.engine.references import DOCS_URL, anchor

    uri = rule.metadata()["help_uri"]
    assert uri == f"{DOCS_URL}#{anchor(rule.id, rule.d.name)}"
    page = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert f"## {rule.id} {rule.d.name}\n" in page
