"""Files and folders that appear whole or not at all, and the temporaries they leave when a
process is killed.

- Every file general365 writes goes through `atomic_write`: the target must be a regular
  file or absent (refused, naming the path, before anything is written); the bytes go to a
  temporary beside it, are fsynced and renamed over it; any error, a Ctrl-C included,
  leaves the target as it was; an OS error is a `WriteFailed` that names the target.
- A temporary is named after its writer's pid, which holds an flock on it while it lives;
  a later run removes it only when both say the writer is gone (a reused pid keeps it).
- A folder is replaced in one step (renameat2(RENAME_EXCHANGE)); where the filesystem
  cannot exchange, by two renames (the old folder set aside as `.NAME.old-PID` first),
  and `recover_dir` puts the old one back after a kill between them.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import re
import secrets
import shutil
import stat
import sys
from typing import Iterator

from .errors import UserError

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
        with contextlib.suppress(OSError):
            os.close(fd)
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
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _gone(folder: str, pattern: re.Pattern[str]) -> list[str]:
    """The names in `folder` that match `pattern` (with a group `pid`), whose writer is gone."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    matches = (pattern.fullmatch(name) for name in names)
    return [m.string for m in matches
            if m is not None and writer_gone(os.path.join(folder, m.string), int(m["pid"]))]


def sweep(folder: str, pattern: re.Pattern[str]) -> list[str]:
    """Remove the entries of `folder` that `_gone` finds; returns their names."""
    removed = _gone(folder, pattern)
    for name in removed:
        remove(os.path.join(folder, name))
    return removed


def temp_name(base: str, kind: str = "tmp") -> str:
    """`.BASE.PID-RAND.KIND` (RAND: 8 random hex digits): a temporary of this process, which
    `temp_pattern` finds again and a later run may sweep once PID is gone."""
    return f".{base}.{os.getpid()}-{secrets.token_hex(4)}.{kind}"


def temp_pattern(base: str, kind: str = "tmp") -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(base)}\.(?P<pid>\d+)-[0-9a-f]{{8}}\.{re.escape(kind)}")


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
    old = os.path.join(os.path.dirname(out), f".{base}.old-{os.getpid()}")
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
    pattern = re.compile(rf"\.{re.escape(base)}\.old-(?P<pid>\d+)")
    gone = [os.path.join(parent, name) for name in _gone(parent, pattern)]
    restored = None
    if gone and not os.path.lexists(out):
        restored = max(gone, key=lambda p: os.lstat(p).st_mtime_ns)   # the latest set aside
        os.rename(restored, out)
    for path in gone:
        if path != restored:
            remove(path)
    return restored


class WriteFailed(UserError):
    """A file could not be written (a full disk, a quota, no permission): names the file
    meant, not the temporary, which is gone. `reason` is the OS's words."""

    def __init__(self, path: str, reason: str, *, what: str = ""):
        self.path, self.reason = path, reason
        super().__init__(f"{path}: cannot write{' ' + what if what else ''} ({reason}); "
                         "nothing was written")


def os_reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or exc.__class__.__name__


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def check_target(path: str) -> None:
    """Refuse, in one line naming `path`, a target that is neither absent nor a regular
    file (a link is judged by what it names: `--out /dev/null` and a link to it alike).
    Renaming a file over /dev/full, or over a FIFO someone reads, would replace it."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno in (errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG):
            raise UserError(f"{path}: cannot write there ({os_reason(exc)})") from None
        return   # no permission to look: the write itself says why
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise UserError(f"{path}: is {kind}, not a regular file; expected the path of a file to "
                    "write (nothing was written)")


def _stale_pattern(base: str) -> re.Pattern[str]:
    # temp_name's `.BASE.PID-RAND.tmp`, and the `.BASE.PID.tmp` / `.BASE.PID.RAND.tmp` that
    # writers before atomic_write left: all swept the same way.
    return re.compile(rf"\.{re.escape(base)}\.(?P<pid>\d+)(?:[-.][0-9a-f]{{8}})?\.tmp")


class AtomicFile:
    """The file object atomic_write yields: `write` takes str (UTF-8) or bytes; a failed
    write names the target."""

    def __init__(self, f, path: str, what: str):
        self._f, self.path, self._what = f, path, what

    def write(self, data: str | bytes) -> int:
        if isinstance(data, str):
            data = data.encode("utf-8")
        try:
            return self._f.write(data)
        except OSError as exc:
            raise WriteFailed(self.path, os_reason(exc), what=self._what) from None


@contextlib.contextmanager
def atomic_write(path: str, *, what: str = "") -> Iterator[AtomicFile]:
    """Replace the file `path` whole with what is written to the yielded file, or leave it
    as it was (see the module's doc). `what` names the file in errors ("the graded file").
    Temporaries that a killed writer of the same path left are removed first."""
    path = os.fspath(path)
    check_target(path)
    folder, base = os.path.split(os.path.abspath(path))
    sweep(folder, _stale_pattern(base))
    tmp = os.path.join(folder, temp_name(base))
    lock = None
    made = False
    try:
        try:
            # os.open, not mkstemp: the file gets the umask's mode (mkstemp's are 0600), or
            # the mode of the file it replaces.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            raise WriteFailed(path, os_reason(exc), what=what) from None
        made = True
        lock = hold_lock(tmp)   # while held, no other run takes it for a leftover
        raw = os.fdopen(fd, "wb")
        try:
            yield AtomicFile(raw, path, what)
        except BaseException:
            _close_quietly(raw)   # its unwritten buffer must not raise over the real error
            raise
        try:
            raw.flush()
            with contextlib.suppress(OSError):
                os.fchmod(raw.fileno(), stat.S_IMODE(os.stat(path).st_mode))
            os.fsync(raw.fileno())
            raw.close()
        except OSError as exc:
            _close_quietly(raw)
            raise WriteFailed(path, os_reason(exc), what=what) from None
        check_target(path)   # a FIFO made in its place meanwhile is still not replaced
        try:
            os.replace(tmp, path)
        except OSError as exc:
            raise WriteFailed(path, os_reason(exc), what=what) from None
        _sync_folder(folder)
    finally:
        if lock is not None:
            release(lock)
        if made:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def write_text(path: str, text: str | bytes, *, what: str = "") -> None:
    """atomic_write of one string (UTF-8) or bytes."""
    with atomic_write(path, what=what) as f:
        f.write(text)


def _close_quietly(f) -> None:
    with contextlib.suppress(OSError):
        f.close()


def _sync_folder(folder: str) -> None:
    """The rename itself on disk (best effort: some filesystems cannot fsync a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    with contextlib.suppress(OSError):
        os.fsync(fd)
    os.close(fd)
