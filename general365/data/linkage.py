"""Seed/variant linkage and categories for imported rows (docs/dataset.md, "Linkage").

For each row, the first rule that applies wins:
1. the row's id is in the user's `--linkage FILE`             -> method "file"
2. the row carries `seed_id` and/or `variant`                   -> method "fields"
3. its id is `<seed>-v<k>`, `<seed>_v<k>`, `<seed>-<k>` or `<seed>_<k>` (k >= 1) and
   `<seed>` is the id of another row of the same source        -> method "id-pattern"
4. otherwise the row is its own seed, variant 0                 -> method "none"
Categories come from the linkage file, else the row's `categories`, `category` or `tags`
(tags that are not category names are ignored there, and kept in `extra`); a variant with
none inherits its seed's.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DataError, DataErrors, UserError
from ..schema import Category
from ..schema.records import as_int
from ..validators import is_int

_PATTERNS = (
    # ASCII digits, at most 9: int() of a 5,000-digit suffix would raise (CPython's limit).
    re.compile(r"^(?P<seed>.+)[-_][vV](?P<k>[0-9]{1,9})$"),
    re.compile(r"^(?P<seed>.+)[-_](?P<k>[0-9]{1,9})$"),
)


def _key(name: str) -> str:
    k = re.sub(r"[^a-z0-9]", "", name.lower().replace("&", "and"))
    return k[: -len("reasoning")] if k.endswith("reasoning") else k


# "Spatial & Temporal Reasoning" (the paper's heading), "spatial_and_temporal", ... -> canonical
_CATEGORY_KEYS = {_key(c.value): c.value for c in Category}


def normalize_categories(value: Any, *, strict: bool = True) -> Any:
    """Canonical category names. Unknown names stay as they are when strict (so that the
    schema reports them) and are dropped otherwise (free-form tags)."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [v for v in re.split(r"[;,|]", value) if v.strip()]
    if not isinstance(value, (list, tuple)):
        return value if strict else []
    out = []
    for v in value:
        c = _CATEGORY_KEYS.get(_key(v)) if isinstance(v, str) else None
        if c is None and strict:
            c = v
        if c is not None and c not in out:
            out.append(c)
    return out


def split_id(pid: str) -> tuple[str, int] | None:
    for pattern in _PATTERNS:
        m = pattern.match(pid)
        if m and int(m["k"]) >= 1:
            return m["seed"], int(m["k"])
    return None


@dataclass(frozen=True)
class Linkage:
    """One line of a `--linkage` file."""

    id: str
    seed_id: str
    variant: int
    categories: tuple[str, ...]
    path: str
    line: int


def read_linkage_file(path: str) -> dict[str, Linkage]:
    p = Path(path)
    if not p.is_file():
        raise UserError(f"{path}: linkage file not found")
    from ..jsonl import split_lines, text_values
    from .readers import read_text

    text = read_text(p, encoding="utf-8-sig")  # -sig: a CSV saved by a spreadsheet has a BOM
    if p.suffix.lower() == ".csv":
        reader = csv.DictReader(split_lines(text))
        names = list(reader.fieldnames or [])
        twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if twice is not None:   # DictReader would keep the last column silently
            raise DataError(f"the column {twice!r} appears twice in the header", path=path,
                            line=1, expected="each column once (which was meant is "
                                             "ambiguous)")
        missing = {"id", "seed_id", "variant"} - set(names)
        if missing:
            raise DataError("missing column(s) " + ", ".join(sorted(missing)), path=path,
                            line=1, expected="a header id,seed_id,variant[,categories]")
        # line_num: the file's line even when a quoted cell spans lines
        records = [(reader.line_num, row) for row in reader]
    else:
        records = text_values(text, path)
    out: dict[str, Linkage] = {}
    errors: list[DataError] = []
    for line, rec in records:
        try:
            lk = _linkage_record(rec, path, line)
        except DataError as exc:
            errors.append(exc)
            continue
        if lk.id in out:
            errors.append(DataError("id given twice", path=path, line=line, row_id=lk.id,
                                    field="id", expected=f"each id once (first at line "
                                                         f"{out[lk.id].line})"))
            continue
        out[lk.id] = lk
    if errors:
        raise DataErrors(errors)
    return out


def _linkage_record(rec: Any, path: str, line: int) -> Linkage:
    where = {"path": path, "line": line}
    if not isinstance(rec, dict):
        raise DataError("not an object", expected="{id, seed_id, variant[, categories]}", **where)
    pid = str(rec.get("id") or "").strip()
    if not pid:
        raise DataError("missing field", field="id", **where)
    variant = as_int(rec.get("variant"))
    if not is_int(variant) or variant < 0:
        raise DataError("bad variant", row_id=pid, field="variant", value=rec.get("variant"),
                        expected="an integer >= 0 (0 for a seed)", **where)
    seed_id = str(rec.get("seed_id") or "").strip() or (pid if variant == 0 else "")
    if not seed_id:
        raise DataError("missing field", row_id=pid, field="seed_id",
                        expected="the id of this variant's seed", **where)
    cats = normalize_categories(rec.get("categories") or [])
    bad = [c for c in cats if c not in Category.values()] if isinstance(cats, list) else [cats]
    if bad:
        raise DataError("unknown category", row_id=pid, field="categories", value=bad[0],
                        expected="one of " + ", ".join(Category.values()), **where)
    return Linkage(pid, seed_id, variant, tuple(cats), path, line)


def derive(rows: list, linkage: dict[str, Linkage]):
    """Rows as Problem dicts (None for a row that is not an object), the rows per method,
    and the errors found."""
    errors: list[DataError] = []
    ids = {str(r.data.get("id")) for r in rows if isinstance(r.data, dict)}
    explicit: dict[str, set[int]] = {}
    for r in rows:
        if isinstance(r.data, dict) and r.data.get("seed_id") not in (None, ""):
            v = as_int(r.data.get("variant"))
            if isinstance(v, int):
                explicit.setdefault(str(r.data["seed_id"]), set()).add(v)
    counters: dict[str, int] = {}
    methods: Counter = Counter()
    out: list[dict | None] = []
    for r in rows:
        if not isinstance(r.data, dict):
            errors.append(DataError("not an object", path=r.path, line=r.line,
                                    value=r.data, expected="a JSON object (one row)"))
            out.append(None)
            continue
        d = dict(r.data)
        pid = str(d.get("id")) if d.get("id") is not None else ""
        cats = normalize_categories(d.get("categories"))
        for key, strict in (("category", True), ("tags", False)):
            if not cats and d.get(key) is not None:
                cats = normalize_categories(d[key], strict=strict)
        lk = linkage.get(pid)
        if lk is not None:
            d["seed_id"], d["variant"], method = lk.seed_id, lk.variant, "file"
            cats = list(lk.categories) or cats
        elif d.get("seed_id") not in (None, "") or d.get("variant") is not None:
            method = "fields"
            _fill_from_fields(d, pid, explicit, counters, r, errors)
        else:
            parts = split_id(pid)
            if parts and parts[0] in ids:
                d["seed_id"], d["variant"], method = parts[0], parts[1], "id-pattern"
            else:
                d["seed_id"], d["variant"], method = pid, 0, "none"
        d["categories"] = cats
        methods[method] += 1
        out.append(d)
    _inherit_categories(out)
    return out, methods, errors


def _fill_from_fields(d: dict, pid: str, explicit, counters, r, errors) -> None:
    variant = as_int(d.get("variant"))
    seed_id = d.get("seed_id")
    seed_id = str(seed_id) if seed_id not in (None, "") else None
    parts = split_id(pid)
    if seed_id is None:
        if variant == 0:
            seed_id = pid
        elif parts is None:
            errors.append(DataError("a variant without seed_id", path=r.path, line=r.line,
                                    row_id=pid, field="seed_id",
                                    expected="the id of this variant's seed"))
            seed_id = pid
        else:
            seed_id = parts[0]
    if variant is None:
        if seed_id == pid:
            variant = 0
        elif parts and parts[0] == seed_id:
            variant = parts[1]
        else:  # number the seed's variants in source order, skipping numbers in use
            used = explicit.get(seed_id, set())
            variant = counters.get(seed_id, 0) + 1
            while variant in used:
                variant += 1
            counters[seed_id] = variant
    d["seed_id"], d["variant"] = seed_id, variant


def _inherit_categories(rows: list[dict | None]) -> None:
    by_id = {str(d.get("id")): d for d in rows if d is not None}
    for d in rows:
        if d is not None and not d["categories"] and d.get("variant") not in (0, None):
            seed = by_id.get(str(d.get("seed_id")))
            if seed is not None and isinstance(seed.get("categories"), list):
                d["categories"] = list(seed["categories"])
