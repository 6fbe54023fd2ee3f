"""Writing an audit's files: all built in memory first, then each written to a temporary
file beside its place and renamed over it, so a reader never sees half a file and a bad
input (found before this point) leaves the folder as it was. Other files there are kept."""

from __future__ import annotations

import os
import secrets
from typing import Mapping

from ..errors import OptionError


def write_files(out: str, files: Mapping[str, str]) -> tuple[str, list[str]]:
    """Write `files` (name -> text) into the folder `out` (created if needed)."""
    out = os.path.abspath(out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise OptionError("out", f"{out}: exists and is not a folder; expected a folder")
    os.makedirs(out, exist_ok=True)
    written = []
    for name, text in files.items():
        dst = os.path.join(out, name)
        # Not mkstemp: its files are private (0600); these get the user's usual mode.
        tmp = os.path.join(out, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            os.replace(tmp, dst)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        written.append(dst)
    return out, written
