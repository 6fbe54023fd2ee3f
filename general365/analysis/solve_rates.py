"""Difficulty filtering (the paper's section 2.2): each problem's solve rate across models and
runs, from graded files, and the problems (too easy, check the gold) and seed families
(members' rates far apart) a benchmark author should look at; docs/analysis.md defines
each flag. Ungraded rows are left out of a rate, and each benchmark is counted by itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

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
