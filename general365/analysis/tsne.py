"""t-SNE of one set's embeddings to 2-D, normalised to [-1, 1] (Figure 6), after PCA or
truncated SVD to 50 dimensions. Perplexity is 30, or (n - 1) / 3 for a small set. `auto`
takes openTSNE (the faster on 2 cores: benchmarks/analyze_scale.py), else scikit-learn's."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..errors import MissingExtra, UserError

METHODS = ("auto", "opentsne", "sklearn", "off")
PERPLEXITY = 30.0
MIN_ITEMS = 5          # below this a 2-D map says nothing; the output says it was skipped
REDUCED_DIMS = 50


@dataclass
class TsneResult:
    coords: np.ndarray | None    # (n, 2) in [-1, 1], or None when skipped
    perplexity: float | None
    method: str | None
    note: str | None = None

    def info(self) -> dict:
        return {"perplexity": self.perplexity, "method": self.method, "note": self.note}


def perplexity_for(n: int, wanted: float = PERPLEXITY) -> float:
    return float(min(wanted, (n - 1) / 3.0))


def normalise(coords: np.ndarray) -> np.ndarray:
    """Each axis scaled to [-1, 1] (a constant axis is put at 0)."""
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    span = np.where(hi - lo > 0, hi - lo, 1.0)
    out = 2.0 * (coords - lo) / span - 1.0
    out[:, hi - lo <= 0] = 0.0
    return out


def reduce(x, dims: int = REDUCED_DIMS, seed: int = 0) -> np.ndarray:
    n, d = x.shape
    if hasattr(x, "toarray"):
        if d <= dims:
            return x.toarray()
        from sklearn.decomposition import TruncatedSVD

        k = min(dims, n - 1, d - 1)
        return TruncatedSVD(n_components=max(k, 2), random_state=seed).fit_transform(x)
    x = np.asarray(x, dtype=np.float32)
    if d <= dims or n <= dims:
        return x
    from sklearn.decomposition import PCA

    return PCA(n_components=dims, random_state=seed).fit_transform(x)


def available(method: str) -> bool:
    try:
        __import__("openTSNE" if method == "opentsne" else "sklearn.manifold")
    except ImportError:
        return False
    return True


def pick_method(method: str = "auto") -> str:
    if method not in METHODS:
        raise UserError(f"--tsne {method!r}: expected one of {', '.join(METHODS)}")
    if method == "off":
        return method
    for m in ("opentsne", "sklearn") if method == "auto" else (method,):
        if available(m):
            return m
    raise MissingExtra({"auto": "openTSNE or scikit-learn", "opentsne": "openTSNE"}
                       .get(method, "scikit-learn"), "analysis")


def _jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))


def run_opentsne(x: np.ndarray, perplexity: float, seed: int) -> np.ndarray:
    from openTSNE import TSNE

    return np.asarray(TSNE(perplexity=perplexity, initialization="pca", random_state=seed,
                           n_jobs=_jobs(), verbose=False).fit(x))


def run_sklearn(x: np.ndarray, perplexity: float, seed: int) -> np.ndarray:
    from sklearn.manifold import TSNE

    return TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed,
                n_jobs=_jobs()).fit_transform(x)


RUNNERS = {"opentsne": run_opentsne, "sklearn": run_sklearn}


def tsne_2d(x, *, perplexity: float = PERPLEXITY, seed: int = 0,
            method: str = "auto") -> TsneResult:
    n = x.shape[0]
    if method == "off":
        return TsneResult(None, None, None, "t-SNE off (--tsne off)")
    if n < MIN_ITEMS:
        return TsneResult(None, None, None, f"t-SNE skipped: {n} items (it needs at least "
                                            f"{MIN_ITEMS})")
    chosen = pick_method(method)
    p = perplexity_for(n, perplexity)
    note = (f"perplexity {p:.2f} (the largest valid for {n} items) instead of "
            f"{perplexity:g}" if p < perplexity else None)
    reduced = reduce(x, seed=seed).astype(np.float64)
    if np.allclose(reduced, reduced[0]):
        # Every item embeds to the same point: t-SNE has no neighbourhoods to keep.
        return TsneResult(np.zeros((n, 2)), p, chosen,
                          ((note + "; ") if note else "") + "all items embed identically")
    coords = RUNNERS[chosen](reduced, p, seed)
    return TsneResult(normalise(np.asarray(coords, dtype=np.float64)), p, chosen, note)
