"""What a lint worker sends back: every result, rebuilt field by field in the parent."""

from __future__ import annotations

import gc
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

import pytest

from advisor.cost.workers import _chunks, _start_worker
from advisor.engine.engine import Policy
from advisor.engine.lint import LintJob, _lint_chunk, lint_paths
from advisor.model.recommendation import RecommendedVM, ScsiController
from advisor.report.findings import Finding, InputProblem, Suppressed

TEMPLATES = Path(__file__).resolve().parents[1] / "fixtures" / "templates"


@pytest.mark.self_compare
def test_a_workers_results_round_trip_field_by_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bad.vmx").write_bytes(b"\x00binary")
    files = [*sorted(p for p in TEMPLATES.rglob("*") if p.is_file()), tmp_path / "bad.vmx"]
    job = LintJob(rule_dirs=[], policy=Policy(), host_ref="hp-dl580-g7", vsphere=None)
    run = lint_paths(files, job)
    run.findings[0].suppressed = Suppressed("inline", "why", None, "a.vmx", 3)
    enabled = gc.isenabled()
    try:
        _start_worker(job, _lint_chunk)
    finally:
        (gc.enable if enabled else gc.disable)()
    assert run.findings and run.vms and run.errors and any(v.recommended_vmx for v in run.vms)
    # lint's results hold only the recommendation's .vmx keys (Evaluator typed=False): a typed one,
    # as other callers of the workers' classes hold, travels field by field too.
    run.vms[0].recommendation = RecommendedVM(name="web", vcpus=4, controllers=(ScsiController(0, "pvscsi"),),
                                              advanced={"a.b": "c"}, order=("numvcpus", "a.b"))
    def slow(_self: object) -> None:
        raise AssertionError("pickled through the dataclass's __getstate__")

    monkeypatch.setattr(Finding, "__getstate__", slow)
    back = ForkingPickler.loads(ForkingPickler.dumps(run))
    assert back == run
    assert isinstance(back.findings[0], Finding) and isinstance(back.errors[0], InputProblem)
    assert [type(v.recommendation) for v in back.vms] == [type(v.recommendation) for v in run.vms]


@pytest.mark.parametrize("count", [1, 19, 64, 1000, 10_000])
def test_chunks_keep_every_file_in_order_and_shrink_towards_the_end(count: int) -> None:
    files = [f"f{i}.vmx" for i in range(count)]
    chunks = _chunks(files, 2)
    assert [f for chunk in chunks for f in chunk] == files
    sizes = [len(c) for c in chunks]
    assert all(0 < n <= 500 for n in sizes) and sizes == sorted(sizes, reverse=True)
    assert sizes[-1] <= 20
