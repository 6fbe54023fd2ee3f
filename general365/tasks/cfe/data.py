"""CFE-Bench problems read from the release's folder, one of its files or a Hub copy
(docs/cfe-bench.md, "Data": the layout, the optional fields, repeated ids). Loading is
all-or-nothing: every row is checked (release_rows.py) and every bad row reported.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

from ...errors import DataError, UserError
from ...jsonl import parse as parse_json
from .records import (BENCHMARK, DATA_ENV, DUPLICATE_MARK, FILES, HUB_ID, MAX_TOLERANCE,
                      SUBSETS, CFEData, CFEProblem, FlowStep, Variable, VariableType)
from .release_rows import parse_row, parse_rows

__all__ = ["BENCHMARK", "CFEData", "CFEProblem", "DATA_ENV", "DUPLICATE_MARK", "FILES",
           "FlowStep", "HUB_ID", "MAX_TOLERANCE", "SUBSETS", "Variable", "VariableType",
           "default_folder", "index", "load", "load_file", "load_folder", "load_hub",
           "parse_row", "parse_rows"]


# --- files and folders ------------------------------------------------------------------


def _read_array(path: Path) -> list[Any]:
    from ...data.readers import read_text

    if not path.is_file():
        raise UserError(f"{path}: no such file")
    value = parse_json(read_text(path), path=str(path), expected="a JSON array of problems")
    if not isinstance(value, list):
        raise DataError("not a JSON array", path=str(path), value=type(value).__name__,
                        expected="a JSON array of problems (the release's format)")
    return value



def _subset_files(folder: Path, subset: str) -> list[tuple[Path, str]]:
    if subset not in SUBSETS:
        raise UserError(f"unknown CFE-Bench subset {subset!r}; expected one of "
                        f"{', '.join(SUBSETS)}")
    wanted = ("text", "mm") if subset == "all" else (subset,)
    return [(folder / FILES[m], m) for m in wanted]


def load_folder(folder: str | os.PathLike, subset: str = "all") -> CFEData:
    """The release's folder (CFE_text.json, CFE_mm.json, images/)."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder (expected the CFE-Bench release: "
                        f"{FILES['text']}, {FILES['mm']}, images/)")
    files = _subset_files(folder, subset)
    missing = [p.name for p, _ in files if not p.is_file()]
    if missing:
        raise UserError(f"{folder}: no {', '.join(missing)} (expected the CFE-Bench release "
                        f"format: {FILES['text']}, {FILES['mm']} and images/)")
    problems, notes = parse_rows([(p, m, _read_array(p)) for p, m in files], folder=folder)
    return CFEData(str(folder), problems, notes)


def load_file(path: str | os.PathLike) -> CFEData:
    """One file in the release's format; images resolve against the file's folder, and a
    row is multimodal when it has images (or the file is named CFE_mm.json)."""
    path = Path(path).expanduser()
    modality = {v: k for k, v in FILES.items()}.get(path.name)
    problems, notes = parse_rows([(path, modality, _read_array(path))], folder=path.parent)
    return CFEData(str(path), problems, notes)


def load_hub(hub_id: str, subset: str = "all", *, revision: str | None = None) -> CFEData:
    """A copy of the release on the Hugging Face Hub, in the release's layout: the JSON files
    and the images are fetched (to the Hub cache) and read as a folder. Refused at once,
    with what to do, when the Hub cannot be reached."""
    from ...data.readers import require_hub

    require_hub(hub_id)
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        from ...errors import MissingExtra

        raise MissingExtra("huggingface_hub", "data") from None
    patterns = [name for _, name in sorted(FILES.items())] + ["images/**"]
    try:
        local = snapshot_download(hub_id, repo_type="dataset", revision=revision,
                                  allow_patterns=patterns)
    except Exception as exc:   # the Hub's errors are many; the user needs the one line
        raise UserError(f"could not fetch {hub_id} from the Hub: {exc}") from None
    data = load_folder(local, subset)
    data.source = f"hub:{hub_id}" + (f"@{revision}" if revision else "")
    return data


def default_folder() -> Path | None:
    """$CFE_BENCH_DATA, when set."""
    value = os.environ.get(DATA_ENV)
    return Path(value).expanduser() if value else None


def load(source: str | os.PathLike | None = None, subset: str = "all") -> CFEData:
    """A folder, a file, or a Hub id (ORG/NAME); None: $CFE_BENCH_DATA."""
    if source is None:
        source = default_folder()
        if source is None:
            raise UserError(f"no CFE-Bench source: give the release's folder (with "
                            f"{FILES['text']}, {FILES['mm']}, images/) or set ${DATA_ENV}")
    path = Path(source).expanduser()
    if path.is_dir():
        return load_folder(path, subset)
    if path.is_file():
        data = load_file(path)
        if subset != "all":
            data.problems = data.subset(subset)
        return data
    from ...data.readers import looks_like_hub_id

    if looks_like_hub_id(str(source)):
        return load_hub(str(source), subset)
    raise UserError(f"{source}: no such file or folder, and not a Hub id (ORG/NAME)")


def index(problems: Sequence[CFEProblem]) -> dict[str, CFEProblem]:
    out: dict[str, CFEProblem] = {}
    for p in problems:
        if p.id in out:
            raise DataError("duplicated id", row_id=p.id, field="id", expected="each id once")
        out[p.id] = p
    return out
