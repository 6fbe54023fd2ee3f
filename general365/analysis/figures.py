"""The analysis figures as PNG and SVG (matplotlib): statistics (Figure 3), t-SNE (Figure
6), the diversity numbers, reasoning similarity (Figure 7) and difficulty (Figures 8, 9).
Each `draw_*` returns the matplotlib figure (tests read its artists); `*_figure` saves it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..reporting.plots import Figure, _plt, save
from ..terminal import shown
from .similarity_prompt import SCORES

if TYPE_CHECKING:
    from .core import DatasetAnalysis
    from .difficulty import Difficulty
    from .similarity import Similarity

DPI = 130
PAPER_COLOR = "#9a9a9a"
PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3",
           "#8c8c8c", "#ccb974", "#64b5cd")


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)


def _bars(ax, keys: Sequence, series: Sequence, ticks: Sequence[str], *,
          horizontal: bool = False, **tick_style) -> None:
    """Grouped bars: a group per key, a bar per series (colour index, label, values)."""
    width = 0.8 / max(1, len(series))
    at = np.arange(len(keys))
    for k, (i, label, values) in enumerate(series):
        (ax.barh if horizontal else ax.bar)(at + k * width, values, width, color=color(i),
                                            label=label)
    centres = at + width * (len(series) - 1) / 2
    (ax.set_yticks if horizontal else ax.set_xticks)(centres, ticks, **tick_style)


def draw_statistics(sets: Sequence["DatasetAnalysis"]):
    plt = _plt()
    fig, axes = plt.subplots(2, 2, figsize=(13, 8.5))
    (ax_cat, ax_lab), (ax_type, ax_len) = axes
    with_cats = [(i, d) for i, d in enumerate(sets) if d.stats.has_categories]

    def seed_shares(keys, counts):
        return [(i, d.name, [100 * counts(d).get(k, 0)
                             / (sum(d.stats.labels_per_problem.values()) or 1) for k in keys])
                for i, d in with_cats]

    if with_cats:
        cats = list(with_cats[0][1].stats.categories)
        _bars(ax_cat, cats, seed_shares(cats, lambda d: d.stats.categories), cats,
              horizontal=True, fontsize=8)
        ax_cat.invert_yaxis()
        ax_cat.set_xlabel("Seed problems with the category (%)")
        labels = sorted({k for _, d in with_cats for k in d.stats.labels_per_problem})
        _bars(ax_lab, labels, seed_shares(labels, lambda d: d.stats.labels_per_problem),
              [str(x) for x in labels])
        ax_lab.set(xlabel="Categories per seed problem", ylabel="Seed problems (%)")
        ax_lab.legend(fontsize=8, frameon=False)
    else:
        for ax in (ax_cat, ax_lab):
            _empty(ax, "No challenge categories in these sets")
    ax_cat.set_title("(a) Challenge categories", fontsize=10)
    ax_lab.set_title("(b) Number of categories per problem", fontsize=10)

    types = list(dict.fromkeys(t for d in sets for t in d.stats.answer_types))
    if types:
        _bars(ax_type, types, [(i, d.name, [100 * d.stats.answer_types.get(t, 0) / d.stats.n
                                            for t in types]) for i, d in enumerate(sets)],
              [t.replace("_", " ") for t in types], fontsize=8)
        ax_type.set_ylabel("Items (%)")
    else:
        _empty(ax_type, "No answer types in these sets")
    ax_type.set_title("(c) Answer types", fontsize=10)

    parts = ax_len.boxplot([d.stats.lengths.words for d in sets], vert=False,
                           showfliers=False, patch_artist=True, widths=0.6)
    for i, box in enumerate(parts["boxes"]):
        box.set(facecolor=color(i), alpha=0.7)
    ax_len.set_yticks(range(1, len(sets) + 1), [d.name for d in sets], fontsize=8)
    ax_len.invert_yaxis()
    ax_len.set_xlabel("Question length (words; boxes: quartiles, whiskers: 1.5 IQR)")
    ax_len.set_title("(d) Question length", fontsize=10)
    handles = [plt.Rectangle((0, 0), 1, 1, color=color(i)) for i in range(len(sets))]
    fig.legend(handles, [f"{d.name} ({d.stats.n} items: {d.stats.seeds} seeds, "
                         f"{d.stats.variants} variants)" for d in sets],
               loc="lower center", ncol=min(3, len(sets)), fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, -0.02))
    fig.suptitle("Statistics (Figure 3)", fontsize=11)
    fig.tight_layout(rect=(0, 0.04, 1, 0.97))
    return fig


def statistics_figure(sets, out_dir: str) -> Figure:
    return save(draw_statistics(sets), out_dir, "fig3_statistics",
                "Statistics: categories, labels per problem, answer types, question length "
                "(Figure 3)", "Categories and labels are counted over seed problems.", dpi=DPI)


def draw_tsne(sets: Sequence["DatasetAnalysis"]):
    plt = _plt()
    fig, axes = plt.subplots(1, len(sets), figsize=(4.6 * len(sets), 4.9), squeeze=False)
    for i, (ax, d) in enumerate(zip(axes[0], sets)):
        ax.set(xlim=(-1.1, 1.1), ylim=(-1.1, 1.1), aspect="equal")
        ax.grid(alpha=0.25)
        t = d.tsne
        if t.coords is None:
            ax.text(0, 0, t.note or "no t-SNE", ha="center", va="center", fontsize=8, wrap=True)
        else:
            variant = np.array([it.is_variant for it in d.set.items])
            size = 9 if d.stats.n <= 2000 else 4
            if variant.any():
                ax.scatter(t.coords[~variant, 0], t.coords[~variant, 1], s=size * 1.6,
                           color=color(i), label="seeds", edgecolor="black", linewidth=0.3,
                           zorder=3)
                ax.scatter(t.coords[variant, 0], t.coords[variant, 1], s=size, color=color(i),
                           alpha=0.45, label="variants", zorder=2)
                ax.legend(fontsize=7, loc="upper right", frameon=True)
            else:
                ax.scatter(t.coords[:, 0], t.coords[:, 1], s=size, color=color(i), alpha=0.7)
        pp = f", perplexity {t.perplexity:.3g}" if t.perplexity else ""
        ax.set_title(f"{d.name} ({d.stats.n} items{pp})", fontsize=9)
    fig.suptitle("t-SNE of question embeddings, coordinates normalised to [-1, 1] (Figure 6)",
                 fontsize=10)
    fig.tight_layout()
    return fig


def tsne_figure(sets, out_dir: str, embedder: str) -> Figure:
    return save(draw_tsne(sets), out_dir, "fig6_tsne",
                "Semantic coverage: t-SNE of question embeddings (Figure 6)",
                f"Embedder: {embedder}. One t-SNE per set.", dpi=DPI)


def draw_diversity(sets: Sequence["DatasetAnalysis"]):
    plt = _plt()
    fig, (ax_nn, ax_fam) = plt.subplots(1, 2, figsize=(12, 4.4))
    bins = np.linspace(-0.2, 1.0, 49)

    def hist(ax, i: int, values, label: str) -> None:
        values = np.clip(values, bins[0], bins[-1])
        ax.hist(values, bins=bins, histtype="step", lw=1.6, color=color(i),
                weights=np.full(len(values), 100.0 / len(values)), label=label)

    for i, d in enumerate(sets):
        hist(ax_nn, i, d.diversity.nn_similarity,
             f"{d.name} (mean {d.diversity.nn_similarity.mean():.2f})")
    fam = [(i, d) for i, d in enumerate(sets) if d.diversity.links]
    for i, d in fam:
        hist(ax_fam, i, [x.similarity for x in d.diversity.links],
             f"{d.name} ({100 * d.diversity.near_copy_share:.0f}% near-copies)")
    for ax in (ax_nn, ax_fam) if fam else (ax_nn,):
        for t in sorted({d.diversity.threshold for d in sets}):
            ax.axvline(t, color="grey", ls="--", lw=0.9)
        ax.legend(fontsize=8, frameon=False, loc="upper left")
    ax_nn.set(xlabel="Cosine similarity to the nearest other item", ylabel="Items (%)")
    ax_nn.set_title("(a) Nearest-neighbour similarity (dashed: near-duplicate threshold)",
                    fontsize=9)
    if fam:
        ax_fam.set_ylabel("Variants (%)")
    else:
        _empty(ax_fam, "No seed/variant families in these sets")
    ax_fam.set_xlabel("Cosine similarity of a variant to its seed")
    ax_fam.set_title("(b) Variant-to-seed similarity", fontsize=9)
    fig.tight_layout()
    return fig


def diversity_figure(sets, out_dir: str) -> Figure:
    return save(draw_diversity(sets), out_dir, "diversity",
                "Nearest-neighbour and variant-to-seed similarity", dpi=DPI)


def draw_accuracy(diff: "Difficulty"):
    plt = _plt()
    models, benches = diff.models, diff.benchmarks
    fig, ax = plt.subplots(figsize=(max(6.5, 1.3 * len(models) * max(1, len(benches)) / 2), 4.6))
    w = 0.8 / max(1, len(benches))
    for b, bench in enumerate(benches):
        xs, ys = [], []
        for m, model in enumerate(models):
            c = diff.cell(bench, model)
            if c is not None and c.accuracy is not None:
                xs.append(m + b * w)
                ys.append(100 * c.accuracy)
        bars = ax.bar(xs, ys, width=w, color=color(b), label=bench)
        for bar, y in zip(bars, ys):
            ax.text(bar.get_x() + bar.get_width() / 2, y + 1, f"{y:.1f}", ha="center",
                    fontsize=7)
    ax.set_xticks(np.arange(len(models)) + w * (len(benches) - 1) / 2)
    tilt = len(models) > 4
    ax.set_xticklabels([shown(m) for m in models], fontsize=8, rotation=20 if tilt else 0,
                       ha="right" if tilt else "center")
    ax.set(ylim=(0, 105), ylabel="Accuracy (%)")
    ax.set_title("Accuracy per benchmark per model (Figure 8)", fontsize=10)
    ax.legend(fontsize=8, frameon=False, ncol=len(benches))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def draw_tokens(diff: "Difficulty"):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 5.2))
    markers = "osD^vP*Xh<>"
    plotted = 0
    for m, model in enumerate(diff.models):
        pts = []
        for b, bench in enumerate(diff.benchmarks):
            c = diff.cell(bench, model)
            if c is None or c.accuracy is None or c.avg_output_tokens is None:
                continue
            pts.append((c.avg_output_tokens, 100 * c.accuracy))
            ax.scatter([c.avg_output_tokens], [100 * c.accuracy], color=color(b),
                       marker=markers[m % len(markers)], s=55, zorder=3, edgecolor="black",
                       linewidth=0.4)
            plotted += 1
        if len(pts) > 1:
            xs, ys = zip(*sorted(pts))
            ax.plot(xs, ys, color="grey", lw=0.8, alpha=0.6, zorder=2)
    if not plotted:
        _empty(ax, "No output_tokens recorded in these graded files")
    handles = [plt.Line2D([0], [0], marker="o", ls="", color=color(b), label=bench)
               for b, bench in enumerate(diff.benchmarks)]
    handles += [plt.Line2D([0], [0], marker=markers[m % len(markers)], ls="", color="grey",
                           label=shown(model)) for m, model in enumerate(diff.models)]
    ax.legend(handles=handles, fontsize=8, frameon=False, loc="center left",
              bbox_to_anchor=(1.01, 0.5))
    ax.set(xlabel="Average output tokens per response", ylabel="Accuracy (%)", xlim=(0, None))
    ax.set_title("Accuracy versus output length per benchmark (Figure 9; lines join a "
                 "model's benchmarks)", fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig, plotted


def difficulty_figures(diff: "Difficulty", out_dir: str) -> list[Figure]:
    f8 = save(draw_accuracy(diff), out_dir, "fig8_accuracy",
              "Accuracy per benchmark per model (Figure 8)", dpi=DPI)
    fig, plotted = draw_tokens(diff)
    f9 = save(fig, out_dir, "fig9_accuracy_vs_tokens",
              "Accuracy versus average output tokens per benchmark (Figure 9)",
              "" if plotted else "No graded file records output_tokens.", dpi=DPI)
    return [f8, f9]


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
    ax_hist.set(xlabel="Reasoning similarity to the nearest neighbour (0: independent, "
                       "5: same skeleton)", ylabel="Share of scored items (%)")
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
    ax_mean.set(xlim=(0, 5), xlabel="Mean score")
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
