"""The cost layer (advisor.cost): each saving, made to act from the first VM, reports exactly what a
run without it reports, and does save what it is for (counted: CEL calls, packed programs).

One test per saving replaces the pairwise comparisons each saving used to carry in its own file;
the savings' own mechanics (keys, bounds, rewrites) keep their unit tests (test_decisions.py,
test_packed.py, test_cache.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_engine import EXAMPLES, ROOT, _many_vms

from advisor.cost import SAVINGS, decider, off
from advisor.cost import memo as memos
from advisor.engine.catalog import load_catalog
from advisor.engine.engine import Evaluator, Policy
from advisor.engine.lint import LintJob, lint_paths
from advisor.engine.specs import check_files
from advisor.report.findings import Run

TEMPLATES = ROOT / "tests" / "fixtures" / "templates"


def _templates(tmp_path: Path) -> list[Path]:
    """Every fixture template, and one SQL template in five sizes twice over: groups of
    VMs with the same unknown facts and different values (lint without a host)."""
    sql = (TEMPLATES / "vmx" / "sql-template.vmx").read_text()
    sized = []
    for vcpus, memory in [(16, 131072), (1, 1024), (64, 262144), (3, 3000), (128, 2048)] * 2:
        path = tmp_path / f"sql-{len(sized)}.vmx"
        path.write_text(sql.replace('numvcpus = "16"', f'numvcpus = "{vcpus}"')
                        .replace('memSize = "131072"', f'memSize = "{memory}"'))
        sized.append(path)
    return [*sorted(p for p in TEMPLATES.rglob("*") if p.is_file() and p.suffix in (".vmx", ".ovf", ".tf")), *sized]


def _digest(run: Run) -> list[object]:
    findings = [(f.rule, f.subject, f.file, f.line, f.message, f.severity, json.dumps(f.fix, sort_keys=True))
                for f in run.findings]
    vms = [(v.name, v.file, tuple(v.skipped), tuple(sorted(v.recommended_vmx.items()))) for v in run.vms]
    return [findings, vms, list(run.evaluated_cases()), run.notes, run.errors]


def _runs(specs: list[str], templates: list[Path]) -> list[object]:
    catalog = load_catalog([])
    lint = [lint_paths(templates, LintJob(rule_dirs=[], policy=Policy(), host_ref=host, vsphere=None),
                       Evaluator(catalog, Policy(), full_vmx=False, keep_recommendations=False, typed=False))
            for host in (None, "hp-dl580-g7")]
    return [_digest(check_files(specs, catalog, Policy())), *map(_digest, lint)]


@pytest.mark.self_compare
@pytest.mark.parametrize("saving", ["batch", "packed", "memo", "shapes", "freeze"])
def test_a_run_without_a_saving_reports_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 saving: str) -> None:
    calls = {"n": 0}
    decide = memos.decide

    def counted(*args: object) -> object:  # every CEL call of a single rule goes through it
        calls["n"] += 1
        return decide(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(memos, "decide", counted)
    packed = []
    combined = decider.Decider._combined

    def counted_combined(group: object, pack: bool) -> object:
        program = combined(group, pack)  # type: ignore[arg-type]
        packed.append(bool(program and program.layout))
        return program

    monkeypatch.setattr(decider.Decider, "_combined", staticmethod(counted_combined))
    # Every saving acts as early as it can: batched and packed from a group's first VMs, every
    # rule's decisions remembered from its first call.
    monkeypatch.setattr(decider, "_BATCH_AFTER", 1)
    monkeypatch.setattr(decider, "_PACK_AFTER", 2)
    monkeypatch.setattr(memos, "MEMO_AFTER", 1)
    monkeypatch.setattr(memos, "MEMO_AFTER_HELD", 1)
    specs, templates = [*EXAMPLES, str(_many_vms(tmp_path))], _templates(tmp_path)
    monkeypatch.delenv("ADVISOR_SAVINGS_OFF", raising=False)
    with_it, calls_with, packed_with = _runs(specs, templates), calls["n"], sum(packed)
    calls["n"], packed[:] = 0, []
    monkeypatch.setenv("ADVISOR_SAVINGS_OFF", saving)
    assert off(saving) and saving in SAVINGS
    without = _runs(specs, templates)
    assert without == with_it
    assert with_it[0][0] and with_it[1][1] and any(vm[2] for vm in with_it[1][1]), \
        "findings and rules left undecided (lint without a host), or the comparison proves little"
    if saving in ("batch", "memo"):  # fewer calls of single rules: the combined program or the memo answered
        assert calls_with < calls["n"]
    if saving == "packed":
        assert packed_with and not sum(packed)
