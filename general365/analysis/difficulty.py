"""Difficulty across benchmarks (Figures 8 and 9): accuracy (correct over graded rows) and
average output tokens per model per benchmark, from graded files (`BENCHMARK=GRADED.jsonl`)
read by the report's reader; and (section 2.2) each problem's solve rate, with the problems
and seed families to look at (docs/analysis.md defines each flag)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from ..errors import UserError
from ..validators import option_number

TOO_EASY = "too_easy"
CHECK_GOLD = "check_gold"
DEFAULT_TOO_EASY = 1.0
DEFAULT_FAMILY_SPREAD = 0.5


@dataclass(frozen=True)
class ProblemRate:
    benchmark: str
    id: str
    seed_id: str
    answers: int          # graded answers, all models and runs
    correct: int
    per_model: dict[str, float]
    flag: str | None

    @property
    def rate(self) -> float:
        return self.correct / self.answers

    def to_dict(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "id": self.id, "seed_id": self.seed_id,
                "answers": self.answers, "correct": self.correct, "solve_rate": self.rate,
                "models": len(self.per_model), "per_model": self.per_model, "flag": self.flag}


@dataclass(frozen=True)
class FamilySpread:
    benchmark: str
    seed_id: str
    members: int
    lowest: float
    highest: float
    hardest: str
    easiest: str
    flagged: bool

    @property
    def spread(self) -> float:
        return self.highest - self.lowest

    def to_dict(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "seed_id": self.seed_id, "members": self.members,
                "lowest": self.lowest, "highest": self.highest, "spread": self.spread,
                "hardest": self.hardest, "easiest": self.easiest, "flagged": self.flagged}


@dataclass
class SolveRates:
    too_easy: float
    family_spread: float
    problems: list[ProblemRate] = field(default_factory=list)
    families: list[FamilySpread] = field(default_factory=list)
    ungraded: int = 0   # problems with no graded answer

    def flagged(self, flag: str) -> list[ProblemRate]:
        return [p for p in self.problems if p.flag == flag]

    @property
    def spread_families(self) -> list[FamilySpread]:
        return [f for f in self.families if f.flagged]

    def to_dict(self) -> dict[str, Any]:
        return {"thresholds": {"too_easy": self.too_easy, "family_spread": self.family_spread},
                "counts": {"problems": len(self.problems),
                           TOO_EASY: len(self.flagged(TOO_EASY)),
                           CHECK_GOLD: len(self.flagged(CHECK_GOLD)),
                           "families": len(self.families),
                           "families_spread": len(self.spread_families),
                           "ungraded_problems": self.ungraded},
                "problems": [p.to_dict() for p in self.problems],
                "families": [f.to_dict() for f in self.families]}


def check_thresholds(too_easy: float, family_spread: float) -> None:
    for name, value in (("too_easy", too_easy), ("family_spread", family_spread)):
        option_number(name, value, low=0, low_open=True, high=1,
                      text=f"must be a share in (0, 1] (got {value!r})")


def solve_rates(benchmarks: Iterable[tuple[str, Iterable[Any]]], *,
                too_easy: float = DEFAULT_TOO_EASY,
                family_spread: float = DEFAULT_FAMILY_SPREAD) -> SolveRates:
    """`benchmarks`: (name, graded rows of every model) pairs; rows are schema.Graded."""
    check_thresholds(too_easy, family_spread)
    out = SolveRates(too_easy=too_easy, family_spread=family_spread)
    for bench, rows in benchmarks:
        tally: dict[str, dict[str, list[int]]] = {}   # id -> model -> [graded, correct]
        seed_of: dict[str, str] = {}
        for r in rows:
            seed_of.setdefault(r.id, r.seed_id)
            cell = tally.setdefault(r.id, {}).setdefault(r.model or "", [0, 0])
            if r.graded:
                cell[0] += 1
                cell[1] += bool(r.correct)
        problems = []
        for pid, models in tally.items():
            rated = {m: c / g for m, (g, c) in models.items() if g}
            if not rated:
                out.ungraded += 1
                continue
            answers = sum(g for g, _ in models.values())
            correct = sum(c for _, c in models.values())
            flag = None
            if all(rate >= too_easy for rate in rated.values()):
                flag = TOO_EASY
            elif correct == 0:
                flag = CHECK_GOLD
            problems.append(ProblemRate(bench, pid, seed_of[pid], answers, correct, rated, flag))
        out.problems += problems
        out.families += _families(bench, problems, family_spread)
    order = {TOO_EASY: 0, CHECK_GOLD: 1, None: 2}
    out.problems.sort(key=lambda p: (order[p.flag], p.benchmark, -p.rate, p.id))
    out.families.sort(key=lambda f: (not f.flagged, -f.spread, f.benchmark, f.seed_id))
    return out


def _families(bench: str, problems: list[ProblemRate], threshold: float) -> list[FamilySpread]:
    groups: dict[str, list[ProblemRate]] = {}
    for p in problems:
        groups.setdefault(p.seed_id, []).append(p)
    out = []
    for seed, members in groups.items():
        if len(members) < 2:
            continue
        hard = min(members, key=lambda p: (p.rate, p.id))
        easy = max(members, key=lambda p: (p.rate, p.id))
        # a small tolerance: 1.0 - 0.5 computed from counts is exactly 0.5, but not always
        out.append(FamilySpread(bench, seed, len(members), hard.rate, easy.rate, hard.id,
                                easy.id, easy.rate - hard.rate >= threshold - 1e-12))
    return out


@dataclass(frozen=True)
class Cell:
    benchmark: str
    model: str
    rows: int
    graded: int
    correct: int
    avg_output_tokens: float | None
    token_rows: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.graded if self.graded else None

    def to_dict(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "model": self.model, "accuracy": self.accuracy,
                "rows": self.rows, "graded": self.graded, "correct": self.correct,
                "avg_output_tokens": self.avg_output_tokens, "token_rows": self.token_rows}


@dataclass
class Difficulty:
    benchmarks: list[str]
    models: list[str]
    cells: list[Cell]
    inputs: dict[str, list[str]]
    solve_rates: SolveRates | None = None   # per problem (difficulty filtering)

    def cell(self, benchmark: str, model: str) -> Cell | None:
        return next((c for c in self.cells if c.benchmark == benchmark and c.model == model),
                    None)

    def to_dict(self) -> dict[str, Any]:
        return {"benchmarks": self.benchmarks, "models": self.models,
                "cells": [c.to_dict() for c in self.cells],
                "inputs": {b: [os.path.abspath(p) for p in ps] for b, ps in self.inputs.items()},
                "solve_rates": self.solve_rates.to_dict() if self.solve_rates else None}


def parse_graded_spec(spec: str) -> tuple[str, str]:
    if "=" not in spec or os.path.exists(spec):
        raise UserError(f"--graded {spec!r}: expected BENCHMARK=GRADED.jsonl (the benchmark's "
                        "name, then the graded file)")
    bench, path = (s.strip() for s in spec.split("=", 1))
    if not bench or not path:
        raise UserError(f"--graded {spec!r}: expected BENCHMARK=GRADED.jsonl with both parts")
    return bench, path


def load_difficulty(specs: Sequence[str], *, too_easy: float = DEFAULT_TOO_EASY,
                    family_spread: float = DEFAULT_FAMILY_SPREAD) -> Difficulty | None:
    if not specs:
        return None
    from ..reporting.load import load_graded
    from ..reporting.stats import tally, tokens

    inputs: dict[str, list[str]] = {}
    for spec in specs:
        bench, path = parse_graded_spec(spec)
        inputs.setdefault(bench, []).append(path)
    cells: list[Cell] = []
    rows: list[tuple[str, list]] = []
    for bench, paths in inputs.items():
        # One benchmark's files together: the same (model, id, run) twice is refused there.
        loaded = load_graded(paths)
        rows.append((bench, [r for m in loaded for r in m.rows]))
        for m in loaded:
            counts, spent = tally(m.rows), tokens(m.rows)
            cells.append(Cell(benchmark=bench, model=m.name, rows=counts.rows,
                              graded=counts.graded, correct=counts.correct,
                              avg_output_tokens=spent.avg_output, token_rows=spent.with_output))
    models = list(dict.fromkeys(c.model for c in cells))
    return Difficulty(benchmarks=list(inputs), models=models, cells=cells, inputs=inputs,
                      solve_rates=solve_rates(rows, too_easy=too_easy,
                                              family_spread=family_spread))
