"""A small measuring harness: run a command and its baseline in turns, keep every run's wall
time, the ratio of each pair and the peak resident memory of each command.

A shared machine's load changes from one second to the next, so a case measured now and its
baseline measured a minute later can disagree by a third. Every case is therefore paired with
its baseline and the two run interleaved (base, case, case, base, ...: the order alternates so
that a drift in load hits both alike); the figure reported is the median of the per-pair ratios,
with their spread (lowest and highest, and the interquartile range).

Wall time is taken around the child with time.perf_counter(). Peak memory is the child's
ru_maxrss from wait4 (the largest resident set of the child or of any of its own children, such
as lint's worker processes). Linux carries the spawning process's high-water mark into a child
at exec, so a child started from this (larger) Python process would never look smaller than it;
the warm-up run therefore goes through GNU time (/usr/bin/time -f %M), a small C parent, and is
the memory sample. Without GNU time, wait4's figure is used and is an upper bound.

One warm-up run of each first (it fills the OS file cache, writes .pyc files and measures
memory), then up to `repeats` timed pairs, fewer when a pair is slow so that one case stays
within its budget.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

_MAXRSS_UNIT = 1 if sys.platform == "darwin" else 1024  # bytes per ru_maxrss unit
GNU_TIME = Path("/usr/bin/time")


def _gnu_time_works() -> bool:
    if not GNU_TIME.is_file():
        return False
    probe = subprocess.run([str(GNU_TIME), "-f", "%M", "true"], capture_output=True, text=True)
    return probe.returncode == 0 and probe.stderr.strip().splitlines()[-1:] != [] \
        and probe.stderr.strip().splitlines()[-1].isdigit()


USE_GNU_TIME = _gnu_time_works()


@dataclass
class Sample:
    wall_s: float
    peak_rss_bytes: int
    returncode: int
    stdout: bytes = b""
    stderr: bytes = b""


@dataclass
class Measurement:
    """The timed runs of one command (the warm-up is not among them)."""

    name: str
    command: list[str]
    runs_s: list[float] = field(default_factory=list)
    peak_rss_bytes: int = 0
    error: str | None = None
    rss_source: str = ""  # "gnu-time" or "wait4 (upper bound)"
    stdout: bytes = b""  # of the last run, when asked for (bench_engine prints its phases)

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.runs_s)

    @property
    def median_s(self) -> float | None:
        return statistics.median(self.runs_s) if self.runs_s else None

    @property
    def peak_rss_mb(self) -> float | None:
        return self.peak_rss_bytes / 2**20 if self.peak_rss_bytes else None

    def as_dict(self) -> dict:
        return {
            "command": self.command,
            "median_s": self.median_s,
            "runs_s": self.runs_s,
            "min_s": min(self.runs_s) if self.runs_s else None,
            "peak_rss_mb": round(self.peak_rss_mb, 1) if self.peak_rss_mb else None,
            "rss_source": self.rss_source,
            "error": self.error,
        }


def run_once(command: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None,
             capture_stdout: bool = False, timeout_s: float = 900, memory: bool = False) -> Sample:
    """One run: stdout discarded (or kept), stderr kept in a temp file (a pipe could fill up).
    With `memory` (and GNU time present) the run goes through /usr/bin/time for its peak RSS."""
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out, \
            tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        if memory and USE_GNU_TIME:
            command = [str(GNU_TIME), "-f", "%M", "-o", rss.name, *command]
        start = time.perf_counter()
        proc = subprocess.Popen(list(command), stdin=subprocess.DEVNULL,
                                stdout=out if capture_stdout else subprocess.DEVNULL,
                                stderr=err, env=env, cwd=cwd)
        # A blocking wait keeps the timing exact; a timer kills a run that hangs.
        killer = threading.Timer(timeout_s, proc.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; Popen must not wait again
        err.seek(0)
        out.seek(0)
        peak = usage.ru_maxrss * _MAXRSS_UNIT
        if memory and USE_GNU_TIME:
            # GNU time writes "Command exited with non-zero status N" before the figure.
            last = (rss.read().strip().splitlines() or ["0"])[-1]
            peak = int(last) * 1024 if last.isdigit() else peak
        return Sample(wall, peak, proc.returncode,
                      out.read() if capture_stdout else b"", err.read())


def measure(name: str, command: Sequence[str], *, repeats: int, budget_s: float = 60.0,
            ok_codes: tuple[int, ...] = (0, 1), env: dict[str, str] | None = None, cwd: Path | None = None,
            capture_stdout: bool = False, log=lambda s: None) -> Measurement:
    """Warm up once, then time up to `repeats` runs (at least one) within about `budget_s`."""
    m = Measurement(name, [str(c) for c in command])
    log(f"  {name} ...")
    first = run_once(m.command, env, cwd, capture_stdout, memory=True)
    if first.returncode not in ok_codes:
        m.error = _failure(first)
        return m
    runs = max(1, min(repeats, int(budget_s / max(first.wall_s, 1e-3))))
    samples: list[Sample] = []
    while len(samples) < runs:
        sample = run_once(m.command, env, cwd, capture_stdout)
        if sample.returncode not in ok_codes:
            m.error = _failure(sample)
            return m
        samples.append(sample)
    m.runs_s = [s.wall_s for s in samples]
    m.peak_rss_bytes = first.peak_rss_bytes
    m.rss_source = "gnu-time" if USE_GNU_TIME else "wait4 (upper bound)"
    m.stdout = samples[-1].stdout
    return m


@dataclass
class Pair:
    """A case and its baseline, run in turns: their runs and the ratio of each pair."""

    case: Measurement
    base: Measurement
    ratios: list[float] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.case.ok and self.base.ok and bool(self.ratios)

    @property
    def ratio(self) -> float | None:
        return statistics.median(self.ratios) if self.ratios else None

    def spread(self) -> tuple[float, float, float, float] | None:
        """Lowest, first quartile, third quartile and highest ratio."""
        if not self.ratios:
            return None
        if len(self.ratios) < 4:
            return min(self.ratios), min(self.ratios), max(self.ratios), max(self.ratios)
        q1, _, q3 = statistics.quantiles(self.ratios, n=4)
        return min(self.ratios), q1, q3, max(self.ratios)

    def text(self, unit: str = "x") -> str:
        """'1.07x (1.02-1.12)': the median ratio and the range of the pairs'."""
        spread = self.spread()
        if self.ratio is None or spread is None:
            return "-"
        return f"{self.ratio:.2f}{unit} ({spread[0]:.2f}-{spread[3]:.2f})"

    def as_dict(self) -> dict:
        spread = self.spread()
        return {"case": self.case.name, "base": self.base.name, "ratios": self.ratios, "median_ratio": self.ratio,
                "min": spread[0] if spread else None, "q1": spread[1] if spread else None,
                "q3": spread[2] if spread else None, "max": spread[3] if spread else None}


def measure_pair(name: str, command: Sequence[str], base_name: str, base_command: Sequence[str], *,
                 repeats: int, budget_s: float = 60.0, ok_codes: tuple[int, ...] = (0, 1),
                 base_ok_codes: tuple[int, ...] = (0, 1), env: dict[str, str] | None = None,
                 cwd: Path | None = None, capture_stdout: bool = False, log=lambda s: None) -> Pair:
    """Warm each command up once, then time up to `repeats` interleaved pairs within `budget_s`."""
    case, base = Measurement(name, [str(c) for c in command]), Measurement(base_name, [str(c) for c in base_command])
    pair = Pair(case, base)
    log(f"  {name} / {base_name} ...")
    warm = 0.0
    for m, codes in ((base, base_ok_codes), (case, ok_codes)):
        first = run_once(m.command, env, cwd, capture_stdout, memory=True)
        if first.returncode not in codes:
            m.error = _failure(first)
            return pair
        m.peak_rss_bytes = first.peak_rss_bytes
        m.rss_source = "gnu-time" if USE_GNU_TIME else "wait4 (upper bound)"
        warm += first.wall_s
    runs = max(1, min(repeats, int(budget_s / max(warm, 1e-3))))
    for index in range(runs):
        order = [(base, base_ok_codes), (case, ok_codes)]
        for m, codes in (order if index % 2 == 0 else order[::-1]):
            sample = run_once(m.command, env, cwd, capture_stdout)
            if sample.returncode not in codes:
                m.error = _failure(sample)
                return pair
            m.runs_s.append(sample.wall_s)
            m.stdout = sample.stdout
        pair.ratios.append(case.runs_s[-1] / base.runs_s[-1])
    return pair


def _failure(sample: Sample) -> str:
    lines = [ln for ln in sample.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    tail = lines[-1].strip() if lines else "(no message)"
    return f"exit {sample.returncode}: {tail[:300]}"
