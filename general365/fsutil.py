"""Files and folders that appear whole or not at all, and the temporaries they leave when a
process is killed.

- A temporary is named after the process that writes it (`...{pid}...`) and that process
  holds an flock on it while it lives. A later run removes a temporary only when both say
  its writer is gone: no live process has that pid here, and the lock can be taken. (The
  pid alone could name an unrelated process that reused it: then the temporary is kept,
  never a live writer's removed.)
- A folder is replaced in one step: renameat2(RENAME_EXCHANGE) swaps the new folder and
  the old one atomically, so a kill at any moment leaves one or the other at the path.
  Where the filesystem cannot exchange, two renames are used (the old folder moved aside
  to `.NAME.old-PID`, then the new one in); a kill between them leaves no folder at the
  path, and `recover_dir` puts the old one back on the next run.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import re
import secrets
import shutil
import sys

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:   # someone else's process: alive
        return True
    return True


# Locked descriptors that a forked child must not keep: an flock belongs to the open file,
# which a fork shares, so a child that outlived its parent (an engine's worker) would hold
# the lock of a dead run. Closed in every forked child (spawned children never get them).
_LOCKED_FDS: set[int] = set()


def _close_locked_fds_in_child() -> None:
    for fd in _LOCKED_FDS:
        try:
            os.close(fd)
        except OSError:
            pass
    _LOCKED_FDS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_locked_fds_in_child)


def keep_from_forks(fd: int) -> int:
    _LOCKED_FDS.add(fd)
    return fd


def release(fd: int) -> None:
    """Close a descriptor given by hold_lock (or kept with keep_from_forks)."""
    _LOCKED_FDS.discard(fd)
    os.close(fd)


def hold_lock(path: str) -> int:
    """Open `path` (a file or a folder) and hold an exclusive flock on it; returns the fd,
    for `release` when done (that, or the process dying, lets the lock go)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass   # a filesystem without flock: the pid check alone then decides
    return keep_from_forks(fd)


def writer_gone(path: str, pid: int) -> bool:
    """Whether the process that wrote the temporary `path` (named with `pid`) is gone."""
    if pid == os.getpid() or pid_alive(pid):
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN)
    finally:
        os.close(fd)
    return True


def remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def sweep(folder: str, pattern: re.Pattern[str]) -> list[str]:
    """Remove the entries of `folder` whose names match `pattern` (with a group `pid`) and
    whose writer is gone; returns their names."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    removed = []
    for name in sorted(names):
        m = pattern.fullmatch(name)
        if m is None:
            continue
        path = os.path.join(folder, name)
        if writer_gone(path, int(m["pid"])):
            remove(path)
            removed.append(name)
    return removed


def temp_name(base: str, kind: str = "tmp") -> str:
    """`.BASE.PID-RAND.KIND` (RAND: 8 random hex digits): a temporary of this process, which
    `temp_pattern` finds again and a later run may sweep once PID is gone."""
    return f".{base}.{os.getpid()}-{secrets.token_hex(4)}.{kind}"


def temp_pattern(base: str, kind: str = "tmp") -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(base)}\.(?P<pid>\d+)-[0-9a-f]{{8}}\.{re.escape(kind)}")


def _old_name(base: str, pid: int | None = None) -> str:
    return f".{base}.old-{os.getpid() if pid is None else pid}"


def _old_pattern(base: str) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(base)}\.old-(?P<pid>\d+)")


def exchange(a: str, b: str) -> bool:
    """Swap the paths `a` and `b` in one step (Linux renameat2); False where the system or
    the filesystem cannot, so the caller falls back."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                   ctypes.c_uint)
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), a, None, b)


def replace_dir(new: str, out: str) -> str | None:
    """Make the folder `new` be `out` (in the same parent folder). Returns where the folder
    that was at `out` is now, for the caller to remove, or None when there was none."""
    try:
        os.rename(new, out)   # no folder at `out` (or an empty one): one atomic rename
        return None
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    if exchange(new, out):
        return new
    base = os.path.basename(out)
    old = os.path.join(os.path.dirname(out), _old_name(base))
    os.rename(out, old)
    try:
        os.rename(new, out)
    except BaseException:
        os.rename(old, out)
        raise
    return old


def recover_dir(out: str) -> str | None:
    """Undo what a kill between replace_dir's two renames left: with no folder at `out`
    and an old one set aside by a process that is gone, put it back. Old folders set aside
    by gone processes whose replacement did land are removed. Returns what was restored."""
    parent, base = os.path.split(os.path.abspath(out))
    pattern = _old_pattern(base)
    try:
        names = sorted(os.listdir(parent))
    except OSError:
        return None
    gone = []
    for name in names:
        m = pattern.fullmatch(name)
        path = os.path.join(parent, name)
        if m is not None and writer_gone(path, int(m["pid"])):
            gone.append(path)
    restored = None
    if gone and not os.path.lexists(out):
        restored = max(gone, key=lambda p: os.lstat(p).st_mtime_ns)   # the latest set aside
        os.rename(restored, out)
    for path in gone:
        if path != restored:
            remove(path)
    return restored
