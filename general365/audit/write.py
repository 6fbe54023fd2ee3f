"""Writing an audit's files: all built in memory first (a bad input, found before this
point, leaves the folder as it was), then written together into the folder: the old set or
the new one, never a mix (folders.write_folder). Other files there are kept."""

from __future__ import annotations

import os
from typing import Mapping

from ..folders import write_folder
from ..fsutil import write_text

TMP_BASE = "general365-audit"


def write_files(out: str, files: Mapping[str, str]) -> tuple[str, list[str]]:
    """Write `files` (name -> text) into the folder `out` (created if needed)."""
    def build(tmp: str) -> None:
        for name, text in files.items():
            write_text(os.path.join(tmp, name), text)

    return write_folder(out, build, base=TMP_BASE, what="the audit")
