"""Raw rows from wherever the data is: a Hub id, a parquet / JSON / JSON Lines file, a folder
of them (also one written by `dataset build`), or the bundled sample. A reader only reads:
each row is a plain dict with the file and line (or 1-based row) that messages name.
"""

from __future__ import annotations

import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ..errors import DataError, UserError
from ..jsonl import NotJSON, parse as parse_json, text_values

DATA_SUFFIXES = (".parquet", ".jsonl", ".json")
SPLITS = ("public", "test")


def check_split(split: str) -> None:
    if split not in SPLITS:
        raise UserError(f"unknown split {split!r}; expected public or test")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_TRUE = {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class RawRow:
    data: dict[str, Any]
    path: str
    line: int


def hub_unreachable_reason(timeout: float = 2.0) -> str | None:
    """Why the Hub cannot be reached (the offline switches first, then a short connect), or
    None."""
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


def _require_hub(what: str, then: str) -> None:
    """Refuse with `what (why). [what to unset]then` when the Hub cannot be reached."""
    reason = hub_unreachable_reason()
    if reason:
        var = next((v for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
                    if reason.startswith(v)), None)
        hint = f"If this machine has network, unset {var} and run again. " if var else ""
        raise UserError(f"{what} ({reason}). {hint}{then}")


def require_hub(hub_id: str) -> None:
    _require_hub(f"the dataset {hub_id} is on the Hugging Face Hub, which cannot be reached",
                 f"Where the Hub is reachable, run `general365 dataset build --source {hub_id} "
                 f"--out DIR` and copy DIR here, then pass source=DIR (or --source DIR); or use "
                 f"source=\"sample\" (--source sample) for the bundled sample, which needs no "
                 f"network.")


def require_hub_for_upload(folder: str, repo: str) -> None:
    _require_hub(f"cannot upload to {repo}: the Hugging Face Hub cannot be reached",
                 f"The folder {folder} is checked and ready: copy it to a machine that reaches "
                 f"the Hub and run `general365 dataset push DIR --repo {repo}` there.")


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
    """The requested split, or the source's only one (the official release's `test` is
    this project's `public`)."""
    if split in available:
        return split, []
    if len(available) == 1:
        return available[0], [f"{what} has one split, {available[0]!r}: read as {split!r}"]
    raise UserError(f"{what} has no split {split!r}; it has: {', '.join(available)}")


def read_front_matter(readme: Path) -> dict[str, Any]:
    import yaml

    lines = read_text(readme).lstrip("\ufeff").split("\n")
    if lines[0].rstrip() != "---":
        return {}
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if end is None:
        raise DataError("front matter never closed", path=str(readme), line=1,
                        expected="a line '---' after the YAML")
    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise DataError(f"bad YAML front matter ({what})", path=str(readme),
                        line=None if mark is None else mark.line + 2,
                        expected="valid YAML between the '---' lines") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise DataError("front matter is not a mapping", path=str(readme), line=2,
                        value=data, expected="YAML keys such as configs:")
    return data


@dataclass(frozen=True)
class CardConfig:
    name: str
    splits: dict[str, tuple[str, ...]]
    default: bool = False


_CONFIGS_EXPECTED = "a list of {config_name, data_files} mappings"


def card_configs(meta: dict[str, Any], readme: Path) -> list[CardConfig]:
    """The card's `configs:`, checked key by key (a malformed card is one line naming the
    key, never a TypeError deep in a reader)."""
    raw = meta.get("configs")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise DataError("not a list", path=str(readme), field="configs", value=raw,
                        expected=_CONFIGS_EXPECTED)
    out: list[CardConfig] = []
    for i, entry in enumerate(raw):
        key = f"configs[{i}]"
        if not isinstance(entry, dict):
            raise DataError("not a mapping", path=str(readme), field=key, value=entry,
                            expected="a mapping with config_name and data_files")
        name = entry.get("config_name", "default")
        if not isinstance(name, str) or not name:
            raise DataError("bad config_name", path=str(readme), field=f"{key}.config_name",
                            value=name, expected="a non-empty string")
        if any(c.name == name for c in out):
            raise DataError("config named twice", path=str(readme), field=f"{key}.config_name",
                            value=name, expected="each config_name once")
        default = entry.get("default", False)
        if not isinstance(default, bool):
            raise DataError("bad default", path=str(readme), field=f"{key}.default",
                            value=default, expected="true or false")
        out.append(CardConfig(name, _data_files(entry.get("data_files"), readme,
                                                f"{key}.data_files"), default))
    return out


def _data_files(raw: Any, readme: Path, key: str) -> dict[str, tuple[str, ...]]:
    expected = ("a path, a list of paths, or a list of {split, path} mappings "
                "(path: a relative glob or a list of them)")
    if isinstance(raw, str) or (isinstance(raw, list) and raw
                                and all(isinstance(x, str) for x in raw)):
        return {"train": _patterns(raw, readme, key)}  # the Hub's name for a lone split
    if not isinstance(raw, list) or not raw or not all(isinstance(x, dict) for x in raw):
        raise DataError("missing" if raw is None else "bad data_files", path=str(readme),
                        field=key, value=raw, expected=expected)
    splits: dict[str, tuple[str, ...]] = {}
    for j, d in enumerate(raw):
        split = d.get("split", "train")
        if not isinstance(split, str) or not split:
            raise DataError("bad split", path=str(readme), field=f"{key}[{j}].split",
                            value=split, expected="a split name (a string)")
        if split in splits:
            raise DataError("split named twice", path=str(readme), field=f"{key}[{j}].split",
                            value=split, expected="each split once per config")
        splits[split] = _patterns(d.get("path"), readme, f"{key}[{j}].path")
    return splits


def _patterns(raw: Any, readme: Path, key: str) -> tuple[str, ...]:
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list) or not items:
        raise DataError("missing" if raw is None else "bad path", path=str(readme), field=key,
                        value=raw, expected="a relative path or glob, or a non-empty list of them")
    for p in items:
        if (not isinstance(p, str) or not p.strip() or p.startswith(("/", "\\"))
                or ".." in Path(p).parts):
            raise DataError("bad path", path=str(readme), field=key, value=p,
                            expected="a path or glob relative to the card's folder")
    return tuple(items)


def config_files(folder: Path, configs: list[CardConfig], config: str | None,
                 split: str) -> tuple[list[Path], list[str]]:
    by_name = {c.name: c for c in configs}
    if config is None:
        config = ("all" if "all" in by_name else
                  next((c.name for c in configs if c.default), None)
                  or next(iter(by_name), None))
    if config not in by_name:
        raise DataError(f"no config {config!r}", path=str(folder / "README.md"),
                        field="configs", expected="one of: " + (", ".join(by_name) or "(none)"))
    splits = by_name[config].splits
    name, notes = pick_split(list(splits), split, f"{folder} (config {config!r})")
    files: list[Path] = []
    for pattern in splits[name]:
        matched = sorted(p for p in folder.glob(pattern) if p.is_file())
        if not matched:
            raise DataError("no file matches", path=str(folder / "README.md"),
                            field="configs", value=pattern, expected="an existing data file")
        files.extend(m for m in matched if m not in files)
    return files, notes


def read_text(path: Path, encoding: str = "utf-8") -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        # The line (and column) of the bad byte: what a user opens the file at. (utf-8-sig
        # counts from after the BOM it strips.)
        at = exc.start + (3 if encoding == "utf-8-sig" and data.startswith(b"\xef\xbb\xbf")
                          else 0)
        line = data.count(b"\n", 0, at) + 1
        column = at - (data.rfind(b"\n", 0, at) + 1) + 1
        raise DataError(f"not UTF-8 text (byte 0x{data[at]:02x} at column {column})",
                        path=str(path), line=line, expected="UTF-8 text") from None


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
            whole = parse_json(text, path=str(path), expected="a JSON array of rows")
        except NotJSON:
            whole = None  # many ".json" files are JSON Lines; read them as such below
        if isinstance(whole, dict) and len(whole) == 1 and isinstance(
                next(iter(whole.values())), list):
            whole = next(iter(whole.values()))  # {"data": [...]}
        if isinstance(whole, list):
            return [RawRow(r, str(path), i) for i, r in enumerate(whole, start=1)]
    return [RawRow(value, str(path), n) for n, value in text_values(text, str(path))]


def data_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and p.suffix.lower() in DATA_SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(folder).parts))


def read_source(source: str, *, split: str) -> tuple[list[RawRow], str, list[str]]:
    """(rows, a short description of the source, notes for the user)."""
    if source == "sample":
        if split != "public":
            raise UserError("the bundled sample has only the 'public' split")
        from .sample import sample_files

        return [r for f in sample_files() for r in read_file(f)], "sample", []
    path = Path(source).expanduser()
    if path.is_file():
        return read_file(path), str(path), []
    if path.is_dir():
        readme = path / "README.md"
        configs = card_configs(read_front_matter(readme), readme) if readme.is_file() else []
        files, notes = config_files(path, configs, None, split) if configs else (
            data_files(path), [])
        if not files:
            raise UserError(f"{path}: no .parquet, .jsonl or .json files in this folder")
        return [r for f in files for r in read_file(f)], str(path), notes
    if looks_like_hub_id(source):
        return _read_hub(source, split)
    raise UserError(f"{source}: no such file or folder, and not a Hub id (ORG/NAME)")
