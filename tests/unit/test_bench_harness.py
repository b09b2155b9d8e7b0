"""The benchmark harness (benchmarks/harness.py) pairs each case with its baseline: both run in
turns and every pair gives one ratio. Nothing is timed here; the order and the arithmetic are."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def harness():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import harness as module
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def test_case_and_baseline_run_in_turns(harness, tmp_path: Path) -> None:
    """Warm-ups first, then pairs whose order alternates (base first, then case first, ...), so
    a change in the machine's load hits both alike; each pair gives one ratio."""
    log = tmp_path / "order.log"

    def command(name: str) -> list[str]:
        return [sys.executable, "-c", f"open({str(log)!r}, 'a').write({name!r})"]

    pair = harness.measure_pair("case", command("C"), "base", command("B"), repeats=4, budget_s=1e9)
    assert pair.ok, (pair.case.error, pair.base.error)
    assert log.read_text() == "BC" + "BC" + "CB" + "BC" + "CB"
    assert len(pair.ratios) == len(pair.case.runs_s) == len(pair.base.runs_s) == 4
    assert pair.ratios == [c / b for c, b in zip(pair.case.runs_s, pair.base.runs_s, strict=True)]
    low, q1, q3, high = pair.spread()
    assert low <= q1 <= q3 <= high and low <= pair.ratio <= high
    assert pair.text().startswith(f"{pair.ratio:.2f}x (")
    # CPU time, from the same runs: one figure per run, one ratio per pair whose base used the CPU
    # long enough for the clock to count it.
    assert len(pair.case.cpu_runs_s) == len(pair.base.cpu_runs_s) == 4
    assert pair.cpu_ratios == [c / b for c, b in zip(pair.case.cpu_runs_s, pair.base.cpu_runs_s, strict=True)
                               if b > 0]
    assert set(pair.as_dict()) >= {"ratios", "median_ratio", "cpu_ratios", "cpu_median_ratio", "cpu_min", "cpu_max"}


def test_a_failing_command_ends_its_pair(harness) -> None:
    pair = harness.measure_pair("case", [sys.executable, "-c", "raise SystemExit(3)"], "base",
                                [sys.executable, "-c", "pass"], repeats=3, ok_codes=(0,))
    assert not pair.ok and pair.case.error.startswith("exit 3") and pair.ratios == []


def test_a_run_over_the_limit_says_it_was_killed_for_it(harness) -> None:
    """A run the harness kills for its time limit reads as that, not as a bare 'exit -9'; the
    processes it started go with it."""
    # One command only: a paired baseline under the same short limit could itself be killed on a
    # busy machine. A run that sleeps for a minute is over a half-second limit however loaded we are.
    m = harness.measure("case", [sys.executable, "-c", "import time; time.sleep(60)"], repeats=1, timeout_s=0.5)
    assert m.runs_s == []
    assert m.error.startswith("killed by the harness: over its 0-second limit per run"), m.error
    assert "exit -9" not in m.error


def test_a_signal_from_elsewhere_is_named(harness) -> None:
    m = harness.measure("case", [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"],
                        repeats=1)
    assert m.error == "killed by SIGTERM (not by the harness: out of memory, or killed from outside)"


_WORKERS = """
import subprocess, sys
work = "b = bytearray(%d); b[::4096] = b'x' * len(b[::4096]); import time; time.sleep(2)"
workers = [subprocess.Popen([sys.executable, "-c", work]) for _ in range(2)]
for w in workers:
    w.wait()
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="the process tree is read from /proc")
def test_memory_of_a_process_tree_is_summed(harness) -> None:
    """Workers running at once use the sum of their memory: two workers of 80 MiB each are
    reported as at least 160 MiB, where the largest single process (what wait4 and GNU time
    give) is under 100."""
    mib = 2**20
    m = harness.measure("tree", [sys.executable, "-c", _WORKERS % (80 * mib)], repeats=1, budget_s=0)
    assert m.ok, m.error
    assert m.peak_rss_bytes >= 160 * mib, m.peak_rss_bytes / mib
    assert m.rss_source.endswith("+ tree"), m.rss_source


def test_stack_floor_does_the_least_work_of_each_target(tmp_path: Path) -> None:
    """benchmarks/stackfloor.py bounds three goals from below (docs/benchmarks.md): it must keep
    doing the work it claims on the targets' kinds of input - every example spec validated, one VM
    model per template, every VM of an export validated - or the bound it prints means nothing."""
    import subprocess

    repo = BENCHMARKS.parent
    examples = sorted(str(p) for p in (repo / "examples").glob("*.yaml"))

    def floor(*args: str) -> str:
        done = subprocess.run([sys.executable, str(BENCHMARKS / "stackfloor.py"), *args], capture_output=True,
                              text=True, cwd=repo, check=True)
        return done.stdout.strip()

    assert floor("check", *examples) == f"{len(examples)} validated"
    for i in range(3):
        (tmp_path / "vmx" / str(i)).mkdir(parents=True)
        (tmp_path / "vmx" / str(i) / "t.vmx").write_text('numvcpus = "4"\nmemsize = "4096"\n')
    (tmp_path / "vmx" / "notes.txt").write_text("not a template\n")
    assert floor("lint", str(tmp_path / "vmx"), ".vmx") == "3 validated"
    export = tmp_path / "estate.xlsx"
    subprocess.run([sys.executable, str(BENCHMARKS / "rvtools_export.py"), "write", str(export), "--vms", "80"],
                   check=True, cwd=repo)
    assert floor("estate", str(export)) == "80 validated"
