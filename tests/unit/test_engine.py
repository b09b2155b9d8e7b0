"""The engine's combined evaluation: all of a VM's rules in one CEL call once a group of VMs is
common enough. It must be indistinguishable from evaluating the rules one by one."""

from __future__ import annotations

import glob
import json
from pathlib import Path

import pytest
from conftest import org_rule

from advisor.cost import decider
from advisor.engine import engine
from advisor.engine.catalog import load_catalog
from advisor.engine.engine import Policy
from advisor.engine.specs import check_files, evaluate_spec
from advisor.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(glob.glob(str(ROOT / "examples" / "*.yaml")))

SPEC = """\
host: hp-dl580-g7
vms:
"""


def _digest(run) -> list:
    assert not run.errors, run.errors
    findings = [(f.rule, f.subject, f.file, f.line, f.message, f.severity, json.dumps(f.fix, sort_keys=True))
                for f in run.findings]
    vms = [(v.name, v.file, tuple(v.skipped), tuple(sorted(v.recommended_vmx.items()))) for v in run.vms]
    return [findings, vms, list(run.evaluated_cases()), run.notes]


def _many_vms(tmp_path: Path) -> Path:
    """40 VMs in a few shapes and workloads, so that every group passes the batching threshold."""
    lines = [SPEC]
    shapes = [(8, "sql-server"), (16, "sql-server"), (64, "sql-server"), (12, "generic"), (4, "java"), (10, "vdi")]
    for i in range(40):
        vcpus, workload = shapes[i % len(shapes)]
        lines.append(f"  - {{name: vm{i:02d}, vcpus: {vcpus}, memory: {8 * vcpus}GB, workload: {workload}}}\n")
    spec = tmp_path / "many.yaml"
    spec.write_text("".join(lines))
    return spec




def test_groups_are_batched_after_the_threshold(tmp_path: Path) -> None:
    evaluator = engine.Evaluator(load_catalog([]), Policy())
    from advisor.load.specfile import load_spec

    evaluate_spec(load_spec(_many_vms(tmp_path)), evaluator)
    seen = {key[0]: group for key, group in evaluator._groups.items()}
    assert seen["sql-server"].seen >= decider._BATCH_AFTER and seen["sql-server"].batch  # compiled and used
    assert seen["java"].seen < decider._BATCH_AFTER and seen["java"].batch is None




def _user_catalog(tmp_path: Path, when: str):
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "org.yaml").write_text(org_rule(when))
    return load_catalog([folder])


def test_a_rule_failing_at_run_time_is_still_blamed_in_a_combined_program(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Division by zero on the 12-vCPU VMs only: the combined list fails, the engine falls back to
    one rule at a time and names the user's rule, as it would without combining."""
    catalog = _user_catalog(tmp_path, "100 / (vm.vcpus - 12) > 1")
    monkeypatch.setattr(decider, "_BATCH_AFTER", 1)
    with pytest.raises(InputError) as caught:
        check_files([str(_many_vms(tmp_path))], catalog, Policy())
    assert "ORG001" in caught.value.message and "the condition failed" in caught.value.message


def test_a_condition_with_a_line_comment_combines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = _user_catalog(tmp_path, "vm.vcpus > 60 // only the widest")
    monkeypatch.setattr(decider, "_BATCH_AFTER", 1)
    evaluator = engine.Evaluator(catalog, Policy())
    from advisor.load.specfile import load_spec

    evaluate_spec(load_spec(_many_vms(tmp_path)), evaluator)
    run = evaluator.finish()
    assert all(group.batch for group in evaluator._groups.values())
    wide = sorted(f.vm for f in run.findings if f.rule == "ORG001")
    assert wide == [f"vm{i:02d}" for i in range(2, 40, 6)]  # the 64-vCPU shape




@pytest.mark.self_compare
def test_lint_without_typed_recommendations_reports_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """lint's evaluator builds each VM's recommended .vmx keys without the typed recommendation
    (Evaluator typed=False): every result but that one field is what a typed evaluator gives, and
    the keys are those the typed recommendation writes."""
    from advisor.engine.lint import LintJob, lint_paths
    from advisor.model.recommendation import NO_RECOMMENDATION
    from advisor.vmx.recommendation import to_vmx

    templates = sorted(str(p) for p in (ROOT / "tests" / "fixtures" / "templates").rglob("*") if p.is_file())
    corpus = sorted(str(p) for p in (ROOT.parent / "shared" / "corpus" / "vmx").glob("*.vmx"))
    catalog = load_catalog([])
    for host in (None, "hp-dl580-g7"):
        job = LintJob(rule_dirs=[], policy=Policy(), host_ref=host, vsphere=None)
        runs = [lint_paths([*templates, *corpus], job, engine.Evaluator(catalog, job.policy, full_vmx=False,
                                                                        keep_recommendations=False, typed=typed))
                for typed in (True, False)]
        typed, untyped = runs
        assert typed.vms and any(v.recommended_vmx for v in typed.vms)
        for a, b in zip(typed.vms, untyped.vms, strict=True):
            assert b.recommendation == NO_RECOMMENDATION and a.recommendation != NO_RECOMMENDATION
            assert list(to_vmx(a.recommendation).items()) == list(b.recommended_vmx.items())
            a.recommendation = b.recommendation
        assert typed == untyped


def test_evaluating_some_vms_or_none_keeps_the_hosts_load_whole(tmp_path: Path) -> None:
    """Evaluator(vms=...) evaluates only the VMs named (or none), yet places every VM of the host:
    the host's findings are those of the whole evaluation, and a named VM's findings and
    recommendation are the same as when every VM is evaluated (advisor.rvtools.alternatives
    relies on both)."""
    from advisor.load.specfile import load_spec

    catalog = load_catalog()
    spec_path = tmp_path / "host.yaml"
    # Nine 8-vCPU VMs, one per name: the ninth overloads a node (the host finding of
    # examples/consolidation-9x8.yaml, which states them as one VM with `count: 9`).
    spec_path.write_text(SPEC + "".join(f"  - {{name: vm{i}, vcpus: 8, memory: 32GB, nics: [{{adapter: e1000}}]}}\n"
                                        for i in range(9)))

    def run_with(vms):
        evaluator = engine.Evaluator(catalog, Policy(), vms=vms)
        evaluate_spec(load_spec(str(spec_path)), evaluator)
        return evaluator.finish()

    whole = run_with(True)
    names = [v.name for v in whole.vms]
    assert len(names) > 2 and any(f.vm is None for f in whole.findings)
    host_findings = sorted((f.rule, f.message) for f in whole.findings if f.vm is None)
    none = run_with(False)
    assert none.vms == [] and sorted((f.rule, f.message) for f in none.findings) == host_findings
    one = run_with(frozenset(names[1:2]))
    assert [v.name for v in one.vms] == names[1:2]
    assert sorted((f.rule, f.message) for f in one.findings if f.vm is None) == host_findings
    assert ([(f.rule, f.message) for f in one.findings if f.vm == names[1]]
            == [(f.rule, f.message) for f in whole.findings if f.vm == names[1]])
    assert one.vms[0].recommended_vmx == whole.vms[1].recommended_vmx
