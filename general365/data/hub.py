"""The Hub folder (docs/dataset.md): build it (parquet files + dataset card), check it,
push it. The card's `configs:` define seed, variant and all (`all` names both files, no
copy); `datasets.load_dataset(DIR, cfg)` reads the folder as it reads the Hub. `--out` is
checked before anything is written, and `--overwrite` replaces only a folder the build
itself wrote.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..errors import DataError, DataErrors, OptionError, UserError
from ..schema import Problem
from ..fsutil import (hold_lock, recover_dir, release, replace_dir, sweep, temp_name,
                      temp_pattern)
from .readers import (CardConfig, card_configs, check_split, config_files, data_files,
                      read_front_matter)

_REPO = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")
CONFIGS = ("seed", "variant", "all")


def check_out_folder(out: Path, *, overwrite: bool) -> Path:
    """The absolute path to write `out` at, after refusing what must not be replaced."""
    target = out_target(out)
    cwd = Path.cwd().resolve()
    if target.resolve() == cwd or target.resolve() in cwd.parents:
        raise UserError(f"{out}: that is the current folder (or holds it); the build replaces "
                        f"its folder as a whole, so name a new one, e.g. {out / 'hub'}")
    if target.exists() and not target.is_dir():
        raise UserError(f"{out}: exists and is not a folder")
    if target.is_dir() and any(target.iterdir()):
        if not overwrite:
            raise UserError(f"{out}: folder is not empty; choose another --out or pass "
                            "--overwrite")
        why = not_built_reason(target)
        if why:
            raise UserError(f"{out}: not a folder written by `dataset build` ({why}); "
                            "--overwrite replaces only such a folder: choose another --out, "
                            "or move this one away yourself")
    return target


def not_built_reason(folder: Path) -> str | None:
    """Why `folder` is not one `dataset build` wrote (only README.md, our card, and
    data/<config>/*.parquet), or None."""
    for p in sorted(folder.iterdir()):
        if p.name not in ("README.md", "data"):
            return f"it holds {p.name}"
    data = folder / "data"
    if data.exists():
        if not data.is_dir() or data.is_symlink():
            return "data is not a folder"
        for p in sorted(data.rglob("*")):
            rel = p.relative_to(folder)
            ok = (p.is_dir() and len(rel.parts) == 2 and rel.parts[1] in CONFIGS) or (
                p.is_file() and len(rel.parts) == 3 and rel.parts[1] in CONFIGS
                and p.suffix == ".parquet")
            if not ok or p.is_symlink():
                return f"it holds {rel}"
    try:
        if built_configs(folder) is None:
            return "its README.md is not the card `dataset build` writes"
    except UserError as exc:
        return f"its README.md does not read as our card: {exc}"
    return None


def make_parents(shown: Path, parent: Path) -> list[Path]:
    """Make the missing parents of the output folder (returned, outermost first)."""
    missing = []
    p = parent
    while not p.exists():
        if p.is_symlink():  # a dangling link
            raise UserError(f"{shown}: cannot create it: {p} is a broken link")
        missing.append(p)
        p = p.parent
    if not p.is_dir():
        raise UserError(f"{shown}: cannot create it: {p} is a file, not a folder")
    if not os.access(p, os.W_OK | os.X_OK):
        raise UserError(f"{shown}: cannot create it: no permission to write in {p}")
    missing.reverse()
    for d in missing:
        try:
            d.mkdir()
        except OSError as exc:
            raise UserError(f"{shown}: cannot create {d} ({os_reason(exc)})") from None
    return missing


def os_reason(exc: OSError) -> str:
    text = exc.strerror or exc.__class__.__name__
    return f"{text}: {exc.filename}" if exc.filename else text


def make_tmp(parent: Path, name: str) -> Path:
    """A new folder beside the output, named after this process (fsutil.temp_name: a later
    build can tell a killed one's leftovers); os.mkdir, as mkdtemp's 0700 would stay."""
    while True:
        tmp = parent / temp_name(name)
        with suppress(FileExistsError):
            tmp.mkdir()
            return tmp


def out_target(out: Path) -> Path:
    target = Path(os.path.abspath(out))
    return target.resolve() if target.is_symlink() else target


def recover_out(out: Path) -> str | None:
    """Clear what a killed build left beside `out` (the old folder put back, dead builds'
    temporaries removed); the name of a restored folder, or None."""
    target = out_target(out)
    if not target.parent.is_dir():
        return None
    restored = recover_dir(str(target))
    sweep(str(target.parent), temp_pattern(target.name))
    return os.path.basename(restored) if restored else None


def built_configs(folder: Path) -> list[CardConfig] | None:
    """The configs of a folder written by `dataset build` (ours, naming `all`), or None."""
    readme = folder / "README.md"
    if not readme.is_file():
        return None
    configs = card_configs(read_front_matter(readme), readme)
    names = {c.name for c in configs}
    return configs if "all" in names and names <= set(CONFIGS) else None


def base_schema():
    import pyarrow as pa

    return pa.schema([
        ("id", pa.string()), ("seed_id", pa.string()), ("variant", pa.int64()),
        ("question", pa.string()), ("answer", pa.string()), ("answer_type", pa.string()),
        ("float_round", pa.int64()), ("categories", pa.list_(pa.string())),
        ("reasoning", pa.string()), ("source", pa.string()),
    ])


def problems_table(problems: Iterable[Problem]):
    """The Hub folder's columns: the Problem fields, then the source's extra fields (typed
    by Arrow; mixed types stored as JSON text)."""
    import pyarrow as pa

    problems = list(problems)
    table = pa.Table.from_pylist([p.to_dict() for p in problems], schema=base_schema())
    for key in sorted({k for p in problems for k in p.extra}):
        values = [p.extra.get(key) for p in problems]
        try:
            arr = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
            arr = pa.array([None if v is None else json.dumps(v, ensure_ascii=False)
                            for v in values], type=pa.string())
        table = table.append_column(key, arr)
    return table


def to_dataset(problems: Iterable[Problem]):
    import datasets
    from datasets.table import InMemoryTable

    table = problems_table(problems)
    features = datasets.Features.from_arrow_schema(table.schema)
    return datasets.Dataset(InMemoryTable(table), info=datasets.DatasetInfo(features=features))


def _file(config: str, split: str) -> str:
    return f"data/{config}/{split}-00000-of-00001.parquet"


@dataclass
class BuildResult:
    out: Path
    files: list[str]
    rows: dict[str, dict[str, int]] = field(default_factory=dict)  # split -> config -> rows


def build_folder(out: str | Path, splits: dict[str, list[Problem]], *, source: str,
                 overwrite: bool = False, license: str | None = None,
                 notes: list[str] | None = None) -> BuildResult:
    """Write the folder to upload, beside `out` then renamed into place: never half-written.
    `overwrite` replaces only a folder that `dataset build` wrote."""
    shown = Path(out).expanduser()
    for split, problems in splits.items():
        check_split(split)
        if not problems:
            raise UserError(f"split {split!r} has no rows; a dataset folder needs at least "
                            "one problem")
    if not splits:
        raise UserError("no split to write; a dataset folder needs at least one problem")
    recover_out(shown)   # a build killed mid-swap: its old folder back, its temporaries gone
    target = check_out_folder(shown, overwrite=overwrite)
    created = make_parents(shown, target.parent)
    try:
        return _write(shown, target, splits, source=source, license=license, notes=notes)
    except OSError as exc:
        for d in reversed(created):  # the parents this call made, when left empty
            try:
                d.rmdir()
            except OSError:
                break
        raise UserError(f"{shown}: cannot write the folder ({os_reason(exc)})") from None


def _write(shown: Path, target: Path, splits: dict[str, list[Problem]], *, source: str,
           license: str | None, notes: list[str] | None) -> BuildResult:
    import datasets
    import pyarrow.parquet as pq

    from .card import render_card

    # One table for every row, then slices of it: every file gets the same schema (an
    # extra column that is all null in one split still has the other split's type).
    everything = [p for ps in splits.values() for p in ps]
    table = problems_table(everything)
    features = datasets.Features.from_arrow_schema(table.schema)
    tmp = make_tmp(target.parent, target.name)
    lock = hold_lock(str(tmp))   # while held, no other build takes this folder for a leftover
    try:
        result = BuildResult(out=shown, files=["README.md"])
        info: dict[str, dict[str, tuple[int, int, int]]] = {c: {} for c in CONFIGS}
        start = 0
        for split, problems in splits.items():
            idx = {"seed": [start + i for i, p in enumerate(problems) if p.variant == 0],
                   "variant": [start + i for i, p in enumerate(problems) if p.variant > 0]}
            start += len(problems)
            result.rows[split] = {**{c: len(rows) for c, rows in idx.items()},
                                  "all": len(problems)}
            for config, rows in idx.items():
                if not rows:  # `datasets` cannot read an empty split: no file, no entry
                    continue
                part = table.take(rows)
                dest = tmp / _file(config, split)
                dest.parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(part, dest)
                result.files.append(_file(config, split))
                info[config][split] = (len(rows), part.nbytes, dest.stat().st_size)
            parts = [info[c][split] for c in ("seed", "variant") if split in info[c]]
            info["all"][split] = tuple(sum(v[i] for v in parts) for i in range(3))
        card = render_card(info=info, features=features, problems=everything, source=source,
                           license=license, notes=notes or [])
        (tmp / "README.md").write_text(card, encoding="utf-8")
        # One step where the filesystem can (see fsutil.replace_dir): a kill at any moment
        # leaves the old folder or the new one at `out`, never neither.
        old = replace_dir(str(tmp), str(target))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        release(lock)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return result


def folder_splits(folder: Path) -> list[str]:
    readme = folder / "README.md"
    configs = card_configs(read_front_matter(readme), readme)
    return next((list(c.splits) for c in configs if c.name == "all"), [])


def validate_folder(folder: str | Path) -> list[str]:
    """The data files (relative) of a folder `dataset build` wrote, checked: a card whose
    configs name parquet files that exist and carry the Problem columns."""
    import pyarrow.parquet as pq

    folder = Path(folder).expanduser()
    readme = folder / "README.md"
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder")
    if not readme.is_file():
        raise UserError(f"{folder}: no README.md (the dataset card); build the folder with "
                        "`general365 dataset build`")
    meta = read_front_matter(readme)
    if not meta:
        raise DataError("no YAML front matter", path=str(readme), field="configs",
                        expected="the card `dataset build` writes (front matter with configs)")
    configs = card_configs(meta, readme)
    declared = {c.name: c for c in configs}
    missing = [c for c in ("seed", "all") if c not in declared]
    if missing:
        raise DataError("configs missing: " + ", ".join(missing), path=str(readme),
                        field="configs", expected="configs seed, variant (when there are "
                                                  "variants) and all")
    errors: list[DataError] = []
    named: set[Path] = set()
    wanted = set(base_schema().names)
    for config in (c for c in CONFIGS if c in declared):
        for split in declared[config].splits:
            try:
                files, _ = config_files(folder, configs, config, split)
            except UserError as exc:
                errors.append(exc if isinstance(exc, DataError)
                              else DataError(str(exc), path=str(readme), field="configs"))
                continue
            for f in files:
                if f in named:
                    continue
                named.add(f)
                try:
                    cols = set(pq.read_schema(f).names)
                except Exception as exc:
                    errors.append(DataError(f"not a readable parquet file ({exc})", path=str(f)))
                    continue
                if wanted - cols:
                    errors.append(DataError("columns missing: " + ", ".join(sorted(wanted - cols)),
                                            path=str(f), expected="the Problem columns"))
    errors.extend(DataError("data file not named by the card's configs", path=str(p),
                            expected="only the files that the configs name")
                  for p in data_files(folder) if p not in named)
    if errors:
        raise DataErrors(errors)
    return sorted(str(f.relative_to(folder)) for f in named)


def push_folder(folder: str | Path, repo: str, *, private: bool = False,
                token: str | None = None, api: Any = None) -> str:
    """Upload a built folder as a Hub dataset repo (`api`: an HfApi); its URL."""
    if not _REPO.match(repo):
        raise OptionError("repo", f"{repo!r}: expected ORG/NAME (e.g. my-org/General365)")
    folder = Path(folder).expanduser()
    files = validate_folder(folder)
    if api is None:
        from huggingface_hub import HfApi

        from .readers import require_hub_for_upload

        require_hub_for_upload(str(folder), repo)
        api = HfApi(token=token)
    return upload_dataset(api, repo, str(folder), private=private,
                          commit_message=f"Upload General365 dataset folder ({len(files)} "
                                         "data files)")


def upload_dataset(api: Any, repo: str, folder: str, *, private: bool, **upload: Any) -> str:
    """Create the Hub dataset repo `repo` if needed and upload `folder` to it (`upload`:
    upload_folder's other arguments); its URL. A network or Hub refusal is one line."""
    try:
        api.create_repo(repo_id=repo, repo_type="dataset", private=private, exist_ok=True)
        api.upload_folder(repo_id=repo, repo_type="dataset", folder_path=folder, **upload)
    except Exception as exc:
        if not is_hub_error(exc):
            raise
        raise UserError(f"upload to {repo} failed: {exc}") from None
    return f"https://huggingface.co/datasets/{repo}"


def is_hub_error(exc: Exception) -> bool:
    """Network and Hub refusals are the user's to fix; anything else keeps its traceback."""
    if isinstance(exc, OSError):
        return True
    try:
        from huggingface_hub.errors import HfHubHTTPError

        if isinstance(exc, HfHubHTTPError):
            return True
    except ImportError:
        pass
    # A transport error that huggingface_hub lets through unwrapped: httpx's (huggingface_hub
    # 1.x) or requests' (0.x; those are OSErrors already). Recognised by the class's module,
    # so that general365 need not import (nor declare) the Hub client's HTTP library.
    return any(cls.__module__.split(".")[0] == "httpx" for cls in type(exc).__mro__)
