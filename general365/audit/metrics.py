"""Grading-accuracy figures from labelled rows (CFE-Bench's Table 1 set: Acc, P, R, F1, FP,
FN; docs/audit.md defines each). Positive = graded correct: every other status counts as
not accepted, as accuracy counts it. Each figure is None where its denominator is 0.

The whole-input estimate is post-stratified, with the Wilson interval put on Kish's
effective sample size (sum w)^2 / sum w^2: the usual way to carry a score interval over to
a weighted sample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from .labels import Label

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval for a proportion (successes may be fractional for an
    effective sample size); None for n = 0."""
    if n <= 0:
        return None
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # At p = 0 or 1 the bound is exactly 0 or 1 (rounding would leave 0.9999999999999999).
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Scores:
    """The figures for one group of labelled rows."""

    n: int
    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def right(self) -> int:
        return self.tp + self.tn

    @property
    def accuracy(self) -> float | None:
        return self.right / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.right, self.n)

    @property
    def precision(self) -> float | None:
        d = self.tp + self.fp
        return self.tp / d if d else None

    @property
    def recall(self) -> float | None:
        d = self.tp + self.fn
        return self.tp / d if d else None

    @property
    def f1(self) -> float | None:
        d = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / d if d else None

    def to_dict(self) -> dict:
        iv = self.interval
        return {"n": self.n, "accuracy": self.accuracy,
                "accuracy_low": iv[0] if iv else None, "accuracy_high": iv[1] if iv else None,
                "precision": self.precision, "recall": self.recall, "f1": self.f1,
                "tp": self.tp, "fp": self.fp, "tn": self.tn, "fn": self.fn}


def scores(labels: Iterable[Label]) -> Scores:
    tp = fp = tn = fn = n = 0
    for lab in labels:
        n += 1
        if lab.graded_correct:
            tp, fp = tp + lab.right, fp + (not lab.right)
        else:
            tn, fn = tn + lab.right, fn + (not lab.right)
    return Scores(n, tp, fp, tn, fn)


@dataclass(frozen=True)
class Estimate:
    """Grading accuracy estimated for the whole input from post-stratified weights."""

    accuracy: float
    low: float
    high: float
    effective_n: float
    rows: int         # labelled rows used
    covered: int      # input rows in the strata with labels
    strata: int       # strata with labels

    def to_dict(self) -> dict:
        return {"accuracy": self.accuracy, "accuracy_low": self.low,
                "accuracy_high": self.high, "effective_n": self.effective_n,
                "rows": self.rows, "covered_rows": self.covered, "strata": self.strata}


def weighted_estimate(labels: Iterable[Label]) -> tuple[Estimate | None, str | None]:
    """(the estimate, None), or (None, why there is none): every row needs its stratum and
    stratum size, all from one sample (rows written by hand may carry neither)."""
    labels = list(labels)
    if any(lab.stratum is None or lab.stratum_size is None for lab in labels):
        return None, "some rows carry no stratum and stratum_size (from audit sample)"
    samples = {lab.sample_id for lab in labels}
    if len(samples) > 1:
        return None, (f"the labels come from {len(samples)} different samples; score each "
                      "sample's labels on its own for a whole-input estimate")
    sizes: dict[str, int] = {}
    counts: dict[str, int] = {}
    for lab in labels:
        if sizes.setdefault(lab.stratum, lab.stratum_size) != lab.stratum_size:
            return None, f"stratum {lab.stratum!r} is given two sizes"
        counts[lab.stratum] = counts.get(lab.stratum, 0) + 1
    w = [sizes[lab.stratum] / counts[lab.stratum] for lab in labels]
    total, total2 = sum(w), sum(x * x for x in w)
    acc = sum(x for x, lab in zip(w, labels) if lab.right) / total
    n_eff = total * total / total2
    low, high = wilson(acc * n_eff, n_eff)
    return Estimate(acc, low, high, n_eff, len(labels), sum(sizes.values()), len(sizes)), None
