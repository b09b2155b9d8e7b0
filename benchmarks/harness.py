"""A small measuring harness: run a command and its baseline in turns, keep every run's wall
time, the ratio of each pair and the peak resident memory of each command.

A shared machine's load changes from one second to the next, so a case measured now and its
baseline measured a minute later can disagree by a third. Every case is therefore paired with
its baseline and the two run interleaved (base, case, case, base, ...: the order alternates so
that a drift in load hits both alike); the figure reported is the median of the per-pair ratios,
with their spread (lowest and highest, and the interquartile range).

Wall time is taken around the child with time.perf_counter(). CPU time is the child's user and
system time from wait4, which counts every descendant the child waited for (lint's and check's
workers): summed over the cores, so on a loaded machine it moves far less than wall time, and a
pair's CPU ratio is reported beside its wall ratio, each with its spread. Peak memory is the child's
ru_maxrss from wait4: the largest resident set of any ONE process of the tree, not their sum.
A command whose work runs in several processes at once (lint's and check's workers) uses the
sum of their memory, so the warm-up also samples the whole process tree every 50 ms and adds
up each process's proportional set size (PSS: a page that forked workers share with their
parent is counted once, split between them; RSS where smaps_rollup is unreadable); the peak
reported is the larger of the two. Linux carries the spawning process's high-water mark into a child
at exec, so a child started from this (larger) Python process would never look smaller than it;
the warm-up run therefore goes through GNU time (/usr/bin/time -f %M), a small C parent, and is
the memory sample. Without GNU time, wait4's figure is used and is an upper bound.

One warm-up run of each first (it fills the OS file cache, writes .pyc files and measures
memory), then up to `repeats` timed pairs, fewer when a pair is slow so that one case stays
within its budget.
"""

from __future__ import annotations

import contextlib
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
    timed_out: float | None = None  # the limit (s) when the harness killed the run for exceeding it
    peak_tree_bytes: int = 0  # sampled sum over the process tree (see the module docstring)
    cpu_s: float = 0.0  # user + system time of the child and the descendants it waited for


def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc (Linux); empty elsewhere."""
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else ():
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue  # the process ended while the tree was read
        # The command name (field 2) may hold spaces and parentheses: fields follow its last ')'.
        ppid = int(stat[stat.rfind(b")") + 2:].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _memory_of(pid: int) -> int:
    """A process's proportional set size in bytes (its resident set where PSS is unreadable)."""
    for path, key in ((f"/proc/{pid}/smaps_rollup", b"Pss:"), (f"/proc/{pid}/status", b"VmRSS:")):
        try:
            with open(path, "rb") as handle:
                for line in handle:
                    if line.startswith(key):
                        return int(line.split()[1]) * 1024
        except (OSError, ValueError):
            continue
    return 0


def tree_memory(root: int) -> int:
    """The summed memory of `root` and all its descendants, now."""
    children, total, todo = _children(), 0, [root]
    while todo:
        pid = todo.pop()
        total += _memory_of(pid)
        todo.extend(children.get(pid, ()))
    return total


class _TreeSampler(threading.Thread):
    """Samples tree_memory(pid) every `every_s` until stopped; keeps the peak."""

    def __init__(self, pid: int, every_s: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid, self.every_s, self.peak = pid, every_s, 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.peak = max(self.peak, tree_memory(self.pid))
            self._stop_event.wait(self.every_s)

    def stop(self) -> int:
        self._stop_event.set()
        self.join()
        return self.peak


@dataclass
class Measurement:
    """The timed runs of one command (the warm-up is not among them)."""

    name: str
    command: list[str]
    runs_s: list[float] = field(default_factory=list)
    cpu_runs_s: list[float] = field(default_factory=list)  # CPU time of the same runs, summed over cores
    peak_rss_bytes: int = 0  # the larger of one process's peak and the sampled tree's
    error: str | None = None
    rss_source: str = ""  # "gnu-time" or "wait4 (upper bound)", "+ tree" when the tree's sum was larger
    stdout: bytes = b""  # of the last run, when asked for (bench_engine prints its phases)

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.runs_s)

    @property
    def median_s(self) -> float | None:
        return statistics.median(self.runs_s) if self.runs_s else None

    @property
    def median_cpu_s(self) -> float | None:
        return statistics.median(self.cpu_runs_s) if self.cpu_runs_s else None

    @property
    def peak_rss_mb(self) -> float | None:
        return self.peak_rss_bytes / 2**20 if self.peak_rss_bytes else None

    def as_dict(self) -> dict:
        return {
            "command": self.command,
            "median_s": self.median_s,
            "runs_s": self.runs_s,
            "min_s": min(self.runs_s) if self.runs_s else None,
            "median_cpu_s": self.median_cpu_s,
            "cpu_runs_s": self.cpu_runs_s,
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
        # A blocking wait keeps the timing exact; a timer kills a run that hangs, and says so.
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            _kill_tree(proc.pid)

        killer = threading.Timer(timeout_s, kill)
        killer.start()
        sampler = _TreeSampler(proc.pid) if memory and os.path.isdir("/proc") else None
        if sampler is not None:
            sampler.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
            tree_peak = sampler.stop() if sampler is not None else 0
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; Popen must not wait again
        err.seek(0)
        out.seek(0)
        peak = usage.ru_maxrss * _MAXRSS_UNIT
        if memory and USE_GNU_TIME:
            # GNU time writes "Command exited with non-zero status N" or "Command terminated by
            # signal N" before the figure, and exits 128 + N for a signal: the signal is the news.
            report = rss.read().strip().splitlines() or ["0"]
            peak = int(report[-1]) * 1024 if report[-1].isdigit() else peak
            signalled = [ln for ln in report if ln.startswith("Command terminated by signal ")]
            if signalled:
                proc.returncode = -int(signalled[0].rsplit(" ", 1)[-1])
        return Sample(wall, peak, proc.returncode, out.read() if capture_stdout else b"", err.read(),
                      timed_out=timeout_s if killed.is_set() else None, peak_tree_bytes=tree_peak,
                      cpu_s=usage.ru_utime + usage.ru_stime)


def _kill_tree(pid: int) -> None:
    """Kill a run and every process it started (workers must not outlive a killed run)."""
    pids, todo, children = [], [pid], _children()
    while todo:
        current = todo.pop()
        pids.append(current)
        todo.extend(children.get(current, ()))
    for current in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):  # ended meanwhile, or not ours
            os.kill(current, 9)


def _peak(m: Measurement, sample: Sample) -> None:
    """Record a warm-up's memory on its measurement: one process's peak or the tree's sum."""
    source = "gnu-time" if USE_GNU_TIME else "wait4 (upper bound)"
    m.peak_rss_bytes = max(sample.peak_rss_bytes, sample.peak_tree_bytes)
    m.rss_source = source + (" + tree" if sample.peak_tree_bytes > sample.peak_rss_bytes else "")


def measure(name: str, command: Sequence[str], *, repeats: int, budget_s: float = 60.0,
            ok_codes: tuple[int, ...] = (0, 1), env: dict[str, str] | None = None, cwd: Path | None = None,
            capture_stdout: bool = False, log=lambda s: None, timeout_s: float = 900) -> Measurement:
    """Warm up once, then time up to `repeats` runs (at least one) within about `budget_s`."""
    m = Measurement(name, [str(c) for c in command])
    log(f"  {name} ...")
    first = run_once(m.command, env, cwd, capture_stdout, timeout_s, memory=True)
    if first.returncode not in ok_codes:
        m.error = _failure(first)
        return m
    runs = max(1, min(repeats, int(budget_s / max(first.wall_s, 1e-3))))
    samples: list[Sample] = []
    while len(samples) < runs:
        sample = run_once(m.command, env, cwd, capture_stdout, timeout_s)
        if sample.returncode not in ok_codes:
            m.error = _failure(sample)
            return m
        samples.append(sample)
    m.runs_s = [s.wall_s for s in samples]
    m.cpu_runs_s = [s.cpu_s for s in samples]
    _peak(m, first)
    m.stdout = samples[-1].stdout
    return m


@dataclass
class Pair:
    """A case and its baseline, run in turns: their runs and the ratio of each pair."""

    case: Measurement
    base: Measurement
    ratios: list[float] = field(default_factory=list)  # of wall times
    cpu_ratios: list[float] = field(default_factory=list)  # of CPU times, pair by pair

    @property
    def ok(self) -> bool:
        return self.case.ok and self.base.ok and bool(self.ratios)

    @property
    def ratio(self) -> float | None:
        return statistics.median(self.ratios) if self.ratios else None

    @property
    def cpu_ratio(self) -> float | None:
        return statistics.median(self.cpu_ratios) if self.cpu_ratios else None

    def spread(self, cpu: bool = False) -> tuple[float, float, float, float] | None:
        """Lowest, first quartile, third quartile and highest ratio (of wall, or of CPU, times)."""
        return _spread(self.cpu_ratios if cpu else self.ratios)

    def text(self, unit: str = "x", cpu: bool = False) -> str:
        """'1.07x (1.02-1.12)': the median ratio and the range of the pairs'."""
        ratio, spread = (self.cpu_ratio if cpu else self.ratio), self.spread(cpu)
        if ratio is None or spread is None:
            return "-"
        return f"{ratio:.2f}{unit} ({spread[0]:.2f}-{spread[3]:.2f})"

    def as_dict(self) -> dict:
        out: dict = {"case": self.case.name, "base": self.base.name}
        for prefix, ratios in (("", self.ratios), ("cpu_", self.cpu_ratios)):
            spread = _spread(ratios)
            out |= {f"{prefix}ratios": ratios, f"{prefix}median_ratio": statistics.median(ratios) if ratios else None,
                    f"{prefix}min": spread[0] if spread else None, f"{prefix}q1": spread[1] if spread else None,
                    f"{prefix}q3": spread[2] if spread else None, f"{prefix}max": spread[3] if spread else None}
        return out


def _spread(ratios: list[float]) -> tuple[float, float, float, float] | None:
    if not ratios:
        return None
    if len(ratios) < 4:
        return min(ratios), min(ratios), max(ratios), max(ratios)
    q1, _, q3 = statistics.quantiles(ratios, n=4)
    return min(ratios), q1, q3, max(ratios)


def measure_pair(name: str, command: Sequence[str], base_name: str, base_command: Sequence[str], *,
                 repeats: int, budget_s: float = 60.0, ok_codes: tuple[int, ...] = (0, 1),
                 base_ok_codes: tuple[int, ...] = (0, 1), env: dict[str, str] | None = None,
                 cwd: Path | None = None, capture_stdout: bool = False, log=lambda s: None,
                 timeout_s: float = 900) -> Pair:
    """Warm each command up once, then time up to `repeats` interleaved pairs within `budget_s`."""
    case, base = Measurement(name, [str(c) for c in command]), Measurement(base_name, [str(c) for c in base_command])
    pair = Pair(case, base)
    log(f"  {name} / {base_name} ...")
    warm = 0.0
    for m, codes in ((base, base_ok_codes), (case, ok_codes)):
        first = run_once(m.command, env, cwd, capture_stdout, timeout_s, memory=True)
        if first.returncode not in codes:
            m.error = _failure(first)
            return pair
        _peak(m, first)
        warm += first.wall_s
    runs = max(1, min(repeats, int(budget_s / max(warm, 1e-3))))
    for index in range(runs):
        order = [(base, base_ok_codes), (case, ok_codes)]
        for m, codes in (order if index % 2 == 0 else order[::-1]):
            sample = run_once(m.command, env, cwd, capture_stdout, timeout_s)
            if sample.returncode not in codes:
                m.error = _failure(sample)
                return pair
            m.runs_s.append(sample.wall_s)
            m.cpu_runs_s.append(sample.cpu_s)
            m.stdout = sample.stdout
        pair.ratios.append(case.runs_s[-1] / base.runs_s[-1])
        # A run too short for the clock's tick (10 ms) may report no CPU time at all.
        if base.cpu_runs_s[-1] > 0:
            pair.cpu_ratios.append(case.cpu_runs_s[-1] / base.cpu_runs_s[-1])
    return pair


def _failure(sample: Sample) -> str:
    """One line saying why a run failed: its exit status and last line, or why it was killed."""
    if sample.timed_out is not None:
        return (f"killed by the harness: over its {sample.timed_out:.0f}-second limit per run "
                f"(a loaded machine, or a hang); no figure for this case")
    if sample.returncode < 0:
        import signal

        try:
            name = signal.Signals(-sample.returncode).name
        except ValueError:
            name = f"signal {-sample.returncode}"
        return f"killed by {name} (not by the harness: out of memory, or killed from outside)"
    lines = [ln for ln in sample.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    tail = lines[-1].strip() if lines else "(no message)"
    return f"exit {sample.returncode}: {tail[:300]}"
