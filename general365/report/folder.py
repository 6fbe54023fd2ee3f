"""Putting a report built aside into its folder, all or nothing.

The report is built in a temporary folder beside REPORT_DIR. Files already in REPORT_DIR
that the report does not write (a user's notes, say) are hard-linked into the new folder
(the same files, not copies), then the new folder and REPORT_DIR are exchanged in one
step (fsutil.replace_dir). So a reader, or a kill at any moment, sees the old report or the
new one, never a mix; and a path in the way (a file named `figures`, a folder named
`index.html`) is refused before anything changes.

The swap is for a folder that holds a report and perhaps some files beside it. For any
other (the current folder or one holding it, a mount point, a folder with sub-folders of
the user's own, a file that cannot be hard-linked), the report's files are moved in one by
one instead, after the same checks: still nothing changes when a path is in the way, but
a kill during the moves can leave a mix of old and new files (rerun the command).
"""

from __future__ import annotations

import errno
import os
import stat

from ..errors import UserError
from ..fsutil import remove, replace_dir

_LINK_FAILURES = {errno.EPERM, errno.EXDEV, errno.EMLINK, errno.EACCES}


class _CannotLink(Exception):
    pass


def _kind(path: str) -> str:
    return "folder" if os.path.isdir(path) and not os.path.islink(path) else "file"


def _merge(old: str, new: str, *, link: bool) -> None:
    """Check that nothing in `old` (REPORT_DIR) is in the way of `new`'s entries; with
    `link`, hard-link every entry of `old` that `new` lacks into `new`."""
    for name in sorted(os.listdir(old)):
        src, dst = os.path.join(old, name), os.path.join(new, name)
        theirs = _kind(src)
        if os.path.lexists(dst):
            ours = _kind(dst)
            if ours != theirs:
                raise UserError(f"{src}: is a {theirs} where the report writes a {ours}; move "
                                "it away or choose another --out (nothing was changed)")
            if ours == "folder":
                _merge(src, dst, link=link)
            continue   # a file of the report's own: the new one replaces it
        if not link:
            continue
        st = os.lstat(src)
        try:
            if stat.S_ISDIR(st.st_mode):
                os.mkdir(dst)
                os.chmod(dst, stat.S_IMODE(st.st_mode))
                _merge(src, dst, link=True)
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
    """Entries that appeared in REPORT_DIR after the merge, now in the old folder: moved
    into the new one rather than removed with the old."""
    for name in os.listdir(old):
        src, dst = os.path.join(old, name), os.path.join(out, name)
        if not os.path.lexists(dst):
            try:
                os.rename(src, dst)
            except OSError:
                pass
        elif _kind(src) == _kind(dst) == "folder":
            _rescue(src, dst)


def _swappable(out: str) -> bool:
    """Whether REPORT_DIR may be replaced as a whole: not the current folder or one that
    holds it (a shell in it would be left in a deleted folder), not a mount point, and
    holding beside the report only plain files and links (a folder of the user's own, say
    `--out ~`, is never relinked file by file: the report's files are moved in instead)."""
    real = os.path.realpath(out)
    cwd = os.path.realpath(os.getcwd())
    if cwd == real or cwd.startswith(real.rstrip(os.sep) + os.sep) or os.path.ismount(real):
        return False
    for entry in os.scandir(out):
        if entry.is_symlink():
            continue
        if entry.is_dir():
            if entry.name not in _OWN_FOLDERS:
                return False
        elif not entry.is_file():
            return False
    return True


# tensorboard and hub: what `report_to` and `push_to_hub` write into REPORT_DIR by default
_OWN_FOLDERS = ("tables", "figures", "tensorboard", "hub")


def install(tmp: str, out: str) -> list[str]:
    """Make the report built in `tmp` be `out`'s report (see the module's doc). Returns the
    paths of the report's files under `out`."""
    ours = sorted(os.path.relpath(os.path.join(root, f), tmp)
                  for root, _dirs, files in os.walk(tmp) for f in files)
    if not os.path.isdir(out):
        replace_dir(tmp, out)
        return [os.path.join(out, rel) for rel in ours]
    _merge(out, tmp, link=False)   # anything in the way: refused, nothing changed yet
    swapped = False
    if _swappable(out):
        try:
            _merge(out, tmp, link=True)
            os.chmod(tmp, stat.S_IMODE(os.stat(out).st_mode))
            old = replace_dir(tmp, out)   # raises before changing anything, or is done
            swapped = True
        except (_CannotLink, OSError):
            swapped = False
        if swapped:
            if old is not None:
                _rescue(old, out)
                remove(old)
    if not swapped:
        for rel in ours:   # checked above: every parent is a folder or absent
            dst = os.path.join(out, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            os.replace(os.path.join(tmp, rel), dst)
    return [os.path.join(out, rel) for rel in ours]
