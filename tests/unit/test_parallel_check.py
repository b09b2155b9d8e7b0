"""`advisor check` split across worker processes (advisor.engine.parallel) gives the output of one
process, byte for byte: every example, a generated estate above the threshold, exemptions and
their notes across slices, errors raised in a worker, and no worker outliving the command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import org_rule

from advisor.engine import parallel
from advisor.engine.catalog import load_catalog
from advisor.engine.engine import Policy
from advisor.engine.specs import check_files
from advisor.output import json as json_out

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="workers are forked; elsewhere check is serial")

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(str(p) for p in (REPO / "examples").glob("*.yaml"))
BENCHMARKS = REPO / "benchmarks"


def _estate(tmp_path: Path, vms: int) -> Path:
    """The benchmarks' seeded estate (benchmarks/generate.py): varied shapes, memory and workloads."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import generate
    finally:
        sys.path.remove(str(BENCHMARKS))
    return generate.make_engine_spec(tmp_path / f"estate-{vms}.yaml", vms)


def _json(files: list[str], jobs: int | None, policy: Policy | None = None) -> str:
    return json_out.render(check_files(files, load_catalog([]), policy or Policy(), jobs=jobs))


def test_slices_are_contiguous_and_cover_every_vm() -> None:
    assert parallel.slices(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert parallel.slices(2, 2) == [(0, 1), (1, 2)]
    assert parallel.splitter(None, parallel.PARALLEL_THRESHOLD - 1) is None  # small specs stay in one process
    assert parallel.splitter(1, 10 * parallel.PARALLEL_THRESHOLD) is None
    assert parallel.splitter(4, 1) is None  # one VM: nothing to split


def test_every_example_is_the_same_in_workers(tmp_path: Path) -> None:
    """Each example's VMs four times over (the examples hold one or two VMs each), so that every
    example's host, rules and recommendations are evaluated in three slices."""
    import yaml

    for example in EXAMPLES:
        root = yaml.safe_load(Path(example).read_text())
        root["vms"] = [dict(vm, name=f"{vm['name']}-{i}") for i in range(4) for vm in root["vms"]]
        spec = tmp_path / Path(example).name
        spec.write_text(yaml.safe_dump(root, sort_keys=False))
        assert _json([str(spec)], 1) == _json([str(spec)], 3), example


def test_an_estate_above_the_threshold_is_the_same_in_workers(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Default jobs above the threshold (lowered here, so the test stays small), several
    messages per worker, and more slices than cores."""
    spec = str(_estate(tmp_path, 150))
    serial = _json([spec], 1)
    monkeypatch.setattr(parallel, "PARALLEL_THRESHOLD", 100)
    monkeypatch.setattr(parallel, "CHUNK", 16)
    monkeypatch.setattr(parallel, "default_jobs", lambda: 2)
    assert parallel.splitter(None, 150) is not None
    assert _json([spec], None) == serial
    assert _json([spec], 5) == serial
    doc = json.loads(serial)
    assert len(doc["vms"]) == 150 and doc["findings"] and any(v["skipped"] for v in doc["vms"])


EXEMPT_SPEC = """\
host: hp-dl580-g7
vsphere: "7.0"
vms:
"""


def _exempt_spec(tmp_path: Path) -> Path:
    """VMs of one shape whose exemptions (spec `ignore:`) sit in different slices: used,
    unused, and expired."""
    lines = [EXEMPT_SPEC]
    for i in range(12):
        ignore = ""
        if i == 7:
            ignore = ", ignore: [{rule: NET001, reason: measured}, {rule: NUMA002, reason: never fires}]"
        if i == 10:
            ignore = ", ignore: [{rule: NET001, reason: old, until: 2020-01-01}]"
        lines.append(f"  - {{name: vm{i:02d}, vcpus: 12, memory: 64GB, nics: [{{adapter: e1000}}]{ignore}}}\n")
    spec = tmp_path / "exempt.yaml"
    spec.write_text("".join(lines))
    return spec


def test_exemptions_and_their_notes_across_slices(cli, tmp_path: Path) -> None:
    _exempt_spec(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".advisor.yaml").write_text(
        "exemptions:\n"
        "  - {rule: NET001, reason: lab hosts, vms: [vm09]}\n"  # used in the last slice only
        "  - {rule: NUMA002, reason: never fires here}\n")
    serial = cli("check", tmp_path / "exempt.yaml", "--format", "json", "--jobs", "1")
    doc = json.loads(serial.out)
    suppressed = {f["vm"]: f["suppressed"]["kind"] for f in doc["findings"] if f["suppressed"]}
    assert suppressed == {"vm07": "spec", "vm09": "config"}, suppressed
    notes = "\n".join(doc["notes"])
    assert "NUMA002" in notes and "vm vm07" in notes and "expired" in notes and "NUMA002: unused exemption" in notes
    assert "lab hosts" not in notes  # used by vm09, in the worker evaluating the last slice
    for jobs in ("2", "3", "5"):
        parallel_run = cli("check", tmp_path / "exempt.yaml", "--format", "json", "--jobs", jobs)
        assert (parallel_run.code, parallel_run.out, parallel_run.err) == (serial.code, serial.out, serial.err)


def test_an_input_error_in_a_worker_is_the_serial_one_line(cli, tmp_path: Path) -> None:
    """A user's rule fails at run time on the last VMs only (division by zero at 12 vCPUs)."""
    rules = tmp_path / "policies"
    rules.mkdir()
    (rules / "org.yaml").write_text(org_rule("100 / (vm.vcpus - 12) > 1"))
    lines = [EXEMPT_SPEC] + [f"  - {{name: vm{i:02d}, vcpus: {12 if i >= 10 else 4}, memory: 16GB}}\n"
                             for i in range(12)]
    (tmp_path / "spec.yaml").write_text("".join(lines))
    serial = cli("check", tmp_path / "spec.yaml", "--rules", rules, "--jobs", "1")
    assert serial.code == 2 and "ORG001" in serial.err and "the condition failed" in serial.err
    assert len(serial.err.strip().splitlines()) == 1
    for jobs in ("2", "4"):
        result = cli("check", tmp_path / "spec.yaml", "--rules", rules, "--jobs", jobs)
        assert (result.code, result.out, result.err) == (serial.code, serial.out, serial.err)


def _die(*_args: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_that_dies_is_one_line_and_no_half_report(cli, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    spec = str(_exempt_spec(tmp_path))
    monkeypatch.setattr(parallel, "_work", _die)  # what the forked worker runs: killed at once
    with pytest.raises(parallel.WorkerLost, match="ended \\(signal 9\\)"):
        check_files([spec], load_catalog([]), Policy(), jobs=2)
    result = cli("check", spec, "--jobs", "2", "--format", "json")
    assert result.code == 3 and result.out == ""
    assert len(result.err.strip().splitlines()) == 1 and "WorkerLost" in result.err and "--jobs 1" in result.err


# A check whose every VM's turn sleeps: the command is in its second pass, workers running, when
# it is interrupted or killed.
_STALLED = """\
import sys, time
from advisor.engine.engine import Evaluator
Evaluator.evaluate_placed = lambda *args, **kwargs: time.sleep(600)
sys.argv = ["advisor", "check", "--jobs", "3", *sys.argv[1:]]
from advisor.cli import main
main()
"""


def _workers_of(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["ctrl-c", "kill"])
def test_no_worker_outlives_the_command(how: str, tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _STALLED, str(_exempt_spec(tmp_path))], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, text=True)
    workers: list[int] = []
    try:
        for _ in range(1200):  # a hang guard, not a timing: the workers start once the spec is placed
            workers = _workers_of(proc.pid)
            if len(workers) == 2:
                break
            time.sleep(0.05)
        assert len(workers) == 2, "the check never reached its workers"
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends: the whole group
            _, err = proc.communicate(timeout=120)
            # As an interrupted serial check ends (click turns the interrupt into "Aborted!").
            assert proc.returncode == 1 and err.strip() == "Aborted!", err
        else:
            proc.kill()  # no chance to clean up: the kernel ends the workers (PR_SET_PDEATHSIG)
            proc.communicate(timeout=120)
        for _ in range(1200):
            if not any(_alive(w) for w in workers):
                break
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()



def test_a_vms_facts_do_not_depend_on_the_vms_before_it(tmp_path: Path) -> None:
    """The shared topology cache gives each VM the facts it has alone: a slice evaluated in a
    worker starts from another cache than one process does, so a fact taken from whichever VM
    of the shape came first (topo.prefer_ht_memory_fits did) differs between the two."""
    from advisor.facts.facts import facts_for
    from advisor.load.specfile import load_spec

    loaded = load_spec(_estate(tmp_path, 300))
    assert loaded.host is not None and loaded.version is not None
    cache: dict = {}
    for vm in loaded.spec.vms:
        shared, _ = facts_for(loaded.host, vm, loaded.version, frozenset(), cache, loaded.cluster)
        alone, _ = facts_for(loaded.host, vm, loaded.version, frozenset(), None, loaded.cluster)
        assert shared == alone, vm.name


def test_check_stays_in_one_process_unless_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli) -> None:
    """Workers trade memory for speed (docs/benchmarks.md), so `check` forks only on --jobs: a
    spec above the threshold is evaluated here without it, and split with it."""
    spec = _estate(tmp_path, 150)
    monkeypatch.setattr(parallel, "PARALLEL_THRESHOLD", 100)
    monkeypatch.setattr(parallel, "default_jobs", lambda: 4)
    split: list[int] = []
    real = parallel.evaluate_in_slices

    def counted(evaluator, subjects, placed, release, count):
        split.append(count)
        return real(evaluator, subjects, placed, release, count)

    monkeypatch.setattr(parallel, "evaluate_in_slices", counted)
    assert cli("check", spec, "--format", "json").code in (0, 1)
    assert split == []
    assert cli("check", spec, "--format", "json", "--jobs", "2").code in (0, 1)
    assert split == [2]
