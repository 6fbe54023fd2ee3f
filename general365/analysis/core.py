"""`analyze(...)`: every set read and checked, then statistics, embeddings, neighbours,
diversity numbers and t-SNE per set, and difficulty from graded files. Nothing is written
here (write.write_analysis does that)."""

from __future__ import annotations

import datetime as _dt
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence

from .. import __version__
from ..errors import UserError
from ..terminal import shown
from .cache import EmbeddingCache
from .datasets import AnalysisSet, SetStats, load_sets, set_stats
from .difficulty import (DEFAULT_FAMILY_SPREAD, DEFAULT_TOO_EASY, Difficulty, check_thresholds,
                         load_difficulty)
from .embed import (DEFAULT_API_KEY_ENV, DEFAULT_MODEL, NEAR_DUPLICATE, Embedded,
                    describe_embedder, embed_texts, make_embedder)
from .neighbours import DENSEST, KNN, Diversity, Neighbours, diversity, nearest_neighbours
from .similarity import (Similarity, check_similarity_options, judge_families,
                         reasoning_similarity)
from .similarity_prompt import VERSION as SIMILARITY_VERSION
from .skeleton import skeletons
from .tsne import PERPLEXITY, TsneResult, pick_method, tsne_2d

SCHEMA = "general365.analysis"
VERSION = 1


@dataclass
class DatasetAnalysis:
    set: AnalysisSet
    stats: SetStats
    embedded: Embedded
    neighbours: Neighbours
    diversity: Diversity
    tsne: TsneResult

    @property
    def name(self) -> str:
        return self.set.name

    def to_dict(self) -> dict[str, Any]:
        st = self.stats.to_dict()
        return {"source": self.set.source, "kind": self.set.kind,
                "question_field": self.set.question_field,
                **{k: st.pop(k) for k in ("n", "seeds", "variants", "families")},
                **self.diversity.to_dict(), "statistics": st, "tsne": self.tsne.info(),
                "embedding": self.embedded.info(), "notes": self.notes}

    @property
    def notes(self) -> list[str]:
        notes = list(self.set.notes) + list(self.embedded.notes)
        if self.tsne.note:
            notes.append(self.tsne.note)
        if self.diversity.missing_seeds:
            notes.append(f"{self.diversity.missing_seeds} variant(s) whose seed is not in the "
                         "set: no variant-to-seed similarity for them")
        return notes


@dataclass
class Analysis:
    datasets: list[DatasetAnalysis]
    difficulty: Difficulty | None
    settings: dict[str, Any]
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc)
                         .strftime("%Y-%m-%dT%H:%M:%SZ"))
    similarity: Similarity | None = None   # Figure 7, when a judge was given

    def dataset(self, name: str) -> DatasetAnalysis:
        for d in self.datasets:
            if d.name == name:
                return d
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "version": VERSION, "general365_version": __version__,
                "created": self.created, "settings": self.settings,
                "datasets": {d.name: d.to_dict() for d in self.datasets},
                "difficulty": self.difficulty.to_dict() if self.difficulty else None,
                "similarity": self.similarity.to_dict() if self.similarity else None}


def analyze(datasets: Sequence[str | AnalysisSet] = (), *, embedder: Any = DEFAULT_MODEL,
            embedder_base_url: str | None = None,
            embedder_api_key_env: str = DEFAULT_API_KEY_ENV,
            embedder_truncate: int | None = None,
            question_field: str | None = None, split: str = "public",
            near_duplicate: float | None = None, mask: bool = True,
            perplexity: float = PERPLEXITY, tsne_method: str = "auto", seed: int = 0,
            graded: Sequence[str] = (), too_easy: float = DEFAULT_TOO_EASY,
            family_spread: float = DEFAULT_FAMILY_SPREAD, cache: Any = True,
            judge: Any = None, similarity_sample: int | None = None,
            progress: bool = False) -> Analysis:
    """Analyse `datasets` (SOURCE or NAME=SOURCE strings, or AnalysisSets) and graded files
    (`BENCHMARK=GRADED.jsonl`). `embedder`: a name for make_embedder, or an embedder.
    `too_easy` and `family_spread`: the difficulty filter's thresholds (difficulty.py).
    `judge` (a general365.grading.judge.Judge): also score reasoning similarity (Figure 7),
    on `similarity_sample` items per set (seeded by `seed`) or all of them."""
    if not datasets and not graded:
        raise UserError("nothing to analyse; expected one or more DATASET, or --graded "
                        "BENCHMARK=GRADED.jsonl")
    if near_duplicate is not None and not 0.0 < near_duplicate <= 1.0:
        raise UserError(f"--near-duplicate {near_duplicate}: expected a cosine in (0, 1]")
    if not perplexity > 0:
        raise UserError(f"--perplexity {perplexity}: expected a positive number")
    check_similarity_options(judge, datasets=len(datasets), sample=similarity_sample)
    # Every input is read and checked before the long work starts.
    sets = [d for d in datasets if isinstance(d, AnalysisSet)] + load_sets(
        [d for d in datasets if isinstance(d, str)], question_field=question_field, split=split)
    check_thresholds(too_easy, family_spread)
    difficulty = load_difficulty(graded, too_easy=too_easy, family_spread=family_spread)
    emb = (make_embedder(embedder, base_url=embedder_base_url,
                         api_key_env=embedder_api_key_env, truncate=embedder_truncate)
           if isinstance(embedder, str) else embedder)
    method = pick_method(tsne_method) if sets else None
    threshold = near_duplicate if near_duplicate is not None else NEAR_DUPLICATE[emb.kind]
    store = None
    if sets and getattr(emb, "cacheable", False) and cache is not False and cache is not None:
        store = cache if isinstance(cache, EmbeddingCache) else EmbeddingCache(
            None if cache is True else cache)
    try:
        results = [_one(s, emb, store, threshold=threshold, mask=mask, perplexity=perplexity,
                        method=method, seed=seed, progress=progress) for s in sets]
    finally:
        if store is not None and store is not cache:
            store.close()
    settings = {
        "embedder": describe_embedder(emb), "mask": mask, "near_duplicate_threshold": threshold,
        "near_duplicate_threshold_source": "given" if near_duplicate is not None
        else f"the default for {emb.kind} embedders",
        "knn_k": KNN, "densest_share": DENSEST,
        "tsne": {"method": method, "perplexity": perplexity, "seed": seed},
        "split": split, "question_field": question_field,
        "embedding_cache": str(store.path) if store is not None else None}
    similarity = None
    if judge is not None:
        # before the nearest-neighbour study, which closes the judge when it is done
        settings["near_copy_judge"] = judge_families(results, judge)
        similarity = reasoning_similarity(results, judge, sample=similarity_sample, seed=seed,
                                          progress=progress)
        settings["reasoning_similarity"] = {**similarity.judge, "sample": similarity_sample,
                                            "prompt_version": SIMILARITY_VERSION}
    return Analysis(datasets=results, difficulty=difficulty, settings=settings,
                    similarity=similarity)


def _one(s: AnalysisSet, emb, store, *, threshold: float, mask: bool, perplexity: float,
         method: str, seed: int, progress: bool) -> DatasetAnalysis:
    def step(what: str) -> None:
        if progress:
            print(f"general365 analyze: {shown(s.name)}: {shown(what)}", file=sys.stderr,
                  flush=True)

    questions = [i.question for i in s.items]
    texts = skeletons(questions) if mask else questions
    step(f"embedding {len(texts)} questions ({emb.identity})")
    embedded = embed_texts(emb, texts, cache=store, progress=progress, desc=f"embed {s.name}")
    step("nearest neighbours")
    nb = nearest_neighbours(embedded.vectors, k=KNN)
    div = diversity(s, embedded.vectors, nb, threshold)
    step(f"t-SNE ({method})")
    return DatasetAnalysis(set=s, stats=set_stats(s), embedded=embedded, neighbours=nb,
                           diversity=div, tsne=tsne_2d(embedded.vectors, perplexity=perplexity,
                                                       seed=seed, method=method))
