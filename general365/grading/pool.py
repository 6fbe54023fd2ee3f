"""A persistent pool of grading processes with a hard per-item time limit.

math-verify can take seconds or hang on adversarial answers (`9^{9^{9^{9}}}`, hundreds of
nested brackets), and its own timeout is a SIGALRM that only works in the main thread. So
each item runs in a worker process, one item at a time; a worker still busy when the
item's limit passes is killed, the item gets status `timeout`, a fresh worker takes its
place, and the batch goes on.

Each worker talks to the parent over its own pipe: killing a worker mid-write can only
break that pipe, never a queue the others share. Workers start from a forkserver that has
already imported math-verify and sympy, so a replacement starts in milliseconds and no
worker inherits the parent's threads (a judge client, a progress bar).
"""

from __future__ import annotations

import atexit
import multiprocessing as mp
import os
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Sequence

from ..schema import Status
from .rule import GoldAnswer, RuleResult

DEFAULT_TIMEOUT = 5.0
MEMORY_LIMIT_MB = 2048  # address space per worker
_PRELOAD = ["general365.grading.pool", "general365.grading._warm"]


@dataclass(frozen=True)
class RuleTask:
    gold: GoldAnswer
    candidate: str


def _grade_one(task: RuleTask) -> tuple[str, str | None]:
    from .rule import grade_slow

    try:
        res = grade_slow(task.gold, task.candidate)
        return res.status.value, res.detail
    except MemoryError:
        raise
    except RecursionError:
        return Status.INCORRECT.value, "math-verify: expression too deeply nested"
    except Exception as exc:  # math-verify's verify() also counts an error as "not equal"
        return Status.INCORRECT.value, f"math-verify error: {type(exc).__name__}"


def _worker(conn, memory_limit_mb: int) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # `99999^{99999}!` grows by hundreds of MiB a second; on a shared machine a worker must
    # not take the memory of others before its time limit comes.
    try:
        import resource

        limit = memory_limit_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass
    from . import _warm  # noqa: F401  (already imported in the forkserver: then free)

    conn.send(("ready", None, None))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        index, task = msg
        try:
            status, detail = _grade_one(task)
        except MemoryError:
            # A resource limit, like the time limit: reported as a timeout, and this
            # worker, whose heap may be in any state, ends (the parent replaces it).
            conn.send((index, Status.TIMEOUT.value,
                       f"the rule grader passed its {memory_limit_mb} MiB memory limit"))
            return
        try:
            conn.send((index, status, detail))
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, ctx, memory_limit_mb: int):
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_worker, args=(child, memory_limit_mb), daemon=True)
        self.proc.start()
        child.close()
        self.index: int | None = None   # the item in flight
        self.deadline = 0.0
        self.ready = False

    def kill(self) -> None:
        try:
            self.proc.kill()
            self.proc.join(5)
        finally:
            self.conn.close()


class RulePool:
    """`map(tasks, timeout)` -> results in order; items past `timeout` seconds get TIMEOUT."""

    def __init__(self, workers: int | None = None, memory_limit_mb: int = MEMORY_LIMIT_MB):
        self.size = max(1, workers or _cpu_count())
        self.memory_limit_mb = memory_limit_mb
        try:
            self._ctx = mp.get_context("forkserver")
            self._ctx.set_forkserver_preload(_PRELOAD)
        except ValueError:  # no forkserver on this platform
            self._ctx = mp.get_context("spawn")
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()  # one map at a time (the shared pool may be reached from threads)
        self._failed_starts = 0
        self.replaced = 0  # workers killed and replaced (timeouts, crashes)
        self.graded = 0    # items sent to the workers

    def _ensure_started(self) -> None:
        while len(self._workers) < self.size:
            self._workers.append(_Worker(self._ctx, self.memory_limit_mb))

    def map(self, tasks: Sequence[RuleTask], timeout: float = DEFAULT_TIMEOUT) -> list[RuleResult]:
        if not tasks:
            return []
        with self._lock:
            return self._map(tasks, timeout)

    def _map(self, tasks: Sequence[RuleTask], timeout: float) -> list[RuleResult]:
        results: list[RuleResult | None] = [None] * len(tasks)
        self._ensure_started()
        self.graded += len(tasks)
        pending = deque(range(len(tasks)))
        while pending or any(w.index is not None for w in self._workers):
            now = time.monotonic()
            for w in self._workers:
                if w.ready and w.index is None and pending:
                    i = pending.popleft()
                    try:
                        w.conn.send((i, tasks[i]))
                        w.index, w.deadline = i, time.monotonic() + timeout
                    except (BrokenPipeError, OSError):
                        pending.appendleft(i)
                        self._replace(w)
            waiting = {w.conn: w for w in self._workers}
            busy = [w.deadline for w in self._workers if w.index is not None]
            wait_for = max(0.0, min(busy) - now) if busy else 0.5
            for conn in wait(list(waiting), timeout=min(wait_for, 0.5) + 0.001):
                w = waiting[conn]
                try:
                    index, status, detail = conn.recv()
                except (EOFError, OSError):
                    self._worker_died(w, results)
                    continue
                if index == "ready":
                    w.ready = True
                    self._failed_starts = 0
                elif index == w.index:
                    results[index] = RuleResult(Status(status), detail)
                    w.index = None
            now = time.monotonic()
            for w in list(self._workers):
                if w.index is not None and now > w.deadline:
                    results[w.index] = RuleResult(
                        Status.TIMEOUT, f"the rule grader passed its {timeout:g} s limit")
                    self._replace(w)
                elif not w.proc.is_alive():
                    self._worker_died(w, results)
        return results  # type: ignore[return-value]

    def _worker_died(self, w: _Worker, results) -> None:
        if not w.ready:
            self._failed_starts += 1
            if self._failed_starts > 3 * self.size:
                raise RuntimeError("the rule-grading worker processes die as they start "
                                   f"(exit code {w.proc.exitcode}); see their stderr above")
        if w.index is not None:
            results[w.index] = RuleResult(
                Status.TIMEOUT, f"the grading process died (exit code {w.proc.exitcode})")
        self._replace(w)

    def _replace(self, w: _Worker) -> None:
        w.kill()
        self._workers[self._workers.index(w)] = _Worker(self._ctx, self.memory_limit_mb)
        self.replaced += 1

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self._workers]

    def close(self) -> None:
        for w in self._workers:
            try:
                w.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for w in self._workers:
            w.proc.join(2)
            if w.proc.is_alive():
                w.proc.kill()
                w.proc.join(2)
            w.conn.close()
        self._workers = []

    def __enter__(self) -> "RulePool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


_SHARED: dict[int, RulePool] = {}


def shared_pool(workers: int | None = None) -> RulePool:
    """A pool kept for the life of the process (the `evaluate` metric and repeated
    `grade()` calls reuse its warm workers); closed at exit."""
    size = max(1, workers or _cpu_count())
    pool = _SHARED.get(size)
    if pool is None:
        pool = _SHARED[size] = RulePool(size)
    return pool


@atexit.register
def _close_shared() -> None:
    for pool in _SHARED.values():
        pool.close()
    _SHARED.clear()
