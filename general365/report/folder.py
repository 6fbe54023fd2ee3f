"""Putting a report built aside into its folder, all or nothing.

The report is built in a temporary folder beside REPORT_DIR. Files already in REPORT_DIR
that the report does not write (a user's notes, say) are hard-linked into the new folder
(the same files, not copies), then the new folder and REPORT_DIR are exchanged in one
step (fsutil.replace_dir). So a reader, or a kill at any moment, sees the old report or the
new one, never a mix; and a path in the way (a file named `figures`, a folder named
`index.html`) is refused before anything changes.

Where a file cannot be hard-linked (another filesystem mounted inside REPORT_DIR, a file
the user may not link), the files are moved in one by one instead, after the same checks:
still nothing changes when a path is in the way, but a kill during the moves can leave a
mix of old and new files (rerun the command).
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


def install(tmp: str, out: str) -> list[str]:
    """Make the report built in `tmp` be `out`'s report (see the module's doc). Returns the
    paths of the report's files under `out`."""
    ours = sorted(os.path.relpath(os.path.join(root, f), tmp)
                  for root, _dirs, files in os.walk(tmp) for f in files)
    if os.path.isdir(out):
        _merge(out, tmp, link=False)   # anything in the way: refused, nothing changed yet
        try:
            _merge(out, tmp, link=True)
            linked = True
        except _CannotLink:
            linked = False
        if linked:
            os.chmod(tmp, stat.S_IMODE(os.stat(out).st_mode))
            old = replace_dir(tmp, out)
            if old is not None:
                _rescue(old, out)
                remove(old)
        else:
            for rel in ours:   # checked above: every parent is a folder or absent
                dst = os.path.join(out, rel)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                os.replace(os.path.join(tmp, rel), dst)
    else:
        replace_dir(tmp, out)
    return [os.path.join(out, rel) for rel in ours]
