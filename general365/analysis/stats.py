"""The statistics of one set (the paper's section 2.3, Figure 3): challenge categories and
labels per problem (counted over seed problems, the unit the paper annotates), answer
types, question length, seeds versus variants."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..schema import Category
from .datasets import AnalysisSet

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
    if not values:
        return {"mean": None, "min": None, "max": None,
                **{f"p{int(q * 100)}": None for q in QUANTILES}}
    a = np.asarray(values, dtype=float)
    qs = np.quantile(a, QUANTILES)
    return {"mean": float(a.mean()), "min": float(a.min()), "max": float(a.max()),
            **{f"p{int(q * 100)}": float(v) for q, v in zip(QUANTILES, qs)}}


def set_stats(s: AnalysisSet) -> SetStats:
    items = s.items
    seeds = s.seeds
    families = len({i.seed_id for i in items}) if s.has_families else len(items)
    st = SetStats(n=len(items), seeds=len(seeds), variants=len(items) - len(seeds),
                  families=families)
    st.has_categories = any(i.categories for i in items)
    if st.has_categories:
        cats: Counter = Counter()
        labels: Counter = Counter()
        for i in seeds:
            cats.update(i.categories)
            labels[len(i.categories)] += 1
        # Every category shown, in the paper's order, even at zero.
        st.categories = {c.value: cats.get(c.value, 0) for c in Category}
        st.categories.update({k: v for k, v in cats.items() if k not in st.categories})
        st.labels_per_problem = dict(sorted(labels.items()))
    st.answer_types = dict(Counter(i.answer_type for i in items if i.answer_type).most_common())
    st.lengths = Lengths(words=[len(i.question.split()) for i in items],
                         chars=[len(i.question) for i in items])
    return st
