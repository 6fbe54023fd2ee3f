"""The rule pool's fork server and its workers (the other half of pool.py). It runs as a
fresh interpreter (`python -c`), never through multiprocessing, so the caller's `__main__` is
never imported; it imports math-verify once (`_warm`) and forks warm, single-threaded workers.
When the caller's end of the control socket closes (any exit, SIGKILL too), it kills them."""

from __future__ import annotations

import os
import pickle
import signal
import socket
import struct
import sys
from typing import Any

_HEADER = struct.Struct("!I")
# A write to a dead peer must be an error, not SIGPIPE: the CLI restores SIGPIPE's default
# (to end quietly under `| head`), and that default ends the process.
_NOSIGNAL = getattr(socket, "MSG_NOSIGNAL", 0)


# --- framing (both sides) -------------------------------------------------------------
# AF_UNIX stream sockets; a message is a 4-byte length, then a pickle. Control (caller and
# server, request then reply): ("fork", mb) and ("replace", pid, mb) get ("forked", pid,
# old_exitcode) with the worker's socket attached (SCM_RIGHTS); ("warm", kind) gets
# ("warmed", kind, None). Worker: (index, gold, candidate) in, (index, status, detail, data)
# out, ("ready", None, None) first; `gold` may bring its own `grade_in_worker(candidate)`.
# The server reaps a child only when asked, so a pid it kills cannot have been reused.


def send(sock: socket.socket, obj, fds: tuple[int, ...] = ()) -> None:
    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    payload = _HEADER.pack(len(data)) + data
    if fds:
        sent = socket.send_fds(sock, [payload], list(fds), _NOSIGNAL)
        if sent < len(payload):
            sock.sendall(payload[sent:], _NOSIGNAL)
    else:
        sock.sendall(payload, _NOSIGNAL)


def _recv_exact(sock: socket.socket, n: int, into: bytearray) -> bytearray:
    while len(into) < n:
        chunk = sock.recv(n - len(into))
        if not chunk:
            raise EOFError("the other end closed")
        into += chunk
    return into


def recv(sock: socket.socket, head: bytes = b""):
    """One message (`head`: the start of its header, already read)."""
    (size,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size, bytearray(head)))
    return pickle.loads(_recv_exact(sock, size, bytearray()))


def recv_with_fd(sock: socket.socket):
    """A reply that carries one file descriptor (the fd comes with its first byte)."""
    data, fds, _, _ = socket.recv_fds(sock, _HEADER.size, 1)
    if not data:
        raise EOFError("the other end closed")
    try:
        return recv(sock, data), (fds[0] if fds else None)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _grade_one(gold, candidate: str) -> tuple[str, str | None, Any]:
    from ..schema import Status
    from .rule import grade_slow

    try:
        # a task's own comparison (CFE-Bench's formulas) runs under the same limits
        own = getattr(gold, "grade_in_worker", None)
        res = own(candidate) if own is not None else grade_slow(gold, candidate)
        return res.status.value, res.detail, res.data
    except MemoryError:
        raise
    except RecursionError:
        return Status.INCORRECT.value, "math-verify: expression too deeply nested", None
    except Exception as exc:  # math-verify's verify() also counts an error as "not equal"
        return Status.INCORRECT.value, f"math-verify error: {type(exc).__name__}", None


def _worker(sock: socket.socket, memory_limit_mb: int) -> None:
    from ..schema import Status

    # `99999^{99999}!` grows by hundreds of MiB a second; on a shared machine a worker must
    # not take the memory of others before its time limit comes.
    try:
        import resource

        limit = memory_limit_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass
    send(sock, ("ready", None, None))
    while True:
        try:
            msg = recv(sock)
        except (EOFError, OSError):
            return
        index, gold, candidate = msg
        try:
            status, detail, data = _grade_one(gold, candidate)
        except MemoryError:
            # reported as a timeout; this worker, its heap in any state, ends (and is replaced)
            send(sock, (index, Status.TIMEOUT.value,
                        f"the rule grader passed its {memory_limit_mb} MiB memory limit"))
            return
        send(sock, (index, status, detail, data))


def _die_with_server(server_pid: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != server_pid:  # the server died before the request above took hold
        os._exit(1)


class _Server:
    def __init__(self, control: socket.socket):
        self.control = control
        self.pid = os.getpid()
        self.children: set[int] = set()

    def fork(self, memory_limit_mb: int) -> tuple[int, socket.socket]:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the server's code
            code = 0
            try:
                self.control.close()
                ours.close()
                _die_with_server(self.pid)
                _worker(theirs, memory_limit_mb)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        theirs.close()
        self.children.add(pid)
        return pid, ours

    def reap(self, pid: int) -> int | None:
        """Kill (if still running) and reap one of our workers; its exit code."""
        if pid not in self.children:
            return None
        self.children.discard(pid)
        try:
            os.kill(pid, signal.SIGKILL)  # a zombie ignores it and keeps its exit status
        except ProcessLookupError:
            pass
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            return None
        return os.waitstatus_to_exitcode(status)

    def serve(self) -> None:
        while True:
            try:
                msg = recv(self.control)
            except (EOFError, OSError):
                return  # the caller is gone (or closed the pool)
            if msg[0] == "stop":
                return
            ours = None
            if msg[0] == "warm":
                try:
                    from . import _warm

                    _warm.WARMERS[msg[1]]()
                except Exception:  # the items themselves will report what fails
                    pass
                reply = ("warmed", msg[1], None)
            else:
                old = self.reap(msg[1]) if msg[0] == "replace" else None
                pid, ours = self.fork(msg[-1])
                reply = ("forked", pid, old)
            try:
                send(self.control, reply, fds=(ours.fileno(),) if ours else ())
            except OSError:
                return
            finally:
                if ours is not None:
                    ours.close()

    def stop(self) -> None:
        for pid in list(self.children):
            self.reap(pid)


def main(control_fd: int) -> None:
    # (SIGINT is already ignored: pool._bootstrap does it before any import)
    control = socket.socket(fileno=control_fd)
    server = _Server(control)
    try:
        try:
            from . import _warm  # noqa: F401  (math-verify, sympy and its parser, once)
        except BaseException:
            import traceback

            # Answer the caller's first request with why, then leave.
            try:
                recv(control)
                send(control, ("error", traceback.format_exc(), None))
            except (EOFError, OSError):
                pass
            return
        import gc

        gc.freeze()  # what the workers inherit stays shared: no collector writes to it
        server.serve()
    finally:
        server.stop()
        control.close()
