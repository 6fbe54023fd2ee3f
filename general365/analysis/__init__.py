"""Benchmark analysis: the paper's statistics, diversity and difficulty studies (sections 2.3
and 3.3, Figures 3 and 6-9) for any set of questions. See docs/analysis.md. Heavy packages
are imported only when a step needs them: `pip install 'general365[analysis]'`.

    from general365.analysis import analyze, write_analysis
    a = analyze(["sample", "mine=questions.jsonl"], embedder="tfidf")
    write_analysis(a, "analysis/")

- core.py                `analyze(...)`: every step, per set, into one Analysis
- datasets.py            the sets to analyse (SOURCE or NAME=SOURCE), and each one's statistics
- embed.py               embedders: sentence-transformers, an embeddings API, TF-IDF
- cache.py               a persistent SQLite cache of embeddings
- neighbours.py          exact nearest neighbours by cosine, and the diversity numbers from them
- tsne.py                t-SNE of one set's embeddings to 2-D (Figure 6)
- skeleton.py            a question's skeleton: numbers and names masked
- structure.py           the near-copy measure: how far a variant keeps its seed's problem
- similarity.py          reasoning similarity (Figure 7), and the judge on each variant's seed
- similarity_prompt.py   the reasoning-similarity prompt and the strict reader of its score
- difficulty.py          accuracy, output tokens (Figures 8, 9) and each problem's solve rate
- figures.py             the analysis figures as PNG and SVG (Figure 7 among them)
- write.py               the analysis tables, and an analysis and its page written under DIR
"""

from __future__ import annotations

from .core import Analysis, DatasetAnalysis, analyze
from .datasets import AnalysisSet, Item, load_set
from .write import write_analysis

__all__ = ["Analysis", "AnalysisSet", "DatasetAnalysis", "Item", "analyze", "load_set",
           "write_analysis"]
