"""Benchmark analysis: the paper's statistics, diversity and difficulty studies (sections 2.3
and 3.3, Figures 3 and 6-9) for any set of questions. See docs/analysis.md.

    from general365.analysis import analyze, write_analysis
    a = analyze(["sample", "mine=questions.jsonl"], embedder="tfidf")
    write_analysis(a, "analysis/")

Heavy packages (scikit-learn, openTSNE, sentence-transformers, matplotlib) are imported only
when a step needs them: `pip install 'general365[analysis]'`.

- core.py                `analyze(...)`: every step, per set, into one Analysis
- datasets.py            the sets to analyse: SOURCE or NAME=SOURCE -> AnalysisSet of Items
- stats.py               one set's statistics: categories, labels, lengths (Figure 3)
- embed.py               embedders: sentence-transformers, an embeddings API, TF-IDF
- cache.py               a persistent SQLite cache of embeddings
- neighbours.py          exact nearest neighbours by cosine, in blocks of rows
- diversity.py           the numbers beside the t-SNE picture (docs/analysis.md)
- tsne.py                t-SNE of one set's embeddings to 2-D (Figure 6)
- skeleton.py            a question's skeleton: numbers and names masked
- structure.py           the near-copy measure: how far a variant keeps its seed's problem
- similarity.py          reasoning similarity, each item against its neighbour (Figure 7)
- similarity_prompt.py   the reasoning-similarity prompt and the strict reader of its score
- family_judge.py        a variant's near-copy flag joined with the judge's similarity
- difficulty.py          accuracy and output tokens per model per benchmark (Figures 8, 9)
- solve_rates.py         each problem's solve rate across models and runs (section 2.2)
- tables.py              the analysis tables as typed values, and their CSV
- figures.py             the analysis figures as PNG and SVG (Figure 7 among them)
- page.py                the analysis page: one self-contained index.html
- write.py               an analysis written under DIR, all or nothing
"""

from __future__ import annotations

from .core import Analysis, DatasetAnalysis, analyze
from .datasets import AnalysisSet, Item, load_set
from .write import write_analysis

__all__ = ["Analysis", "AnalysisSet", "DatasetAnalysis", "Item", "analyze", "load_set",
           "write_analysis"]
