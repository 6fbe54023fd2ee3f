"""CFE-Bench's measures over graded rows (`CFERow`s, graded_rows.py): Variable and Question
Accuracy, pass@k, avg@N, as docs/cfe-bench.md's "Measures" defines them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from math import comb
from typing import Iterable, Sequence

from ...schema import Status
from .graded_rows import CFERow


@dataclass(frozen=True)
class Accuracy:
    questions: int                   # rows (question x run)
    graded_questions: int
    correct_questions: int
    scored_questions: int            # rows with at least one graded variable
    variable_accuracy: float | None
    variables: int
    graded_variables: int
    correct_variables: int

    @property
    def question_accuracy(self) -> float | None:
        return self.correct_questions / self.graded_questions if self.graded_questions \
            else None

    @property
    def variable_coverage(self) -> float | None:
        return self.graded_variables / self.variables if self.variables else None

    def to_dict(self) -> dict:
        return {"questions": self.questions, "graded_questions": self.graded_questions,
                "correct_questions": self.correct_questions,
                "question_accuracy": self.question_accuracy,
                "variable_accuracy": self.variable_accuracy,
                "variables": self.variables, "graded_variables": self.graded_variables,
                "correct_variables": self.correct_variables,
                "variable_coverage": self.variable_coverage}


def accuracy(rows: Iterable[CFERow]) -> Accuracy:
    rows = list(rows)
    scores = [r.score for r in rows if r.score is not None]
    return Accuracy(
        questions=len(rows),
        graded_questions=sum(r.status is not Status.UNGRADED for r in rows),
        correct_questions=sum(r.correct for r in rows),
        scored_questions=len(scores),
        variable_accuracy=sum(scores) / len(scores) if scores else None,
        variables=sum(len(r.variables) for r in rows),
        graded_variables=sum(r.graded_variables for r in rows),
        correct_variables=sum(r.correct_variables for r in rows))


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k runs drawn from n (c right) is right."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


@dataclass(frozen=True)
class RunStats:
    runs: int                        # distinct runs
    per_run: dict[int, Accuracy]
    pass_at: dict[int, float | None]  # k -> pass@k (Question correctness)
    avg_at_n: float | None           # mean over questions of the share of runs right
    variable_avg_at_n: float | None  # mean over questions of their mean Variable score


def run_stats(rows: Sequence[CFERow], ks: Sequence[int] = ()) -> RunStats:
    by_run: dict[int, list[CFERow]] = defaultdict(list)
    by_question: dict[str, list[CFERow]] = defaultdict(list)
    for r in rows:
        by_run[r.run].append(r)
        by_question[r.id].append(r)
    n_runs = len(by_run)
    ks = sorted(set(ks) | {1, n_runs}) if n_runs else []
    pass_at: dict[int, float | None] = {}
    for k in ks:
        vals = []
        for q in by_question.values():
            graded = [r for r in q if r.status is not Status.UNGRADED]
            if len(graded) >= k:
                vals.append(pass_at_k(len(graded), sum(r.correct for r in graded), k))
        pass_at[k] = sum(vals) / len(vals) if vals else None
    shares, var_shares = [], []
    for q in by_question.values():
        graded = [r for r in q if r.status is not Status.UNGRADED]
        if graded:
            shares.append(sum(r.correct for r in graded) / len(graded))
        scores = [r.score for r in q if r.score is not None]
        if scores:
            var_shares.append(sum(scores) / len(scores))
    return RunStats(n_runs, {k: accuracy(v) for k, v in sorted(by_run.items())}, pass_at,
                    sum(shares) / len(shares) if shares else None,
                    sum(var_shares) / len(var_shares) if var_shares else None)


def by_key(rows: Iterable[CFERow], key) -> dict[str, Accuracy]:
    groups: dict[str, list[CFERow]] = defaultdict(list)
    for r in rows:
        k = key(r)
        if k is not None:
            groups[k].append(r)
    return {k: accuracy(v) for k, v in sorted(groups.items())}


@dataclass(frozen=True)
class VariableTally:
    variables: int
    counts: dict[str, int]           # status -> variables

    @property
    def graded(self) -> int:
        return self.variables - self.counts.get(Status.UNGRADED.value, 0)

    @property
    def accuracy(self) -> float | None:
        return self.counts.get(Status.CORRECT.value, 0) / self.graded if self.graded else None


def variable_tallies(rows: Iterable[CFERow], key) -> dict[str, VariableTally]:
    """Variable-level status counts, grouped by `key(variable)` (its type, its method...)."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        for v in r.variables:
            counts[key(v)][v.status.value] += 1
    return {k: VariableTally(sum(c.values()), dict(c)) for k, c in sorted(counts.items())}
