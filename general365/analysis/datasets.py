"""The sets to analyse: `SOURCE` or `NAME=SOURCE` -> an `AnalysisSet` of `Item`s. A source
whose first record carries `answer_type` is General365 format (load_problems: families,
categories); any other, or one read with `question_field`, is a plain set of questions
(JSON Lines, JSON, CSV or parquet, a Hub id) read by `_questions`. `set_stats`: one set's
statistics (section 2.3, Figure 3; categories counted over seeds, as the paper annotates)."""

from __future__ import annotations

import csv
import io
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import DataError, DataErrors, UserError
from ..schema import Category

# Tried in order when no question column is named (BBH and BBEH call it `input`).
QUESTION_FIELDS = ("question", "input", "prompt", "problem", "query")
ANSWER_FIELDS = ("answer", "target", "output")
REASONING_FIELDS = ("reasoning", "rationale", "cot", "explanation")
ID_FIELDS = ("id", "idx", "uid")

GENERAL365 = "general365"   # AnalysisSet.kind: read by load_problems (families, categories)
QUESTIONS = "questions"     # AnalysisSet.kind: a plain set of questions


@dataclass(frozen=True)
class Item:
    """One question to analyse. seed_id/variant are None for a set without families."""

    id: str
    question: str
    answer: str = ""
    reasoning: str = ""
    seed_id: str | None = None
    variant: int | None = None
    categories: tuple[str, ...] = ()
    answer_type: str | None = None

    @property
    def is_variant(self) -> bool:
        return bool(self.variant)


@dataclass
class AnalysisSet:
    name: str
    source: str
    kind: str
    items: list[Item]
    question_field: str = "question"
    notes: list[str] = field(default_factory=list)

    @property
    def has_families(self) -> bool:
        return self.kind == GENERAL365 and any(i.is_variant for i in self.items)

    @property
    def seeds(self) -> list[Item]:
        return [i for i in self.items if not i.is_variant]


def parse_spec(spec: str) -> tuple[str, str]:
    """`NAME=SOURCE` or `SOURCE` -> (name, source); the name defaults to the source's stem.
    A source that exists as written is never split at '=' (a path may hold one)."""
    spec = spec.strip()
    if not spec:
        raise UserError("an empty DATASET; expected SOURCE or NAME=SOURCE")
    if "=" in spec and not os.path.exists(spec):
        name, source = (s.strip() for s in spec.split("=", 1))
        if not name or not source:
            raise UserError(f"DATASET {spec!r}: expected NAME=SOURCE with both parts")
        return name, source
    path = Path(spec).expanduser()
    if path.exists():
        return (path.stem if path.is_file() else path.resolve().name) or spec, spec
    return spec.rstrip("/").rsplit("/", 1)[-1] or spec, spec


def load_set(spec: str, *, question_field: str | None = None,
             split: str = "public") -> AnalysisSet:
    name, source = parse_spec(spec)
    rows, described = _read_rows(source, split)
    first = rows[0].data if rows else None
    if question_field is None and isinstance(first, dict) and "answer_type" in first \
            and not source.lower().endswith(".csv"):
        return _general365(name, source, split)
    return _questions(name, described, rows, question_field)


def _general365(name: str, source: str, split: str) -> AnalysisSet:
    from ..data.load import load_problems

    items = [Item(id=p.id, question=p.question, answer=p.answer, reasoning=p.reasoning,
                  seed_id=p.seed_id, variant=p.variant,
                  categories=tuple(c.value for c in p.categories),
                  answer_type=p.answer_type.value) for p in load_problems(source, split=split)]
    return AnalysisSet(name=name, source=source, kind=GENERAL365, items=items)


def _read_rows(source: str, split: str):
    from ..data.readers import RawRow, read_source, read_text

    path = Path(source).expanduser()
    if path.suffix.lower() == ".csv":
        if not path.is_file():
            raise UserError(f"{source}: no such file (expected a .csv file)")
        reader = csv.DictReader(io.StringIO(read_text(path, "utf-8-sig"), newline=""))
        # (line_num: the record's line; a quoted cell may span lines)
        return [RawRow(dict(r), str(path), reader.line_num) for r in reader], str(path)
    return read_source(source, split=split)[:2]


def _pick(first: dict[str, Any], names: Sequence[str]) -> str | None:
    return next((n for n in names if n in first), None)


def _questions(name: str, described: str, rows: list, question_field: str | None
               ) -> AnalysisSet:
    """`read_questions`: raw rows of any set -> Items (id, question, answer, reasoning)."""
    if not rows:
        raise UserError(f"{described}: no rows; expected at least one question")
    first = rows[0].data
    if not isinstance(first, dict):
        raise DataError("not an object", path=rows[0].path, line=rows[0].line, value=first,
                        expected="one record (an object) per row")
    qf = question_field or _pick(first, QUESTION_FIELDS)
    if qf is None or qf not in first:
        have = ", ".join(list(first)[:12]) or "no columns"
        looked = qf if qf else ", ".join(QUESTION_FIELDS)
        raise UserError(f"{described}: no question column (looked for {looked}; the first "
                        f"row has: {have}); name it with --question-field")
    af, rf, idf = (_pick(first, f) for f in (ANSWER_FIELDS, REASONING_FIELDS, ID_FIELDS))
    items, errors, seen = [], [], {}
    for raw in rows:
        where = {"path": raw.path, "line": raw.line}
        d = raw.data
        if not isinstance(d, dict):
            errors.append(DataError("not an object", value=d, expected="one record per row",
                                    **where))
            continue
        rid = d.get(idf) if idf else None
        rid = str(raw.line) if rid is None or rid == "" or isinstance(rid, bool) else str(rid)
        q = d.get(qf)
        if not isinstance(q, str) or not q.strip():
            errors.append(DataError("missing or empty question", row_id=rid, field=qf,
                                    value=q, expected="a non-empty string", **where))
            continue
        if rid in seen:
            errors.append(DataError("duplicated id", row_id=rid, field=idf,
                                    expected=f"each id once (first at line {seen[rid]})",
                                    **where))
            continue
        seen[rid] = raw.line
        items.append(Item(id=rid, question=q, answer=_text(d.get(af)) if af else "",
                          reasoning=_text(d.get(rf)) if rf else ""))
    if errors:
        raise DataErrors(errors)
    return AnalysisSet(name=name, source=described, kind=QUESTIONS, items=items,
                       question_field=qf,
                       notes=[] if question_field else [f"question column: {qf!r}"])


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def load_sets(specs: Sequence[str], *, question_field: str | None = None,
              split: str = "public") -> list[AnalysisSet]:
    """Every set, read and checked before any work starts; names must be unique."""
    sets, names = [], {}
    for spec in specs:
        s = load_set(spec, question_field=question_field, split=split)
        if s.name in names:
            raise UserError(f"two datasets named {s.name!r} ({names[s.name]} and {spec}); "
                            "name them with NAME=SOURCE")
        if len(s.items) < 2:
            raise UserError(f"{s.name}: {len(s.items)} question(s); the analysis needs at "
                            "least 2 (each item is compared with its nearest neighbour)")
        names[s.name] = spec
        sets.append(s)
    return sets


QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


@dataclass
class Lengths:
    """Question length in characters and in words (whitespace-separated)."""

    words: list[int]
    chars: list[int]

    def summary(self) -> dict[str, Any]:
        return {unit: describe(values) for unit, values in
                (("words", self.words), ("chars", self.chars))}


@dataclass
class SetStats:
    n: int
    seeds: int
    variants: int
    families: int
    categories: dict[str, int] = field(default_factory=dict)       # over seed problems
    labels_per_problem: dict[int, int] = field(default_factory=dict)  # over seed problems
    answer_types: dict[str, int] = field(default_factory=dict)     # over all items
    lengths: Lengths | None = None
    has_categories: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n, "seeds": self.seeds, "variants": self.variants,
            "families": self.families,
            "categories": dict(self.categories) if self.has_categories else None,
            "labels_per_problem": ({str(k): v for k, v in sorted(self.labels_per_problem.items())}
                                   if self.has_categories else None),
            "multi_label_share": self.multi_label_share,
            "answer_types": dict(self.answer_types) or None,
            "question_length": self.lengths.summary() if self.lengths else None,
        }

    @property
    def multi_label_share(self) -> float | None:
        """The share of seed problems with two or more categories (the paper: nearly 70%)."""
        total = sum(self.labels_per_problem.values())
        if not self.has_categories or not total:
            return None
        return sum(v for k, v in self.labels_per_problem.items() if k >= 2) / total


def describe(values: list[int] | list[float]) -> dict[str, float | None]:
    keys = ["mean", "min", "max"] + [f"p{int(q * 100)}" for q in QUANTILES]
    if not values:
        return dict.fromkeys(keys)
    a = np.asarray(values, dtype=float)
    return dict(zip(keys, map(float, [a.mean(), a.min(), a.max(), *np.quantile(a, QUANTILES)])))


def set_stats(s: AnalysisSet) -> SetStats:
    items, seeds = s.items, s.seeds
    st = SetStats(n=len(items), seeds=len(seeds), variants=len(items) - len(seeds),
                  families=len({i.seed_id for i in items}) if s.has_families else len(items),
                  has_categories=any(i.categories for i in items),
                  lengths=Lengths(words=[len(i.question.split()) for i in items],
                                  chars=[len(i.question) for i in items]))
    if st.has_categories:
        cats = Counter(c for i in seeds for c in i.categories)
        # Every category shown, in the paper's order, even at zero.
        st.categories = {c.value: cats.get(c.value, 0) for c in Category}
        st.categories.update({k: v for k, v in cats.items() if k not in st.categories})
        st.labels_per_problem = dict(sorted(Counter(len(i.categories) for i in seeds).items()))
    st.answer_types = dict(Counter(i.answer_type for i in items if i.answer_type).most_common())
    return st
