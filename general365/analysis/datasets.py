"""The sets to analyse: `SOURCE` or `NAME=SOURCE` -> an `AnalysisSet` of `Item`s.

Two kinds of source:

- a General365-format source, anything `--source` takes (`sample`, a built folder, a Hub
  id, a file or folder in the official format): read by `general365.load_problems`, with
  its seed/variant families, categories and answer types;
- any other set of questions (JSON Lines, JSON, CSV or parquet, or a Hub id) with a question
  column: `read_questions` below, the one adapter a future Benchmark seam replaces.

A row whose first record carries `answer_type` is taken for General365 format; naming a
column with `question_field` always reads the source as a plain set of questions.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..errors import DataError, DataErrors, UserError
from ..schema import Problem

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
    return default_name(spec), spec


def default_name(source: str) -> str:
    path = Path(source).expanduser()
    if path.exists():
        return (path.stem if path.is_file() else path.resolve().name) or source
    return source.rstrip("/").rsplit("/", 1)[-1] or source


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

    problems = load_problems(source, split=split)
    return AnalysisSet(name=name, source=source, kind=GENERAL365,
                       items=[_from_problem(p) for p in problems])


def _from_problem(p: Problem) -> Item:
    return Item(id=p.id, question=p.question, answer=p.answer, reasoning=p.reasoning,
                seed_id=p.seed_id, variant=p.variant,
                categories=tuple(c.value for c in p.categories),
                answer_type=p.answer_type.value)


def _read_rows(source: str, split: str):
    from ..data.readers import RawRow, read_source, read_text

    path = Path(source).expanduser()
    if path.suffix.lower() == ".csv":
        if not path.is_file():
            raise UserError(f"{source}: no such file (expected a .csv file)")
        reader = csv.DictReader(io.StringIO(read_text(path, "utf-8-sig"), newline=""))
        rows = []
        for record in reader:
            # The record's first line (a quoted cell may span lines).
            rows.append(RawRow(dict(record), str(path), reader.line_num))
        return rows, str(path)
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
    af, rf = _pick(first, ANSWER_FIELDS), _pick(first, REASONING_FIELDS)
    idf = _pick(first, ID_FIELDS)
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
    notes = [] if question_field else [f"question column: {qf!r}"]
    return AnalysisSet(name=name, source=described, kind=QUESTIONS, items=items,
                       question_field=qf, notes=notes)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


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
