"""The numbers behind the tables: accuracy, the seed-family bootstrap (a seed and its
variants are not independent), run stability (the paper's Appendix D), avg@N / pass@N, and
consistency within seed families; docs/reports.md has the conventions.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

from ..schema import Graded, Status

# numpy is imported in each function that uses it: `general365 grade` loads this module
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
BOOTSTRAP_LEVEL = 0.95


@dataclass(frozen=True)
class RowCounts:
    correct: int = 0
    graded: int = 0
    rows: int = 0
    # the wrong ones by kind, so that every accuracy can be shown with its status counts
    incorrect: int = 0
    no_answer: int = 0
    timeout: int = 0
    judge_failed: int = 0

    @property
    def ungraded(self) -> int:
        return self.rows - self.graded

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.graded if self.graded else None

    @property
    def coverage(self) -> float | None:
        return self.graded / self.rows if self.rows else None

    def to_dict(self) -> dict:
        return {"accuracy": self.accuracy, **asdict(self), "ungraded": self.ungraded}


def tally(rows: Iterable[Graded]) -> RowCounts:
    counts = Counter(r.status for r in rows)
    n = counts.total()
    wrong = (Status.INCORRECT, Status.NO_ANSWER, Status.TIMEOUT, Status.JUDGE_FAILED)
    return RowCounts(correct=counts[Status.CORRECT], graded=n - counts[Status.UNGRADED], rows=n,
                     **{s.value: counts[s] for s in wrong})


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    level: float
    resamples: int
    seed: int
    families: int

    def to_dict(self) -> dict:
        return {**asdict(self), "method": "percentile bootstrap over seed families"}


def bootstrap_interval(rows: Sequence[Graded], *, resamples: int = BOOTSTRAP_RESAMPLES,
                       seed: int = BOOTSTRAP_SEED,
                       level: float = BOOTSTRAP_LEVEL) -> Interval | None:
    """Percentile interval of pooled accuracy, resampling whole seed families (with their
    variants and runs, in sorted order, not the rows'); None when nothing is graded."""
    import numpy as np
    fam: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r.graded:
            fam[r.seed_id][0] += r.correct
            fam[r.seed_id][1] += 1
    correct, graded = np.array([fam[k] for k in sorted(fam)], dtype=np.int64).reshape(-1, 2).T
    n = len(graded)
    if n == 0:
        return None
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, n, size=(resamples, n))
    acc = correct[picks].sum(axis=1) / graded[picks].sum(axis=1)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(acc, [alpha, 1.0 - alpha])
    return Interval(low=float(low), high=float(high), level=level, resamples=resamples,
                    seed=seed, families=n)


@dataclass(frozen=True)
class Stability:
    runs: dict[int, RowCounts]
    mean: float | None           # mean of the runs' accuracies
    delta: float | None          # max - min of the runs' accuracies (the paper's Delta)
    avg_at_n: float | None       # mean over problems of the share of runs correct
    pass_at_n: float | None      # share of problems correct in at least one run
    problems: int                # problems with at least one graded run

    @property
    def n(self) -> int:
        return len(self.runs)

    def to_dict(self) -> dict:
        return {"n_runs": self.n, "runs": [{"run": k, **t.to_dict()}
                                           for k, t in sorted(self.runs.items())],
                "mean": self.mean, "delta": self.delta, "avg_at_n": self.avg_at_n,
                "pass_at_n": self.pass_at_n, "problems": self.problems}


def stability(rows: Sequence[Graded]) -> Stability:
    import numpy as np
    by_run: dict[int, list[Graded]] = defaultdict(list)
    by_problem: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        by_run[r.run].append(r)
        if r.graded:
            by_problem[r.id].append(r.correct)
    runs = {k: tally(v) for k, v in sorted(by_run.items())}
    accs = [t.accuracy for t in runs.values() if t.accuracy is not None]
    per_problem = list(by_problem.values())
    return Stability(
        runs=runs,
        mean=float(np.mean(accs)) if accs else None,
        delta=(max(accs) - min(accs)) if accs else None,
        avg_at_n=float(np.mean([sum(v) / len(v) for v in per_problem])) if per_problem else None,
        pass_at_n=(sum(any(v) for v in per_problem) / len(per_problem)) if per_problem else None,
        problems=len(per_problem),
    )


@dataclass(frozen=True)
class Consistency:
    """Shares of seed families whose graded members are all correct, all wrong, or mixed:
    per run (families with two or more graded members in it), averaged over runs."""

    all_correct: float | None
    all_wrong: float | None
    mixed: float | None
    families: int          # families counted, summed over runs
    runs: int

    def to_dict(self) -> dict:
        return {**asdict(self),
                "definition": "per run, families with >= 2 graded members; mean over runs"}


def consistency(rows: Sequence[Graded]) -> Consistency:
    import numpy as np
    per_run: dict[int, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r.graded:
            per_run[r.run][r.seed_id].append(r.correct)
    shares: list[tuple[float, float, float]] = []
    counted = 0
    for fams in per_run.values():
        members = [v for v in fams.values() if len(v) >= 2]
        if not members:
            continue
        counted += len(members)
        ac = sum(all(v) for v in members)
        aw = sum(not any(v) for v in members)
        k = len(members)
        shares.append((ac / k, aw / k, (k - ac - aw) / k))
    if not shares:
        return Consistency(None, None, None, 0, 0)
    a = np.mean(np.array(shares), axis=0)
    return Consistency(float(a[0]), float(a[1]), float(a[2]), counted, len(shares))


@dataclass(frozen=True)
class Tokens:
    avg_output: float | None
    avg_reasoning: float | None
    with_output: int            # rows that report output_tokens
    with_reasoning: int
    truncated: int              # finish_reason == "length"
    with_finish: int            # rows that report a finish_reason
    rows: int

    @property
    def truncation_rate(self) -> float | None:
        return self.truncated / self.with_finish if self.with_finish else None

    def to_dict(self) -> dict:
        return {"avg_output_tokens": self.avg_output, "avg_reasoning_tokens": self.avg_reasoning,
                "rows_with_output_tokens": self.with_output,
                "rows_with_reasoning_tokens": self.with_reasoning,
                "truncated": self.truncated, "rows_with_finish_reason": self.with_finish,
                "truncation_rate": self.truncation_rate, "rows": self.rows}


def tokens(rows: Sequence[Graded]) -> Tokens:
    import numpy as np
    out = [r.output_tokens for r in rows if r.output_tokens is not None]
    rea = [r.reasoning_tokens for r in rows if r.reasoning_tokens is not None]
    fin = [r.finish_reason for r in rows if r.finish_reason is not None]
    return Tokens(
        avg_output=float(np.mean(out)) if out else None,
        avg_reasoning=float(np.mean(rea)) if rea else None,
        with_output=len(out), with_reasoning=len(rea),
        truncated=sum(f == "length" for f in fin), with_finish=len(fin), rows=len(rows),
    )
