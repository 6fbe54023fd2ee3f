"""Exact nearest neighbours by cosine similarity (unit rows, so a dot product), in blocks of
rows so that memory stays at block x n whatever the set's size (12,000 items: 48 MB); and
the numbers beside the t-SNE picture (docs/analysis.md defines each): nearest-neighbour
similarity, the near-duplicate share, local collapse, and each variant's similarity and
structure score to its seed. The structure score decides a near-copy: on the labelled
sample the embedding tells near-copies apart no better than chance."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .datasets import QUANTILES, AnalysisSet
from .structure import DESCRIPTION as STRUCTURE_DESCRIPTION
from .structure import THRESHOLD as STRUCTURE_THRESHOLD
from .structure import StructureIndex

BLOCK = 1024
DENSE_LIMIT = 32_000_000    # sparse input with at most this many cells is made dense
KNN = 10
DENSEST = 0.10
COPIES = 1e-5        # 1 - B below this: every pair is a copy
HIST_EDGES = tuple(round(-1.0 + 0.05 * i, 2) for i in range(41))   # -1.00 .. 1.00


@dataclass
class Neighbours:
    index: np.ndarray        # (n, k) the k nearest other items, nearest first
    similarity: np.ndarray   # (n, k) their cosine similarities
    mean_pairwise: float     # mean similarity over all pairs of distinct items

    @property
    def nearest(self) -> np.ndarray:
        return self.index[:, 0]

    @property
    def nearest_similarity(self) -> np.ndarray:
        return self.similarity[:, 0]


def _similarity_blocks(x, block: int):
    """(start, stop, similarities of rows start:stop to every row), block by block.

    Sparse rows (TF-IDF) are multiplied as sparse x dense: the sparse product of two
    sparse matrices is slow when most pairs share a word (a templated set)."""
    n, d = x.shape
    if hasattr(x, "toarray") and n * d <= DENSE_LIMIT:
        x = x.toarray()
    sparse = hasattr(x, "toarray")
    if sparse:
        block = max(16, min(block, 16_000_000 // max(d, 1)))
    else:
        x = np.asarray(x, dtype=np.float32)
    for start in range(0, n, block):
        stop = min(start + block, n)
        yield start, stop, (np.asarray(x @ x[start:stop].T.toarray(), dtype=np.float32).T
                            if sparse else x[start:stop] @ x.T)


def nearest_neighbours(x, k: int = 10) -> Neighbours:
    """The k nearest other items of every row of `x` (n >= 2; k is capped at n - 1),
    deterministic: the k kept are ordered by similarity, then by index."""
    n = x.shape[0]
    if n < 2:
        raise ValueError("nearest neighbours need at least 2 items")
    k = max(1, min(k, n - 1))
    index = np.empty((n, k), dtype=np.int64)
    sims = np.empty((n, k), dtype=np.float32)
    for start, stop, s in _similarity_blocks(x, BLOCK):
        s = np.ascontiguousarray(s, dtype=np.float32)
        s[np.arange(stop - start), np.arange(start, stop)] = -np.inf   # not its own neighbour
        if k < n - 1:
            part = np.argpartition(-s, k, axis=1)[:, :k + 1]
            vals = np.take_along_axis(s, part, axis=1)
            order = np.lexsort((part, -vals), axis=1)[:, :k]
            idx = np.take_along_axis(part, order, axis=1)
        else:
            idx = np.argsort(-s, axis=1, kind="stable")[:, :k]
        index[start:stop] = idx
        sims[start:stop] = np.take_along_axis(s, idx, axis=1)
    return Neighbours(index=index, similarity=sims, mean_pairwise=mean_pairwise(x))


def mean_pairwise(x) -> float:
    """Mean cosine over distinct pairs without the n x n matrix: for unit rows,
    sum over all ordered pairs = |sum of rows|^2, less the n diagonal ones."""
    n = x.shape[0]
    total = np.asarray(x.sum(axis=0), dtype=np.float64).ravel()
    if hasattr(x, "multiply"):
        self_sum = float(np.asarray(x.multiply(x).sum()))
    else:
        self_sum = float(np.einsum("ij,ij->", x, x, dtype=np.float64))
    return float((total @ total - self_sum) / (n * (n - 1)))


def pair_similarity(x, i: int, j: int) -> float:
    a, b = x[i], x[j]
    if hasattr(a, "multiply"):
        return float(a.multiply(b).sum())
    return float(np.dot(a, b))


@dataclass
class FamilyLink:
    variant_id: str
    seed_id: str
    similarity: float           # the embedder's cosine
    near_copy: bool
    structure: float | None = None   # structure.py's score, which decides near_copy
    judge_score: int | None = None   # with a judge (similarity.judge_families): 0-5


@dataclass
class Diversity:
    n: int
    threshold: float
    knn_k: int
    nn_similarity: np.ndarray           # per item
    nn_ids: list[str]                   # per item: its nearest neighbour's id
    mean_pairwise: float
    local_collapse: float
    links: list[FamilyLink] = field(default_factory=list)
    missing_seeds: int = 0              # variants whose seed is not in the set
    judged: bool = False                # near_copy joins an LLM judge's score

    @property
    def near_duplicates(self) -> np.ndarray:
        return self.nn_similarity >= self.threshold

    @property
    def near_copy_share(self) -> float | None:
        return (sum(link.near_copy for link in self.links) / len(self.links)
                if self.links else None)

    def histogram(self) -> dict[str, list]:
        lo = float(HIST_EDGES[0])
        counts, _ = np.histogram(np.clip(self.nn_similarity, lo, 1.0), bins=HIST_EDGES)
        return {"edges": list(HIST_EDGES), "counts": [int(c) for c in counts]}

    def to_dict(self) -> dict[str, Any]:
        nn = self.nn_similarity.astype(float)
        qs = np.quantile(nn, QUANTILES)
        sims = [link.similarity for link in self.links]
        return {
            "nn_similarity_mean": float(nn.mean()),
            "nn_similarity_median": float(np.median(nn)),
            "nn_similarity_quantiles": {f"p{int(q * 100)}": float(v)
                                        for q, v in zip(QUANTILES, qs)},
            "nn_similarity_histogram": self.histogram(),
            "near_duplicate_threshold": self.threshold,
            "near_duplicate_count": int(self.near_duplicates.sum()),
            "near_duplicate_share": float(self.near_duplicates.mean()),
            "mean_pairwise_similarity": self.mean_pairwise,
            "knn_k": self.knn_k,
            "local_collapse": self.local_collapse,
            "variant_seed_similarity_mean": float(np.mean(sims)) if sims else None,
            "variant_seed_similarity_median": float(np.median(sims)) if sims else None,
            "variant_seed_structure_mean": (float(np.mean([link.structure for link in self.links]))
                                            if self.links else None),
            "near_copy_measure": (STRUCTURE_DESCRIPTION + (", combined with the LLM judge's "
                                                           "reasoning similarity"
                                                           if self.judged else "")
                                  if self.links else None),
            "near_copy_threshold": STRUCTURE_THRESHOLD if self.links else None,
            "near_copies": sum(link.near_copy for link in self.links) if self.links else None,
            "near_copy_share": self.near_copy_share,
            "families_with_near_copy": (len({link.seed_id for link in self.links if link.near_copy})
                                        if self.links else None),
        }


def local_collapse(nb: Neighbours, densest: float = DENSEST) -> tuple[float, np.ndarray]:
    """(the collapse measure, items ordered densest first)."""
    density = nb.similarity.mean(axis=1).astype(np.float64)
    order = np.argsort(-density, kind="stable")
    top = max(1, math.ceil(densest * len(density)))
    d = float(density[order[:top]].mean())
    b = nb.mean_pairwise
    if 1.0 - b < COPIES:
        # Every pair is (to float32 rounding) identical: fully collapsed. The ratio itself
        # would divide rounding noise by rounding noise.
        return 1.0, order
    return float(min(1.0, max(-1.0, (d - b) / (1.0 - b)))), order


def diversity(s: AnalysisSet, vectors, nb: Neighbours, threshold: float) -> Diversity:
    ids = [i.id for i in s.items]
    div = Diversity(n=len(ids), threshold=threshold, knn_k=nb.index.shape[1],
                    nn_similarity=nb.nearest_similarity.astype(np.float64),
                    nn_ids=[ids[j] for j in nb.nearest], mean_pairwise=nb.mean_pairwise,
                    local_collapse=local_collapse(nb)[0])
    if s.has_families:
        row = {item.id: n for n, item in enumerate(s.items)}
        structure = StructureIndex([i.question for i in s.items], [i.reasoning for i in s.items])
        for n, item in enumerate(s.items):
            if not item.is_variant:
                continue
            if item.seed_id not in row:
                div.missing_seeds += 1
                continue
            sim = pair_similarity(vectors, n, row[item.seed_id])
            score = structure.compare(n, row[item.seed_id]).score
            div.links.append(FamilyLink(item.id, item.seed_id, sim,
                                        score >= STRUCTURE_THRESHOLD, score))
    return div
