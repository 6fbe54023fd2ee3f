"""The dataset verbs as library functions (`general365 dataset ...` only wires these)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import OptionError
from .hub import BuildResult, build_folder, folder_splits, push_folder, recover_out
from .official import ImportResult, import_source


@dataclass
class DatasetBuild:
    imported: ImportResult
    built: BuildResult
    restored: str | None = None   # an interrupted build's folder, put back first


def build_dataset(source: str, out: str, *, split: str = "public", linkage: str | None = None,
                  overwrite: bool = False, add: bool = False,
                  license: str | None = None) -> DatasetBuild:
    """Import and validate `source`, then write the Hub folder at `out`, all or nothing.
    `add` keeps the folder's other split beside this one."""
    folder = Path(out).expanduser()
    # A build killed between its two renames left no folder at `out`, only the old one set
    # aside: put it back before anything reads it (`add` reads its other split).
    restored = recover_out(folder)
    result = import_source(source, split=split, linkage_file=linkage)
    splits = {}
    if add:
        if not (folder / "README.md").is_file():
            raise OptionError("add", f": {folder} is not a folder written by `dataset build`")
        for other in folder_splits(folder):
            if other != split:
                splits[other] = import_source(str(folder), split=other).problems
    splits[split] = result.problems
    built = build_folder(folder, splits, source=result.source, license=license,
                         overwrite=overwrite or add, notes=result.notes)
    return DatasetBuild(result, built, str(restored) if restored else None)


def push_dataset(folder: str, repo: str, *, private: bool = False,
                 token_env: str = "HF_TOKEN") -> str:
    """Upload a folder written by build_dataset as a Hub dataset repo; its URL."""
    token = os.environ.get(token_env)
    if token_env != "HF_TOKEN" and not token:
        raise OptionError("token_env", f"{token_env}: that environment variable is not set")
    return push_folder(folder, repo, private=private, token=token or None)
