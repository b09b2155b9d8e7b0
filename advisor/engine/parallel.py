"""Pass 2 of a large spec in several processes: contiguous slices of the VMs, merged in order.

Once a host's VMs are placed (Evaluator.place), each VM's turn reads only its own model, the
catalog and the placement facts. The parent forks a worker for every slice but the first, so
the workers read the loaded spec and catalog it already holds (copy-on-write) and nothing is
sent to them; it evaluates the first slice itself meanwhile. Workers send their results back
every CHUNK VMs and drop them, so a worker holds little more than its slice; a thread of the
parent collects the bytes as they come (a worker never waits on a full pipe). The parent then
takes the slices in order, which makes every list of the run (VMs, findings, notes, the
evaluated rules) the one a single process builds: the output is the same byte for byte.

Where fork is missing (Windows), or the spec is small, pass 2 runs in this process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from advisor.load.yamlfile import gc_paused
from advisor.report.findings import Run

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from advisor.engine.engine import Evaluator, Placed, Subject

# VMs of one spec before its second pass is split when the caller leaves the jobs to this module
# (jobs=None; `check` passes 1 unless --jobs is given, and a given --jobs always splits). A worker costs about
# a tenth of a second (the fork, its own CEL programs, results pickled and read back: 0.07 ms per
# VM each way); pass 2 of 2,000 VMs takes 1.5-2.5 s of CPU on the 2-core benchmark machine, so
# from here on half of it in another process is worth that (benchmarks/bench_engine.py --jobs).
PARALLEL_THRESHOLD = 2_000
CHUNK = 1_000  # VMs a worker evaluates before sending their results and dropping them

# The tag before each message a worker sends (a result part, its last word, or its failure).
_PART, _DONE, _FAILED = b"P", b"D", b"F"


def default_jobs() -> int:
    """Worker processes when --jobs is not given: one per core (at most 8, as lint)."""
    return min(os.cpu_count() or 1, 8)


def can_fork() -> bool:
    return hasattr(os, "fork") and hasattr(signal, "pthread_sigmask")


def splitter(jobs: int | None, vms: int) -> Callable[[Evaluator, list[Subject], Placed, bool], None] | None:
    """The pass 2 for Evaluator.evaluate(each=...): None (this process) for one job, a spec
    under PARALLEL_THRESHOLD VMs when the jobs were not given, or no fork."""
    count = jobs if jobs is not None else (default_jobs() if vms >= PARALLEL_THRESHOLD else 1)
    count = min(count, vms)
    if count <= 1 or not can_fork():
        return None

    def each(evaluator: Evaluator, subjects: list[Subject], placed: Placed, release: bool) -> None:
        evaluate_in_slices(evaluator, subjects, placed, release, count)
    return each


def slices(total: int, count: int) -> list[tuple[int, int]]:
    """`count` contiguous (start, stop) ranges covering `total`, sizes differing by one at most."""
    size, extra = divmod(total, count)
    out, start = [], 0
    for i in range(count):
        stop = start + size + (1 if i < extra else 0)
        out.append((start, stop))
        start = stop
    return out


@dataclass(slots=True)
class _Part:
    """The results of consecutive VMs, as a worker sends them."""

    vms: list[Any]
    findings: list[Any]
    notes: list[str]
    evaluated: list[Any]
    recommendations: list[Any] | None  # in the order of `vms`, when the evaluator keeps them


@dataclass(slots=True)
class _Worker:
    process: BaseProcess
    conn: Connection
    first: int  # its slice, for messages
    last: int
    messages: list[bytes] = field(default_factory=list)
    ended: bool = False  # its last word arrived (done or failed)

    def collect(self) -> None:
        """Read every message the worker sends until its last (runs in a thread)."""
        try:
            while True:
                data = self.conn.recv_bytes()
                self.messages.append(data)
                if data[:1] != _PART:
                    self.ended = True
                    return
        except (EOFError, OSError):
            return  # it ended without its last word: see WorkerLost


class WorkerLost(RuntimeError):
    """A worker ended (killed, out of memory) without sending its results."""


def evaluate_in_slices(evaluator: Evaluator, subjects: list[Subject], placed: Placed, release: bool,
                       count: int) -> None:
    """Evaluator.evaluate_placed over every subject, in `count` processes (this one included)."""
    import multiprocessing

    bounds = slices(len(subjects), count)
    context = multiprocessing.get_context("fork")
    workers: list[_Worker] = []
    try:
        # Ctrl-C reaches the whole process group; the parent alone stops, and ends its workers.
        # Held back while forking, a worker ignores it from its first instruction on.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            for first, last in bounds[1:]:
                receive, send = context.Pipe(duplex=False)
                process = context.Process(target=_work, args=(send, evaluator, subjects, placed, release, first,
                                                              last, os.getpid()), daemon=True, name="advisor-check")
                process.start()
                send.close()
                workers.append(_Worker(process, receive, first + 1, last))
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        if release:  # the workers hold their own slices now: this process lets its copies go
            subjects[bounds[0][1]:] = []
        readers = [threading.Thread(target=w.collect, daemon=True) for w in workers]
        for reader in readers:  # started after every fork: a fork copies no running thread
            reader.start()
        evaluator.evaluate_placed(subjects, placed, release, 0, bounds[0][1])
        for worker, reader in zip(workers, readers, strict=True):
            reader.join()
            _absorb(evaluator, worker)
    finally:
        for worker in workers:
            if worker.process.is_alive():
                worker.process.terminate()
            worker.process.join()
            worker.conn.close()


def _absorb(evaluator: Evaluator, worker: _Worker) -> None:
    """Take a worker's results into the evaluator's run, in the order it evaluated them."""
    run = evaluator.run
    messages, worker.messages = worker.messages[::-1], []
    while messages:  # each message's bytes freed once read
        data = messages.pop()
        with gc_paused():  # a part is thousands of new objects and no cycle: half the time without
            tag, payload = data[:1], pickle.loads(memoryview(data)[1:])
        del data
        if tag == _PART:
            run.vms.extend(payload.vms)
            run.findings.extend(payload.findings)
            run.notes.extend(payload.notes)
            run.evaluated.extend(payload.evaluated)
            if payload.recommendations is not None:
                evaluator.recommendations.update(
                    (id(vm), rec) for vm, rec in zip(payload.vms, payload.recommendations, strict=True))
        elif tag == _DONE:  # the configuration's exemptions it used
            for index in payload:
                evaluator.policy.exemptions[index].used = True
        else:
            error, remote_traceback = payload
            raise error from _RemoteTraceback(remote_traceback)
    if not worker.ended:
        worker.process.join()
        code = worker.process.exitcode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        raise WorkerLost(f"the worker process evaluating VMs {worker.first}-{worker.last} ended ({how}) "
                         "before sending its results (out of memory?); --jobs 1 evaluates in one process")


class _RemoteTraceback(Exception):
    """The traceback of an error raised in a worker, shown with --debug."""

    def __str__(self) -> str:
        return str(self.args[0])


def _work(conn: Connection, evaluator: Evaluator, subjects: list[Subject], placed: Placed, release: bool,
          first: int, last: int, parent: int) -> None:
    """A worker: evaluate subjects[first:last] and send the results every CHUNK VMs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent's to act on (evaluate_in_slices)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _end_with(parent)
    try:
        for start in range(first, last, CHUNK):
            evaluator.run, evaluator.recommendations = Run(), {}
            evaluator.evaluate_placed(subjects, placed, release, start, min(last, start + CHUNK))
            run = evaluator.run
            recs = [evaluator.recommendations[id(v)] for v in run.vms] if evaluator.keep_recommendations else None
            part = _Part(run.vms, run.findings, run.notes, run.evaluated, recs)
            with gc_paused():
                data = _PART + pickle.dumps(part, pickle.HIGHEST_PROTOCOL)
            conn.send_bytes(data)
            del part, run, recs, data
        used = [i for i, ex in enumerate(evaluator.policy.exemptions) if ex.used]
        conn.send_bytes(_DONE + pickle.dumps(used, pickle.HIGHEST_PROTOCOL))
    except BaseException as exc:
        _send_failure(conn, exc)
    finally:
        conn.close()


def _send_failure(conn: Connection, exc: BaseException) -> None:
    import traceback

    text = "".join(traceback.format_exception(exc))
    try:
        data = pickle.dumps((exc, text), pickle.HIGHEST_PROTOCOL)
        pickle.loads(data)  # an exception that cannot be rebuilt is sent as its type and message
    except Exception:
        data = pickle.dumps((RuntimeError(f"{type(exc).__name__}: {exc}"), text), pickle.HIGHEST_PROTOCOL)
    with contextlib.suppress(OSError):  # the parent is gone
        conn.send_bytes(_FAILED + data)


def _end_with(parent: int) -> None:
    """On Linux, have the kernel end this worker when the parent ends, however it ends (a
    SIGKILL leaves no chance to clean up): no worker outlives the command."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG, prctl(2)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent ended before the request took effect
        os._exit(1)
