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


def test_a_failing_command_ends_its_pair(harness) -> None:
    pair = harness.measure_pair("case", [sys.executable, "-c", "raise SystemExit(3)"], "base",
                                [sys.executable, "-c", "pass"], repeats=3, ok_codes=(0,))
    assert not pair.ok and pair.case.error.startswith("exit 3") and pair.ratios == []
