"""Figure 7: the reasoning-similarity scores of each analysed set, beside the paper's
published figures. (a) each set's distribution of scores 0-5 (share of its scored items);
(b) the mean score of each set and of the paper's benchmarks, with the shares at 1-2 and
at 5 written on the bars (the paper prints only these numbers, not its histograms)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..reporting.plots import Figure, _plt, save
from .figures import DPI, color
from .similarity_prompt import SCORES

if TYPE_CHECKING:
    from .similarity import Similarity

PAPER_COLOR = "#9a9a9a"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def draw_similarity(sim: "Similarity"):
    plt = _plt()
    fig, (ax_hist, ax_mean) = plt.subplots(1, 2, figsize=(13, 4.8),
                                           gridspec_kw={"width_ratios": [1.1, 1]})
    sets = sim.sets
    width = 0.8 / max(1, len(sets))
    x = np.arange(len(SCORES))
    for k, s in enumerate(sets):
        total = len(s.scores)
        shares = [100.0 * c / total if total else 0.0 for c in s.counts]
        ax_hist.bar(x - 0.4 + width * (k + 0.5), shares, width, color=color(k),
                    label=f"{s.name} (n={total})")
    ax_hist.set_xticks(x, [str(v) for v in SCORES])
    ax_hist.set_xlabel("Reasoning similarity to the nearest neighbour (0: independent, "
                       "5: same skeleton)")
    ax_hist.set_ylabel("Share of scored items (%)")
    ax_hist.set_title("(a) Distribution of scores, this analysis", fontsize=9)
    if sets:
        ax_hist.legend(fontsize=8, frameon=False)

    rows = [(s.name, s.mean, s.share_1_2, s.share_5, color(k), False)
            for k, s in enumerate(sets)]
    rows += [(f"{p.benchmark} (paper)", p.mean, p.share_1_2, p.share_5, PAPER_COLOR, True)
             for p in sim.published]
    y = np.arange(len(rows))[::-1]
    for yi, (name, mean, s12, s5, c, paper) in zip(y, rows):
        ax_mean.barh(yi, mean if mean is not None else 0.0, color=c,
                     hatch="//" if paper else None, edgecolor="white" if paper else c)
        shown = "no score" if mean is None else f"{mean:.2f}"
        ax_mean.text(5.05, yi, f"{shown}   1-2: {_pct(s12)}   5: {_pct(s5)}",
                     va="center", fontsize=8)
    ax_mean.set_yticks(y, [r[0] for r in rows], fontsize=8)
    ax_mean.set_xlim(0, 5)
    ax_mean.set_xlabel("Mean score")
    ax_mean.set_title("(b) Mean score, beside the paper's published figures (hatched)",
                      fontsize=9)
    fig.tight_layout()
    return fig


def similarity_figure(sim: "Similarity", out_dir: str) -> Figure:
    judge = sim.judge.get("model") or "-"
    return save(draw_similarity(sim), out_dir, "fig7_reasoning_similarity",
                "Reasoning similarity (Figure 7)",
                f"Each item against its nearest neighbour, scored 0-5 by {judge} "
                f"({sim.judge.get('votes', 1)} vote(s)); the paper's figures: judge "
                "Gemini-3-Pro, as printed in its section 3.3.", dpi=DPI)
