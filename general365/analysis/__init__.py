"""Benchmark analysis: the paper's statistics, diversity and difficulty studies (sections 2.3
and 3.3, Figures 3 and 6-9) for any set of questions. See docs/analysis.md.

    from general365.analysis import analyze, write_analysis
    a = analyze(["sample", "mine=questions.jsonl"], embedder="tfidf")
    write_analysis(a, "analysis/")

Heavy packages (scikit-learn, openTSNE, sentence-transformers, matplotlib) are imported only
when a step needs them: `pip install 'general365[analysis]'`.
"""

from __future__ import annotations

from .core import Analysis, DatasetAnalysis, analyze
from .datasets import AnalysisSet, Item, load_set
from .write import write_analysis

__all__ = ["Analysis", "AnalysisSet", "DatasetAnalysis", "Item", "analyze", "load_set",
           "write_analysis"]
