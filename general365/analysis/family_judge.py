"""With an LLM judge, each variant's near-copy flag joins the judge's reasoning similarity of
the variant and its seed (0-5, the Figure 7 prompt) with the structure score
(structure.combined): a near-copy when the judge says 5, or 4 with a structure score at
the screening point. A pair the judge could not score keeps the structure flag alone.

Every variant is asked once (seed shown as A, the variant as B), in one batch with the
judge's own cache, retries and votes; the nearest-neighbour study (similarity.py) asks its
pairs after this one, and pairs the two share are answered from the cache."""

from __future__ import annotations

from typing import Any, Sequence

from .similarity_prompt import SIMILARITY_TASK, SimilarityPair, Triplet
from .structure import combined


def _triplet(item) -> Triplet:
    return Triplet(item.question, item.reasoning or "", item.answer or "")


def judge_families(datasets: Sequence[Any], judge: Any) -> dict[str, Any]:
    """Score every variant of every analysed set (DatasetAnalysis) against its seed and
    update its near-copy flag; returns the counts for the settings."""
    plan = []
    for d in datasets:
        items = {i.id: i for i in d.set.items}
        for link in d.diversity.links:
            plan.append((link, SimilarityPair(_triplet(items[link.seed_id]),
                                              _triplet(items[link.variant_id]))))
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
