"""Reasoning similarity (the paper's Figure 7): each item against its nearest neighbour,
scored 0-5 by an LLM judge; per set the histogram, the mean and the shares scored 1-2 and 5,
beside the paper's published figures (data/published/fig7_reasoning_similarity.csv)."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np

from ..errors import OptionError
from ..redact import shown_url
from ..reporting.published import read_csv
from ..validators import option_int
from .similarity_prompt import (BASIS_TEXT, NAME, PROBLEM, REASONING, SCORES, SIMILARITY_TASK,
                                VERSION, SimilarityPair, Triplet)
from .structure import combined

PUBLISHED_SOURCE = ("General365 paper, section 3.3 (\"Quantitative Analysis of LLM-based "
                    "Reasoning Similarity Scoring\") and Figure 7: judge Gemini-3-Pro, each "
                    "item against its nearest neighbour (text-embedding-ada-002); the text "
                    "prints only these numbers, Figure 7 shows the distributions as a picture")
SCALE = {0: "logically independent", 5: "essentially the same reasoning skeleton"}


@dataclass(frozen=True)
class PublishedSimilarity:
    """A benchmark's published figures; shares are fractions, None where not printed."""

    benchmark: str
    mean: float
    share_1_2: float | None
    share_5: float | None
    judge: str


def published_similarity() -> list[PublishedSimilarity]:
    def share(cell: str) -> float | None:
        return round(float(cell) / 100.0, 6) if cell.strip() else None

    return [PublishedSimilarity(r["benchmark"], float(r["mean"]), share(r["share_1_2"]),
                                share(r["share_5"]), r["judge"])
            for r in read_csv("fig7_reasoning_similarity.csv")]


@dataclass
class ScoredPair:
    """One item, its nearest neighbour, and the judge's score (None: the judge failed)."""

    item_id: str
    neighbour_id: str
    cosine: float
    basis: str                 # similarity_prompt.REASONING, ANSWER or PROBLEM
    score: int | None
    votes: list[int] = field(default_factory=list)
    detail: str | None = None
    cached: bool = False


@dataclass
class SetSimilarity:
    name: str
    items: int                   # items in the set
    pairs: list[ScoredPair]      # one per item scored, in the set's order
    sample: int | None = None    # the sample size asked for, when fewer than all items
    has_reasoning: bool = True   # any item of the set has reasoning

    @property
    def scores(self) -> list[int]:
        return [p.score for p in self.pairs if p.score is not None]

    @property
    def failed(self) -> int:
        return sum(p.score is None for p in self.pairs)

    @property
    def counts(self) -> list[int]:
        return [self.scores.count(s) for s in SCORES]

    def _share(self, keep) -> float | None:
        got = self.scores
        return sum(keep(s) for s in got) / len(got) if got else None

    @property
    def mean(self) -> float | None:
        return float(np.mean(self.scores)) if self.scores else None

    @property
    def share_1_2(self) -> float | None:
        return self._share(lambda s: s in (1, 2))

    @property
    def share_5(self) -> float | None:
        return self._share(lambda s: s == 5)

    @property
    def basis(self) -> dict[str, int]:
        return {b: sum(p.basis == b for p in self.pairs) for b in BASIS_TEXT}

    @property
    def notes(self) -> list[str]:
        notes = []
        if self.sample is not None:
            notes.append(f"reasoning similarity: a random sample of {len(self.pairs)} of "
                         f"{self.items} items was scored")
        without = len(self.pairs) - self.basis[REASONING]
        if without:
            why = ("the set has no reasoning" if not self.has_reasoning
                   else "an item of the pair has no reasoning")
            notes.append(f"reasoning similarity: {without} of {len(self.pairs)} pairs were "
                         f"compared without reasoning ({why}): on the problem and final "
                         f"answer{' where both have one' if self.basis[PROBLEM] else ''}")
        if self.failed:
            first = next(p.detail for p in self.pairs if p.score is None)
            notes.append(f"reasoning similarity: {self.failed} of {len(self.pairs)} pairs "
                         f"could not be scored ({first}); they are left out of the numbers; "
                         "rerun to ask again (scored pairs are cached)")
        return notes

    def to_dict(self) -> dict[str, Any]:
        return {"items": self.items, "pairs": len(self.pairs), "scored": len(self.scores),
                "failed": self.failed, "sampled": self.sample is not None,
                "mean": self.mean, "share_1_2": self.share_1_2, "share_5": self.share_5,
                "histogram": {"scores": list(SCORES), "counts": self.counts},
                "basis": self.basis, "notes": self.notes}


@dataclass
class Similarity:
    sets: list[SetSimilarity]
    judge: dict[str, Any]
    published: list[PublishedSimilarity] = field(default_factory=published_similarity)

    def set(self, name: str) -> SetSimilarity:
        return next(s for s in self.sets if s.name == name)

    @property
    def failed(self) -> int:
        return sum(s.failed for s in self.sets)

    @property
    def notes(self) -> list[str]:
        return [f"{s.name}: {n}" for s in self.sets for n in s.notes]

    def to_dict(self) -> dict[str, Any]:
        published = {p.benchmark: {k: v for k, v in asdict(p).items() if k != "benchmark"}
                     for p in self.published}
        return {"task": NAME, "prompt_version": VERSION,
                "scale": {str(k): v for k, v in SCALE.items()}, "judge": self.judge,
                "datasets": {s.name: s.to_dict() for s in self.sets},
                "published": {"source": PUBLISHED_SOURCE,
                              "file": "general365/data/published/fig7_reasoning_similarity.csv",
                              "benchmarks": published}}


def check_similarity_options(judge: Any, *, datasets: int, sample: int | None) -> None:
    """Every option of the reasoning-similarity study, checked before any work."""
    if sample is not None:
        option_int("similarity_sample", sample,
                   text=f"must be a whole number >= 1 (got {sample!r})")
    if judge is None:
        if sample is not None:
            raise OptionError("similarity_sample", "needs an LLM judge: give {judge_model} "
                                                   "(and {judge_base_url})")
        return
    if not callable(getattr(judge, "ask", None)):
        raise OptionError("judge", f"must have an ask(task, items) method, such as "
                                   f"general365.grading.judge.Judge (got {type(judge).__name__})")
    if not datasets:
        raise OptionError("judge_model", "needs at least one DATASET: reasoning similarity "
                                         "compares each item of a set with its nearest "
                                         "neighbour")


def _triplet(item) -> Triplet:
    return Triplet(item.question, item.reasoning or "", item.answer or "")


def judge_families(datasets: Sequence[Any], judge: Any) -> dict[str, Any]:
    """With a judge, each variant's near-copy flag joins its 0-5 score against its seed
    (seed as A) with the structure score (structure.combined); a pair the judge could not
    score keeps the structure flag. Returns the counts for the settings. Runs before the
    nearest-neighbour study, whose shared pairs then come from the judge's cache."""
    plan = [(link, SimilarityPair(_triplet(items[link.seed_id]), _triplet(items[link.variant_id])))
            for d in datasets for items in [{i.id: i for i in d.set.items}]
            for link in d.diversity.links]
    if not plan:
        return {"pairs": 0, "scored": 0}
    answers = judge.ask(SIMILARITY_TASK, [p for _, p in plan])
    for (link, _), a in zip(plan, answers):
        link.judge_score = a.value
        link.near_copy = combined(link.structure, a.value)
    for d in datasets:
        d.diversity.judged = bool(d.diversity.links)
    scored = sum(a.value is not None for a in answers)
    return {"pairs": len(plan), "scored": scored, "failed": len(plan) - scored,
            "rule": "near-copy: judge 5, or judge 4 with structure >= the screening point; "
                    "unscored pairs: structure alone"}


def reasoning_similarity(datasets: Sequence[Any], judge: Any, *, sample: int | None = None,
                         seed: int = 0, progress: bool = False) -> Similarity:
    """Score each item of each analysed set (DatasetAnalysis) against its nearest neighbour.

    A pair is shown to the judge in the set's order (the earlier item as A), so that two
    mutual nearest neighbours make one question, asked once. All sets go in one batch:
    the judge's concurrency spans them."""
    plan = []   # (set index, item index, neighbour index, SimilarityPair)
    for k, d in enumerate(datasets):
        items, nearest, n = d.set.items, d.neighbours.nearest, len(d.set.items)
        for i in (range(n) if sample is None or sample >= n else sorted(
                int(i) for i in np.random.default_rng(seed).choice(n, sample, replace=False))):
            j = int(nearest[i])
            lo, hi = min(i, j), max(i, j)
            plan.append((k, i, j, SimilarityPair(_triplet(items[lo]), _triplet(items[hi]))))
    before = (judge.stats.requests, judge.stats.cache_hits) if hasattr(judge, "stats") else None
    from tqdm import tqdm

    if progress:
        print(f"general365 analyze: reasoning similarity: {len(plan)} pairs "
              f"(judge {judge.model})", file=sys.stderr, flush=True)
    # The judge reports each distinct question once (mutual neighbours make one).
    distinct = {json.dumps(SIMILARITY_TASK.messages(p)) for *_, p in plan} if progress else ()
    bar = tqdm(total=len(distinct), unit="pair", desc="similarity", file=sys.stderr,
               dynamic_ncols=True, disable=not progress)
    try:
        answers = judge.ask(SIMILARITY_TASK, [p for *_, p in plan],
                            on_done=bar.update if progress else None)
    finally:
        bar.close()
        if hasattr(judge, "close"):
            judge.close()
    scored: list[list[ScoredPair]] = [[] for _ in datasets]
    for (k, i, j, pair), a in zip(plan, answers):
        d = datasets[k]
        scored[k].append(ScoredPair(
            item_id=d.set.items[i].id, neighbour_id=d.set.items[j].id,
            cosine=float(d.diversity.nn_similarity[i]), basis=pair.basis, score=a.value,
            votes=list(a.votes), detail=a.detail, cached=a.cached))
    sets = [SetSimilarity(d.name, len(d.set.items), scored[k],
                          sample if sample is not None and sample < len(d.set.items) else None,
                          any(i.reasoning for i in d.set.items))
            for k, d in enumerate(datasets)]
    info: dict[str, Any] = {"model": getattr(judge, "model", None),
                            # the judge's URL may carry its credentials (user:password@)
                            "base_url": shown_url(getattr(judge, "base_url", None)),
                            "votes": getattr(judge, "votes", 1),
                            "votes_rule": SIMILARITY_TASK.combine_rule,
                            "structured": getattr(judge, "structured", None)}
    if before is not None:
        info["requests"] = judge.stats.requests - before[0]
        info["cache_hits"] = judge.stats.cache_hits - before[1]
    return Similarity(sets=sets, judge=info)
