"""The importer: rows from the official release (or any file in its format) -> Problems.

Fields beyond the official `id`, `question`, `answer`, `answer_type`, `float_round` are kept
(`Problem.extra`); linkage.py derives seed/variant linkage and categories. All or nothing:
every row is checked and every number/interval gold parsed once with the grader's parser;
any bad row stops the import with one line per bad row.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..errors import DataError, DataErrors, UserError
from ..answers import gold as golds_parser
from ..schema import Problem
from .linkage import Linkage, derive, read_linkage_file
from .readers import RawRow, check_split, read_source

OFFICIAL_HUB_ID = "meituan-longcat/General365_Public"


@dataclass
class ImportResult:
    source: str
    split: str
    problems: list[Problem]
    golds: dict[str, Any]                                  # id -> parsed gold (number/interval)
    linkage: Counter = field(default_factory=Counter)      # method -> rows
    notes: list[str] = field(default_factory=list)         # what the user should know

    @property
    def seeds(self) -> list[Problem]:
        return [p for p in self.problems if p.variant == 0]

    @property
    def variants(self) -> list[Problem]:
        return [p for p in self.problems if p.variant > 0]

    def summary(self) -> dict[str, Any]:
        cats = Counter(c.value for p in self.seeds for c in p.categories)
        return {
            "source": self.source,
            "split": self.split,
            "rows": len(self.problems),
            "seeds": len(self.seeds),
            "variants": len(self.variants),
            "answer_types": dict(sorted(Counter(p.answer_type.value
                                                for p in self.problems).items())),
            "categories (seeds)": dict(sorted(cats.items())),
            "linkage": dict(self.linkage),
            "notes": list(self.notes),
        }


def import_rows(rows: list[RawRow], *, source: str, split: str,
                linkage: dict[str, Linkage] | None = None) -> ImportResult:
    """Validate and map raw rows; DataErrors (one per bad row) and nothing half-done."""
    derived, methods, errors = derive(rows, linkage or {})
    pairs: list[tuple[RawRow, Problem]] = []
    first: dict[str, RawRow] = {}
    for raw, row in zip(rows, derived):
        if row is None:
            continue
        pid = str(row.get("id"))
        if row.get("id") is not None and pid in first:
            f = first[pid]
            errors.append(DataError("duplicated id", path=raw.path, line=raw.line, row_id=pid,
                                    field="id",
                                    expected=f"each id once (first at {f.path}:{f.line})"))
            continue
        first.setdefault(pid, raw)
        try:
            pairs.append((raw, Problem.from_dict(row, path=raw.path, line=raw.line)))
        except DataError as exc:
            errors.append(exc)
    errors.extend(_check_set(pairs))
    golds, gold_errors = _parse_golds(pairs)
    errors.extend(gold_errors)
    if errors:
        errors.sort(key=lambda e: (e.path or "", e.line or 0))
        raise DataErrors(_one_per_row(errors))
    result = ImportResult(source=source, split=split, problems=[p for _, p in pairs],
                          golds=golds, linkage=methods)
    result.notes.extend(_notes(result))
    return result


def import_source(source: str, *, split: str = "public",
                  linkage_file: str | None = None) -> ImportResult:
    """Import a Hub id, a file, a folder of files (also one written by `dataset build`),
    or "sample" (the bundled sample)."""
    check_split(split)
    rows, described, notes = read_source(source, split=split)
    if not rows:  # an empty file would pass every row check and build an empty card
        raise UserError(f"{described}: no rows (split {split!r}); expected at least one "
                        "problem")
    linkage = read_linkage_file(linkage_file) if linkage_file else None
    if linkage:
        ids = {str(r.data.get("id")) for r in rows if isinstance(r.data, dict)}
        unknown = [lk for lk in linkage.values() if lk.id not in ids]
        if unknown:
            raise DataErrors([DataError("id not in the source", path=lk.path, line=lk.line,
                                        row_id=lk.id, field="id",
                                        expected=f"an id of a row in {described}")
                              for lk in unknown])
    result = import_rows(rows, source=described, split=split, linkage=linkage)
    result.notes[:0] = notes
    return result


def _at(raw: RawRow, problem: Problem) -> dict[str, Any]:
    return {"path": raw.path, "line": raw.line, "row_id": problem.id}


def _check_set(pairs: list[tuple[RawRow, Problem]]):
    """Every variant's seed present, each (seed, variant) slot used once."""
    errors: list[DataError] = []
    by_id = {p.id: (raw, p) for raw, p in pairs}
    slots: dict[tuple[str, int], str] = {}
    for raw, p in by_id.values():
        if p.variant > 0:
            seed = by_id.get(p.seed_id)
            if seed is None or seed[1].variant != 0:
                errors.append(DataError(
                    "seed not in the data" if seed is None else "seed_id names a variant",
                    field="seed_id", value=p.seed_id,
                    expected="the id of a seed (variant 0) row in the same source",
                    **_at(raw, p)))
                continue
        slot = (p.seed_id, p.variant)
        if slot in slots:
            errors.append(DataError(
                "two rows claim the same seed and variant", field="variant", value=p.variant,
                expected=f"a variant number of seed {p.seed_id!r} not used by {slots[slot]!r}",
                **_at(raw, p)))
        else:
            slots[slot] = p.id
    return errors


def _parse_golds(pairs: list[tuple[RawRow, Problem]]):
    golds: dict[str, Any] = {}
    errors: list[DataError] = []
    for raw, p in pairs:
        if not p.answer_type.is_rule_graded:
            continue
        try:
            golds[p.id] = golds_parser.parse_gold(p.answer, p.answer_type, p.float_round)
        except ValueError as exc:
            errors.append(DataError(
                "gold answer does not parse", field="answer", value=p.answer,
                expected=f"a {p.answer_type.value} the grader can read ({exc})",
                **_at(raw, p)))
    return golds, errors


def _one_per_row(errors: list[DataError]) -> list[DataError]:
    out, seen = [], set()
    for e in errors:
        key = (e.path, e.line, e.row_id)
        if key in seen and (e.line is not None or e.row_id is not None):
            continue
        seen.add(key)
        out.append(e)
    return out


def _notes(result: ImportResult) -> list[str]:
    notes = []
    n = len(result.problems)
    own = result.linkage.get("none", 0)
    if n and own == n:
        notes.append("no seed/variant linkage found (no seed_id/variant fields, no id pattern, "
                     "no --linkage file): every row is its own seed (variant 0)")
    elif own:
        notes.append(f"{own} row(s) had no linkage and stand as their own seed (variant 0)")
    uncategorised = sum(1 for p in result.problems if not p.categories)
    if uncategorised:
        notes.append(f"{uncategorised} row(s) carry no categories (the source has none; "
                     "give them with --linkage FILE)")
    return notes
