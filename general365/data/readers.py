"""Raw rows from wherever the data is: a Hub id, a parquet / JSON / JSON Lines file, a folder
of them (also a folder written by `dataset build`), or the bundled sample.

A reader only reads: each row comes back as a plain dict with the file and the line (for
parquet and JSON arrays: the 1-based row number) that error messages name. Checking and
mapping rows is the importer's job.
"""

from __future__ import annotations

import json
import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ..errors import DataError, UserError

DATA_SUFFIXES = (".parquet", ".jsonl", ".json")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_TRUE = {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class RawRow:
    data: dict[str, Any]
    path: str
    line: int


# --- the Hub --------------------------------------------------------------------------


def hub_unreachable_reason(timeout: float = 2.0) -> str | None:
    """Why the Hub cannot be reached, or None when a TCP connection to it opens.

    The offline switches are read first so that an offline machine answers at once; the
    connect has a short timeout so that a machine without network does not hang."""
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in _TRUE:
            return f"{var}={os.environ[var]} is set"
    endpoint = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    host = endpoint.hostname or "huggingface.co"
    port = endpoint.port or (80 if endpoint.scheme == "http" else 443)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        return f"cannot connect to {host}:{port} ({exc.__class__.__name__}: {exc})"
    return None


def require_hub(hub_id: str) -> None:
    reason = hub_unreachable_reason()
    if reason:
        raise UserError(
            f"the dataset {hub_id} is on the Hugging Face Hub, which cannot be reached "
            f"({reason}). Where the Hub is reachable, run `general365 dataset build "
            f"--source {hub_id} --out DIR` and copy DIR here, then pass source=DIR (or "
            f"--source DIR); or use source=\"sample\" (--source sample) for the bundled "
            f"sample, which needs no network.")


def looks_like_hub_id(source: str) -> bool:
    return bool(_HUB_ID.match(source)) and not os.path.exists(source)


def _read_hub(hub_id: str, split: str) -> tuple[list[RawRow], str, list[str]]:
    require_hub(hub_id)
    import datasets

    try:
        dd = datasets.load_dataset(hub_id)
    except Exception as exc:  # the Hub's errors are many; the user needs the one line
        raise UserError(f"could not load {hub_id} from the Hub: {exc}") from None
    name, notes = pick_split(list(dd.keys()), split, hub_id)
    where = f"hub:{hub_id}[{name}]"
    return ([RawRow(dict(r), where, i) for i, r in enumerate(dd[name].to_list(), start=1)],
            where, notes)


def pick_split(available: list[str], split: str, what: str) -> tuple[str, list[str]]:
    """The requested split, or the source's only split (the official release names its one
    split `test`; it is what this project calls `public`)."""
    if split in available:
        return split, []
    if len(available) == 1:
        return available[0], [f"{what} has one split, {available[0]!r}: read as {split!r}"]
    raise UserError(f"{what} has no split {split!r}; it has: {', '.join(available)}")


# --- files ----------------------------------------------------------------------------


def read_front_matter(readme: Path) -> dict[str, Any]:
    """The YAML front matter of a dataset card ({} when it has none)."""
    import yaml

    text = read_text(readme)
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        raise DataError("front matter never closed", path=str(readme),
                        expected="a line '---' after the YAML")
    try:
        data = yaml.safe_load(text[3:end]) or {}
    except yaml.YAMLError as exc:
        raise DataError(f"bad YAML front matter ({exc})", path=str(readme)) from None
    if not isinstance(data, dict):
        raise DataError("front matter is not a mapping", path=str(readme))
    return data


def config_files(folder: Path, meta: dict[str, Any], config: str | None,
                 split: str) -> tuple[list[Path], list[str]]:
    """The files of one config and split of a Hub-style folder, per its card's `configs:`."""
    configs = meta.get("configs") or []
    by_name = {c.get("config_name"): c for c in configs if isinstance(c, dict)}
    if config is None:
        config = ("all" if "all" in by_name else
                  next((n for n, c in by_name.items() if c.get("default")), None)
                  or next(iter(by_name), None))
    if config not in by_name:
        raise UserError(f"{folder} has no config {config!r}; it has: {', '.join(map(str, by_name))}")
    data_files = by_name[config].get("data_files")
    if isinstance(data_files, (str, list)) and not (
            isinstance(data_files, list) and data_files and isinstance(data_files[0], dict)):
        data_files = [{"split": "train", "path": data_files}]
    splits = {d["split"]: d["path"] for d in data_files or [] if isinstance(d, dict)}
    name, notes = pick_split(list(splits), split, f"{folder} (config {config!r})")
    patterns = splits[name] if isinstance(splits[name], list) else [splits[name]]
    files: list[Path] = []
    for pattern in patterns:
        matched = sorted(folder.glob(pattern))
        if not matched:
            raise DataError("no file matches", path=str(folder / "README.md"),
                            field="configs", value=pattern, expected="an existing data file")
        files.extend(m for m in matched if m not in files)
    return files, notes


def read_text(path: Path, encoding: str = "utf-8") -> str:
    try:
        return path.read_text(encoding=encoding)
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text (byte {exc.start})", path=str(path)) from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_file(path: Path) -> list[RawRow]:
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
        except Exception as exc:
            raise DataError(f"not a readable parquet file ({exc})", path=str(path)) from None
        return [RawRow(r, str(path), i) for i, r in enumerate(table.to_pylist(), start=1)]
    if suffix not in (".jsonl", ".json"):
        raise UserError(f"{path}: unsupported file type; expected .parquet, .jsonl or .json")
    text = read_text(path)
    if suffix == ".json":
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None  # many ".json" files are JSON Lines; read them as such below
        if isinstance(whole, dict) and len(whole) == 1 and isinstance(
                next(iter(whole.values())), list):
            whole = next(iter(whole.values()))  # {"data": [...]}
        if isinstance(whole, list):
            return [RawRow(r, str(path), i) for i, r in enumerate(whole, start=1)]
    rows = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(RawRow(json.loads(line), str(path), line_no))
        except json.JSONDecodeError as exc:
            raise DataError(f"not valid JSON ({exc.msg})", path=str(path), line=line_no,
                            expected="one JSON object a line") from None
    return rows


def _folder_files(folder: Path, split: str) -> tuple[list[Path], list[str]]:
    readme = folder / "README.md"
    meta = read_front_matter(readme) if readme.is_file() else {}
    if meta.get("configs"):
        return config_files(folder, meta, None, split)
    files = sorted(p for p in folder.rglob("*")
                   if p.is_file() and p.suffix.lower() in DATA_SUFFIXES
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    if not files:
        raise UserError(f"{folder}: no .parquet, .jsonl or .json files in this folder")
    return files, []


def read_source(source: str, *, split: str) -> tuple[list[RawRow], str, list[str]]:
    """(rows, a short description of the source, notes for the user)."""
    if source == "sample":
        if split != "public":
            raise UserError("the bundled sample has only the 'public' split")
        from .sample import sample_dir, sample_files

        files = sample_files()
        if not files:
            raise UserError(f"the bundled sample is missing: no *.jsonl in {sample_dir()}")
        return [r for f in files for r in read_file(f)], "sample", []
    path = Path(source).expanduser()
    if path.is_file():
        return read_file(path), str(path), []
    if path.is_dir():
        files, notes = _folder_files(path, split)
        return [r for f in files for r in read_file(f)], str(path), notes
    if looks_like_hub_id(source):
        return _read_hub(source, split)
    raise UserError(f"{source}: no such file or folder, and not a Hub id (ORG/NAME)")
