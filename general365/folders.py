"""A folder of outputs (a report, an analysis, an audit sample) written all or nothing:
`write_folder` builds them in a temporary folder beside OUT, hard-links in the files of
OUT they do not include (a user's notes), then swaps the two folders in one step
(fsutil.replace_dir): a reader, or a kill, sees the old outputs or the new ones. A path in
the way is refused before anything changes. A folder that cannot be swapped (the current
folder, a mount point, one with sub-folders of the user's own, a file that cannot be
hard-linked) gets the outputs moved in one by one, after the same checks.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import Callable, Sequence

from . import fsutil
from .errors import OptionError, UserError
from .fsutil import remove, replace_dir

_LINK_FAILURES = {errno.EPERM, errno.EXDEV, errno.EMLINK, errno.EACCES}


class _CannotLink(Exception):
    pass


def _kind(path: str) -> str:
    return "folder" if os.path.isdir(path) and not os.path.islink(path) else "file"


def _merge(old: str, new: str, *, link: bool, what: str = "the outputs") -> None:
    """Check that nothing in `old` (OUT) is in the way of `new`'s entries; with
    `link`, hard-link every entry of `old` that `new` lacks into `new`."""
    for name in sorted(os.listdir(old)):
        src, dst = os.path.join(old, name), os.path.join(new, name)
        theirs = _kind(src)
        if os.path.lexists(dst):
            ours = _kind(dst)
            if ours != theirs:
                raise UserError(f"{src}: is a {theirs} where {what} writes a {ours}; move "
                                "it away or choose another --out (nothing was changed)")
            if ours == "folder":
                _merge(src, dst, link=link, what=what)
            elif not os.path.islink(src):
                fsutil.check_target(src)   # a FIFO or a device is never replaced
            continue   # a file of the outputs' own: the new one replaces it
        if not link:
            continue
        st = os.lstat(src)
        try:
            if stat.S_ISDIR(st.st_mode):
                os.mkdir(dst)
                os.chmod(dst, stat.S_IMODE(st.st_mode))
                _merge(src, dst, link=True, what=what)
            elif stat.S_ISLNK(st.st_mode):
                os.symlink(os.readlink(src), dst)
            elif stat.S_ISREG(st.st_mode):
                os.link(src, dst)
            else:
                raise _CannotLink(src)   # a pipe or a socket: moved in place instead
        except OSError as exc:
            if exc.errno in _LINK_FAILURES:
                raise _CannotLink(src) from None
            raise


def _rescue(old: str, out: str) -> None:
    """Entries that appeared in OUT after the merge, now in the old folder: moved into the
    new one rather than removed with the old."""
    for name in os.listdir(old):
        src, dst = os.path.join(old, name), os.path.join(out, name)
        if not os.path.lexists(dst):
            with contextlib.suppress(OSError):
                os.rename(src, dst)
        elif _kind(src) == _kind(dst) == "folder":
            _rescue(src, dst)


def _swappable(out: str, own: Sequence[str]) -> bool:
    """Whether OUT may be replaced whole: not the current folder or one holding it (a shell
    there would be left in a deleted folder), not a mount point, and holding only files,
    links and the outputs' own sub-folders `own` (`--out ~` is never relinked)."""
    real = os.path.realpath(out)
    cwd = os.path.realpath(os.getcwd())
    if cwd == real or cwd.startswith(real.rstrip(os.sep) + os.sep) or os.path.ismount(real):
        return False
    for entry in os.scandir(out):
        if entry.is_symlink():
            continue
        if entry.is_dir():
            if entry.name not in own:
                return False
        elif not entry.is_file():
            return False
    return True


def install(tmp: str, out: str, own: Sequence[str] = (), what: str = "the outputs"
            ) -> list[str]:
    """Make the outputs built in `tmp` be `out`'s; `own`: the outputs' sub-folders (a
    report's tables/ and figures/). Returns the outputs' paths under `out`."""
    ours = sorted(os.path.relpath(os.path.join(root, f), tmp)
                  for root, _dirs, files in os.walk(tmp) for f in files)
    written = [os.path.join(out, rel) for rel in ours]
    if not os.path.isdir(out):
        replace_dir(tmp, out)
        return written
    _merge(out, tmp, link=False, what=what)   # anything in the way: refused, nothing yet done
    if _swappable(out, own):
        try:
            _merge(out, tmp, link=True, what=what)
            os.chmod(tmp, stat.S_IMODE(os.stat(out).st_mode))
            old = replace_dir(tmp, out)   # raises before changing anything, or is done
        except (_CannotLink, OSError):
            pass
        else:
            if old is not None:
                _rescue(old, out)
                remove(old)
            return written
    for rel, dst in zip(ours, written):   # checked above: every parent is a folder or absent
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.replace(os.path.join(tmp, rel), dst)
    return written


def write_folder(out: str, build: Callable[[str], None], *, base: str, what: str,
                 own: Sequence[str] = ()) -> tuple[str, list[str]]:
    """Build the outputs with `build(folder)` beside `out`, then swap them in. `base` names
    the temporaries, `what` the outputs in errors ("the report"). Returns `out` (absolute)
    and the outputs' paths under it."""
    out = os.path.abspath(out)
    if os.path.islink(out) and os.path.isdir(out):
        out = os.path.realpath(out)   # the folder the link names is the one replaced
    if os.path.lexists(out) and not os.path.isdir(out):
        raise OptionError("out", f"{out}: exists and is not a folder; expected a folder")
    parent = os.path.dirname(out)
    try:
        os.makedirs(parent, exist_ok=True)
        fsutil.recover_dir(out)
        fsutil.sweep(parent, fsutil.temp_pattern(base))
        tmp = os.path.join(parent, fsutil.temp_name(base))
        os.mkdir(tmp)
    except OSError as exc:
        raise UserError(f"{out}: cannot write {what} ({fsutil.os_reason(exc)}); the folder "
                        "is as it was") from None
    lock = fsutil.hold_lock(tmp)   # while held, no other run takes it for a leftover
    try:
        try:
            build(tmp)
        except fsutil.WriteFailed as exc:
            raise _failed(out, what, exc.reason, exc.path, tmp) from None
        except OSError as exc:   # a full disk: the OS error of a write names no file
            raise _failed(out, what, fsutil.os_reason(exc), exc.filename, tmp) from None
        try:
            written = install(tmp, out, own, what)
        except OSError as exc:
            raise UserError(f"{out}: cannot put {what} in place ({fsutil.os_reason(exc)}); "
                            "rerun the command") from None
    finally:
        fsutil.release(lock)
        if os.path.lexists(tmp):
            fsutil.remove(tmp)
    return out, sorted(written)


def _failed(out: str, what: str, reason: str, filename, tmp: str) -> UserError:
    where = ""
    if filename:
        name = os.fsdecode(filename)
        inside = os.path.relpath(name, tmp)
        where = f": {name if inside.startswith(os.pardir) else inside}"
    return UserError(f"{out}: cannot write {what} ({reason}{where}); the folder is as it was")
