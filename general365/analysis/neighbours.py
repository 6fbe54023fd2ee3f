"""Exact nearest neighbours by cosine similarity (unit rows, so a dot product), in blocks of
rows so that memory stays at block x n whatever the set's size (12,000 items: 48 MB)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BLOCK = 1024
DENSE_LIMIT = 32_000_000    # sparse input with at most this many cells is made dense


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
    if hasattr(x, "toarray"):
        block = max(16, min(block, 16_000_000 // max(d, 1)))
        for start in range(0, n, block):
            stop = min(start + block, n)
            yield start, stop, np.asarray(x @ x[start:stop].T.toarray(), dtype=np.float32).T
        return
    x = np.asarray(x, dtype=np.float32)
    for start in range(0, n, block):
        stop = min(start + block, n)
        yield start, stop, x[start:stop] @ x.T


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
