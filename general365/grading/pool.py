"""A persistent pool of grading processes with a hard per-item time limit: math-verify can
hang on adversarial answers and its own SIGALRM timeout works only in the main thread, so a
worker still busy past an item's limit is killed (status `timeout`) and replaced. Workers
come from our own fork server (pool_server.py), one socket each; nothing outlives the caller."""

from __future__ import annotations

import atexit
import os
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Sequence

from ..schema import AnswerType, Status
from . import pool_server as wire
from ..answers.gold import GoldAnswer
from .rule import RuleResult

DEFAULT_TIMEOUT = 5.0
MEMORY_LIMIT_MB = 2048  # address space per worker
START_TIMEOUT = 600.0   # for the fork server's answer (its first waits for its imports)


@dataclass(frozen=True)
class RuleTask:
    gold: GoldAnswer
    candidate: str


@dataclass(eq=False)
class _Worker:
    pid: int
    sock: socket.socket
    old_exitcode: int | None   # of the worker it replaces
    warm: frozenset[str]       # the kinds its server had warmed when it forked it
    index: int | None = None   # the item in flight
    deadline: float = 0.0
    ready: bool = False
    done: int = 0              # items it has graded

    def fileno(self) -> int:
        return self.sock.fileno()


class _ServerGone(Exception):
    pass


class _ServerLink:
    """The caller's side of the fork server: one process, one control socket."""

    def __init__(self):
        if not hasattr(os, "fork") or not hasattr(socket, "send_fds"):
            raise RuntimeError("the rule-grading pool needs os.fork and Unix sockets "
                               "(Linux or macOS)")
        if not sys.executable:
            raise RuntimeError("sys.executable is not set: the rule-grading pool cannot "
                               "start a Python interpreter")
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # The first answer waits for the server's imports (seconds; more on a loaded machine).
        self.control.settimeout(START_TIMEOUT)
        fd, dup = theirs.fileno(), None
        if fd <= 2:  # a caller that closed its standard streams: keep clear of them
            import fcntl

            fd = dup = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _bootstrap(fd)],
                stdin=subprocess.DEVNULL, pass_fds=(fd,), close_fds=True)
        except BaseException:
            self.control.close()
            raise
        finally:
            theirs.close()
            if dup is not None:
                os.close(dup)
        self.answered = False  # has it forked a worker yet (else: it failed to start)
        self.warmed: set[str] = set()   # kinds warmed on request (_warm.WARMERS)

    def ask(self, msg) -> tuple[tuple, int | None]:
        """Send `msg` to the server; its reply and the descriptor it passes."""
        try:
            wire.send(self.control, msg)
            reply, fd = wire.recv_with_fd(self.control)
        except TimeoutError:
            self.abandon()
            raise RuntimeError(f"the rule-grading server did not answer in {START_TIMEOUT:g} s")
        except (EOFError, OSError) as exc:
            raise _ServerGone(self._exitcode()) from exc
        if reply[0] == "error":
            if fd is not None:
                os.close(fd)
            self.abandon()
            raise RuntimeError("the rule-grading server could not import what grading needs "
                               "(its traceback follows):\n" + reply[1])
        self.answered = True
        if reply[0] == "warmed":   # what `kind` answers need, built for the workers it forks next
            self.warmed.add(reply[1])
        return reply, fd

    def _exitcode(self) -> int | None:
        try:
            return self.proc.wait(5)
        except subprocess.TimeoutExpired:
            return None

    def abandon(self) -> None:
        self.control.close()
        self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        if not self.answered:
            # prewarmed, never asked: it would read "stop" only once its imports are done
            self.abandon()
            return
        try:
            wire.send(self.control, ("stop",))
        except OSError:
            pass
        self.control.close()  # the server kills and reaps its workers, then exits
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def forget(self) -> None:
        """In a forked child: drop our copy of the parent's server without touching it."""
        self.control.close()
        self.proc.returncode = 0  # not our child: never wait on it


def _bootstrap(fd: int) -> str:
    # The server imports as this process does: this very general365 first, then this
    # process's sys.path ('' made absolute), so it grades with the same math-verify.
    import general365

    root = os.path.dirname(os.path.dirname(os.path.abspath(general365.__file__)))
    paths = [root] + [os.path.abspath(p) if p == "" else p
                      for p in sys.path if isinstance(p, str)]
    # SIGINT first: Ctrl-C reaches the whole process group, and the caller stops the pool.
    return ("import signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
            f"p = {list(dict.fromkeys(paths))!r}; "
            "sys.path[:] = p + [q for q in sys.path if q and q not in p]; "
            f"from general365.grading.pool_server import main; main({fd})")


class RulePool:
    """`map(tasks, timeout)` -> results in order; items past `timeout` seconds get TIMEOUT."""

    def __init__(self, workers: int | None = None, memory_limit_mb: int = MEMORY_LIMIT_MB):
        self.size = max(1, workers or _cpu_count())
        self.memory_limit_mb = memory_limit_mb
        self._server: _ServerLink | None = None
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()  # one map at a time (the shared pool may be reached from threads)
        self._failed_starts = 0
        self._interrupted = False
        self.replaced = 0  # workers killed and replaced (timeouts, crashes)
        self.graded = 0    # items sent to the workers
        self._wanted: set[str] = set()   # kinds its items have needed warm (_warm.WARMERS)
        _POOLS.add(self)

    def _request(self, msg) -> _Worker:
        """Ask the server for a worker; a server that died is started again once."""
        for attempt in (0, 1):
            if self._server is None:
                self._server = _ServerLink()
            try:
                for kind in sorted(self._wanted - self._server.warmed):
                    self._server.ask(("warm", kind))
                (_, pid, old_exit), fd = self._server.ask(msg)
            except RuntimeError:
                self._server = None
                raise
            except _ServerGone as gone:
                fresh = not self._server.answered
                self._server.control.close()
                self._server = None
                if fresh or attempt:
                    raise RuntimeError(
                        "the rule-grading server process exited as it started (exit code "
                        f"{gone.args[0]}); see its stderr above") from None
                if msg[0] == "replace":  # the new server does not know the old worker
                    msg = ("fork", self.memory_limit_mb)
                continue
            return _Worker(pid, socket.socket(fileno=fd), old_exit,
                           frozenset(self._server.warmed))
        raise AssertionError("unreachable")

    def _ensure_started(self) -> None:
        while len(self._workers) < self.size:
            self._workers.append(self._request(("fork", self.memory_limit_mb)))

    def _replace(self, w: _Worker, *, failed: bool = True) -> int | None:
        """Kill `w` (through the server, which reaps it) and put a fresh worker in its
        place; returns the old worker's exit code. `failed`: counted in `replaced`
        (timeouts, crashes), unlike a worker swapped for a warmer one."""
        w.sock.close()
        new = self._request(("replace", w.pid, self.memory_limit_mb))
        self._workers[self._workers.index(w)] = new
        self.replaced += failed
        return new.old_exitcode

    def prewarm(self) -> None:
        """Start the fork server now, without waiting for it: its imports then run beside the
        caller's own work. Never blocks: a pool already started or mapping is left as it is."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self._server is None:
                self._server = _ServerLink()
        finally:
            self._lock.release()

    def map(self, tasks: Sequence[RuleTask], timeout: float = DEFAULT_TIMEOUT) -> list[RuleResult]:
        if not tasks:
            return []
        with self._lock:
            return self._map(tasks, timeout)

    def _map(self, tasks: Sequence[RuleTask], timeout: float) -> list[RuleResult]:
        results: list[RuleResult | None] = [None] * len(tasks)
        if "interval" not in self._wanted and any(
                getattr(t.gold, "answer_type", None) is AnswerType.INTERVAL for t in tasks):
        # (a benchmark's own gold, CFE-Bench's formula, has no answer_type: nothing to warm)
            self._wanted.add("interval")
        self._ensure_started()
        # a worker forked before its server warmed a kind these items need is replaced
        for w in [w for w in self._workers if self._wanted - w.warm]:
            self._replace(w, failed=False)
        if self._interrupted:
            # the last map ended early (Ctrl-C, an error): fresh workers, so that no stale
            # or half-read answer lands on this batch
            for w in list(self._workers):
                self._replace(w)
        self._interrupted = True
        self.graded += len(tasks)
        pending = deque(range(len(tasks)))
        while pending or any(w.index is not None for w in self._workers):
            # seasoned workers first: a fresh fork's first item is slower (copy-on-write
            # pages, an empty gold cache)
            for w in sorted(self._workers, key=lambda w: w.done == 0):
                if w.index is None and pending:
                    i = pending.popleft()
                    try:
                        wire.send(w.sock, (i, tasks[i].gold, tasks[i].candidate))
                        w.index, w.deadline = i, time.monotonic() + timeout
                    except OSError:  # it died idle: the item goes to another worker
                        pending.appendleft(i)
                        self._worker_died(w, results)
            busy = [w.deadline for w in self._workers if w.index is not None]
            wait_for = max(0.0, min(busy) - time.monotonic()) if busy else 0.5
            for w in wait(list(self._workers), timeout=min(wait_for, 0.5) + 0.001):
                try:
                    index, status, detail, *data = wire.recv(w.sock)
                except (EOFError, OSError):
                    self._worker_died(w, results)
                    continue
                if index == "ready":
                    w.ready = True
                    self._failed_starts = 0
                elif index == w.index:
                    results[index] = RuleResult(Status(status), detail, *data)
                    w.index = None
                    w.done += 1
            now = time.monotonic()
            for w in list(self._workers):
                if w.index is not None and now > w.deadline:
                    results[w.index] = RuleResult(
                        Status.TIMEOUT, f"the rule grader passed its {timeout:g} s limit")
                    self._replace(w)
        self._interrupted = False
        return results  # type: ignore[return-value]

    def _worker_died(self, w: _Worker, results) -> None:
        index, ready = w.index, w.ready
        code = self._replace(w)
        if not ready:
            self._failed_starts += 1
            if self._failed_starts > 3 * self.size:
                raise RuntimeError("the rule-grading worker processes die as they start "
                                   f"(exit code {code}); see their stderr above")
        if index is not None:
            results[index] = RuleResult(
                Status.TIMEOUT, f"the grading process died (exit code {code})")

    def pids(self) -> list[int]:
        return [w.pid for w in self._workers]

    @property
    def server_pid(self) -> int | None:
        return self._server.proc.pid if self._server is not None else None

    def close(self) -> None:
        self._drop_workers()
        if self._server is not None:
            self._server.close()
            self._server = None

    def _forget(self) -> None:
        """In a forked child (every pool, by the at-fork hook below): close our copies of the
        sockets, so the parent's exit still ends its server, and start afresh."""
        self._drop_workers()
        if self._server is not None:
            self._server.forget()
            self._server = None
        self._lock = threading.Lock()
        self._failed_starts = 0

    def _drop_workers(self) -> None:
        for w in self._workers:
            w.sock.close()
        self._workers = []
        self._interrupted = False

    def __enter__(self) -> "RulePool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


_POOLS: "weakref.WeakSet[RulePool]" = weakref.WeakSet()
_SHARED: dict[int, RulePool] = {}
_SHARED_LOCK = threading.Lock()


def shared_pool(workers: int | None = None) -> RulePool:
    """A pool kept (warm) for the life of the process; closed at exit. A forked child gets
    its own."""
    size = max(1, workers or _cpu_count())
    with _SHARED_LOCK:
        pool = _SHARED.get(size)
        if pool is None:
            pool = _SHARED[size] = RulePool(size)
        return pool


def _after_fork_in_child() -> None:
    global _SHARED_LOCK
    _SHARED_LOCK = threading.Lock()
    for pool in list(_POOLS):
        pool._forget()
    _SHARED.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@atexit.register
def _close_shared() -> None:
    for pool in list(_SHARED.values()):
        pool.close()
    _SHARED.clear()
