"""A batch's grade at a glance: accuracy over graded rows, counts per status, per answer
type and per category. Built incrementally (`add`), so a 100,000-row stream never has to
be held to be summarised."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from ..schema import AnswerType, Category, Graded, Problem, Status, Verdict


@dataclass
class VerdictCounts:
    total: int = 0
    graded: int = 0
    correct: int = 0

    def add(self, verdict: Verdict) -> None:
        self.total += 1
        if verdict.status is not Status.UNGRADED:
            self.graded += 1
            self.correct += verdict.status is Status.CORRECT

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.graded if self.graded else None


@dataclass
class GradeSummary:
    overall: VerdictCounts = field(default_factory=VerdictCounts)
    statuses: Counter = field(default_factory=Counter)
    by_type: dict[str, VerdictCounts] = field(default_factory=dict)
    by_category: dict[str, VerdictCounts] = field(default_factory=dict)
    methods: Counter = field(default_factory=Counter)
    # rows graded in parts (CFE-Bench's variables): each part's status, and the rows' score
    part_statuses: Counter = field(default_factory=Counter)
    score_sum: float = 0.0
    scored: int = 0

    def add(self, graded: Graded) -> None:
        self.add_verdict(graded.verdict, graded.answer_type, graded.categories)

    def add_verdict(self, verdict: Verdict, answer_type: AnswerType | None = None,
                    categories: Iterable[Category] = ()) -> None:
        self.overall.add(verdict)
        self.statuses[verdict.status.value] += 1
        for part in verdict.parts or ():
            self.part_statuses[str(part.get("status"))] += 1
        if verdict.score is not None:
            self.scored += 1
            self.score_sum += verdict.score
        if verdict.method is not None:
            self.methods[verdict.method.value] += 1
        if answer_type is not None:
            self.by_type.setdefault(answer_type.value, VerdictCounts()).add(verdict)
        for c in categories:
            self.by_category.setdefault(c.value, VerdictCounts()).add(verdict)

    @classmethod
    def from_verdicts(cls, verdicts: Iterable[Verdict],
                      problems: Mapping[str, Problem] | Iterable[Problem] | None = None
                      ) -> "GradeSummary":
        if problems is not None and not isinstance(problems, Mapping):
            problems = {p.id: p for p in problems}
        s = cls()
        for v in verdicts:
            p = problems.get(v.id) if problems else None
            s.add_verdict(v, p.answer_type if p else None, p.categories if p else ())
        return s

    @property
    def accuracy(self) -> float | None:
        """Correct over graded rows (ungraded rows are left out; see `coverage`)."""
        return self.overall.accuracy

    @property
    def coverage(self) -> float | None:
        o = self.overall
        return o.graded / o.total if o.total else None

    @property
    def mean_score(self) -> float | None:
        """The mean over rows of their parts' score (None: no row graded in parts)."""
        return self.score_sum / self.scored if self.scored else None

    @property
    def counts(self) -> dict[str, int]:
        return {s.value: self.statuses.get(s.value, 0) for s in Status}

    def to_dict(self) -> dict:
        d = {
            "total": self.overall.total, "graded": self.overall.graded,
            "correct": self.overall.correct, "accuracy": self.accuracy,
            "coverage": self.coverage, "statuses": self.counts,
            "by_answer_type": _tallies(self.by_type),
            "by_category": _tallies(self.by_category),
        }
        if self.part_statuses:
            d["parts"] = {"statuses": {s.value: self.part_statuses.get(s.value, 0)
                                       for s in Status},
                          "scored_rows": self.scored, "mean_score": self.mean_score}
        return d

    def render(self) -> str:
        o = self.overall
        pct = (lambda x: "n/a" if x is None else f"{100 * x:.1f}%")
        lines = [f"accuracy {pct(self.accuracy)}  ({o.correct} correct of {o.graded} graded"
                 + (f"; {o.total - o.graded} ungraded, coverage {pct(self.coverage)})"
                    if o.graded != o.total else ")")]
        lines.append("status   " + "  ".join(f"{k} {n}" for k, n in self.counts.items() if n))
        if self.part_statuses:
            parts = "  ".join(f"{s.value} {self.part_statuses[s.value]}" for s in Status
                              if self.part_statuses.get(s.value))
            lines.append(f"parts    mean score {pct(self.mean_score)} over {self.scored} rows "
                         f"(CFE-Bench: Variable Accuracy; the accuracy above is Question "
                         f"Accuracy)  {parts}")
        if self.by_type:
            lines.append("by type  " + "  ".join(
                f"{k} {pct(t.accuracy)} ({t.correct}/{t.graded})" for k, t in sorted(self.by_type.items())))
        for name, t in self.by_category.items():
            lines.append(f"  {name:<28} {pct(t.accuracy):>6} ({t.correct}/{t.graded})")
        return "\n".join(lines)


def _tallies(counts: dict[str, VerdictCounts]) -> dict[str, dict]:
    return {k: vars(t) | {"accuracy": t.accuracy} for k, t in counts.items()}
