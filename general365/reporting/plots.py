"""The paper's figures for any set of models, as PNG and SVG (matplotlib's Agg backend): the
ranked leaderboard (Figure 1), accuracy versus output tokens (Figure 4), the category radar
(Figure 5)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Sequence

from ..errors import MissingExtra
from ..schema import Category
from ..terminal import shown
from .summary import ModelSummary, leaderboard_order

RADAR_MAX = 10            # polygons on the radar; more is unreadable
COLORS = {"run": "#d95f02", "reasoning": "#4c72b0", "chat": "#55a868", "other": "#8c8c8c"}
RUN_COLORS = ("#d95f02", "#e7298a", "#7570b3", "#1b9e77", "#a6761d", "#e6ab02", "#666666")
PASSING = 0.60            # the paper's Figure 1 marks a 60% passing standard


@dataclass(frozen=True)
class Figure:
    key: str                # file stem
    title: str
    png: str
    svg: str
    note: str = ""


def _plt():
    try:
        import matplotlib
    except ImportError:
        raise MissingExtra("matplotlib", "plots") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def save(fig, out_dir: str, key: str, title: str, note: str = "", *, dpi: int = 150) -> Figure:
    """Write `fig` as KEY.png and KEY.svg, and close it."""
    png, svg = os.path.join(out_dir, key + ".png"), os.path.join(out_dir, key + ".svg")
    fig.savefig(png, dpi=dpi, bbox_inches="tight")
    fig.savefig(svg, bbox_inches="tight")
    _plt().close(fig)
    return Figure(key, title, png, svg, note)


def _color(s: ModelSummary) -> str:
    return COLORS["run"] if s.kind == "run" else COLORS.get(s.group, COLORS["other"])


def draw_leaderboard(models: Sequence[ModelSummary], title: str = "General365"):
    plt = _plt()
    ms = [m for m in leaderboard_order(models) if m.accuracy is not None]
    n = max(len(ms), 1)
    fig, ax = plt.subplots(figsize=(9, 1.6 + 0.3 * n))
    ys = list(range(n))[::-1][: len(ms)]
    for y, m in zip(ys, ms):
        acc = 100 * m.accuracy
        ax.barh(y, acc, color=_color(m), height=0.7, edgecolor="white")
        right = acc
        if m.interval is not None:
            lo, hi = 100 * m.interval.low, 100 * m.interval.high
            ax.errorbar(acc, y, xerr=[[acc - lo], [hi - acc]], fmt="none", ecolor="black",
                        capsize=3, lw=1)
            right = hi
        ax.text(right + 0.6, y, f"{acc:.1f}", va="center", fontsize=8)
    ax.set_yticks(ys)
    for tick, m in zip(ax.set_yticklabels([shown(m.label) for m in ms], fontsize=8), ms):
        if m.kind == "run":
            tick.set_fontweight("bold")
    top = max([100 * (m.interval.high if m.interval else m.accuracy) for m in ms] + [PASSING * 100])
    ax.set_xlim(0, min(100, top + 8))
    ax.axvline(100 * PASSING, color="grey", ls="--", lw=0.8)
    ax.set_xlabel("Overall accuracy (%)")
    ax.set_title(f"{title} leaderboard (bars: accuracy; whiskers: 95% CI, seed-family "
                 "bootstrap)", fontsize=10)
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D

    handles = [Patch(color=COLORS["run"], label="your runs"),
               Patch(color=COLORS["reasoning"], label="paper: reasoning models"),
               Patch(color=COLORS["chat"], label="paper: chat models"),
               Line2D([0], [0], color="grey", ls="--", lw=0.8, label="60% passing standard")]
    # Below the axis label, so that it never covers a bar: 0.45 inch under the axes.
    ax_height_in = fig.get_figheight() * (fig.subplotpars.top - fig.subplotpars.bottom)
    ax.legend(handles=handles, loc="upper center", ncol=4, fontsize=8, frameon=False,
              bbox_to_anchor=(0.5, -0.45 / ax_height_in))
    return fig, ax


def _spread_labels(ax, texts, points, iterations: int = 200) -> None:
    """Push overlapping labels apart vertically (in display pixels) and tie each moved label
    to its point with a thin line."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    to_disp, to_data = ax.transData.transform, ax.transData.inverted().transform
    pos = [list(to_disp(t.get_position())) for t in texts]
    boxes = [t.get_window_extent(renderer) for t in texts]
    sizes = [(b.width, b.height) for b in boxes]
    anchors = [to_disp(p)[1] for p in points]
    for _ in range(iterations):
        moved = False
        for i in range(len(texts)):
            for j in range(i + 1, len(texts)):
                (xi, yi), (xj, yj) = pos[i], pos[j]
                wi, hi = sizes[i]
                wj, hj = sizes[j]
                if xi < xj + wj and xj < xi + wi and yi < yj + hj and yj < yi + hi:
                    push = (min(yi + hi, yj + hj) - max(yi, yj)) / 2 + 1
                    # the higher point's label goes up: labels keep the points' order
                    if (anchors[i], i) < (anchors[j], j):
                        push = -push
                    pos[i][1] += push
                    pos[j][1] -= push
                    moved = True
        if not moved:
            break
    for t, p, (px, py) in zip(texts, pos, points):
        x, y = to_data(p)
        t.set_position((x, y))
        if abs(p[1] - to_disp((px, py))[1]) > 12:
            ax.plot([px, x], [py, y], color="grey", lw=0.5, zorder=1)


def draw_tokens(models: Sequence[ModelSummary]):
    plt = _plt()
    ms = [m for m in models if m.accuracy is not None and m.tokens is not None
          and m.tokens.avg_output is not None]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    note = ""
    if not ms:
        ax.text(0.5, 0.5, "No output_tokens recorded in these runs", ha="center",
                va="center", transform=ax.transAxes)
        note = "no run reports output_tokens"
    texts, points = [], []
    for m in ms:
        x, y = m.tokens.avg_output, 100 * m.accuracy
        ax.scatter([x], [y], color=_color(m), s=40, zorder=3,
                   edgecolor="black" if m.kind == "run" else "none")
        if m.interval is not None:
            ax.errorbar([x], [y], yerr=[[y - 100 * m.interval.low], [100 * m.interval.high - y]],
                        fmt="none", ecolor=_color(m), lw=0.8, alpha=0.6)
        texts.append(ax.annotate(shown(m.label), (x, y), xytext=(x, y), fontsize=8, zorder=4,
                                 va="center"))
        points.append((x, y))
    if ms:
        xs = [p[0] for p in points]
        # from zero (lengths compare by ratio), room on the right for the labels, and
        # margins so that no point or whisker is drawn on an axis, where it reads as no data
        span = max(xs) or 1.0
        ax.set_xlim(min(0.0, min(xs) - 0.05 * span), 1.35 * span)
        lows = [100 * m.interval.low if m.interval else y for m, (_, y) in zip(ms, points)]
        highs = [100 * m.interval.high if m.interval else y for m, (_, y) in zip(ms, points)]
        ax.set_ylim(min(lows) - 5, max(highs) + 5)
        for t, (x, y) in zip(texts, points):
            t.set_position((x + 0.02 * span, y))
        _spread_labels(ax, texts, points)
    ax.set_xlabel("Average output tokens per response")
    ax.set_ylabel("Overall accuracy (%)")
    ax.set_title("Accuracy versus output length (Figure 4)", fontsize=10)
    ax.grid(alpha=0.3)
    return fig, ax, note


def tokens_figure(models: Sequence[ModelSummary], out_dir: str) -> Figure:
    fig, _, note = draw_tokens(models)
    return save(fig, out_dir, "accuracy_vs_tokens",
                "Accuracy versus average output tokens (Figure 4)",
                note or "Published models are absent: the paper prints their token counts "
                "only as a plot.")


def radar_selection(models: Sequence[ModelSummary], limit: int = RADAR_MAX) -> list[ModelSummary]:
    """Every run with category scores, then published models evenly spaced over the ranking
    up to `limit` polygons."""
    has = [m for m in leaderboard_order(models)
           if any(v is not None for v in m.categories.values())]
    runs = [m for m in has if m.kind == "run"][:limit]
    pub = [m for m in has if m.kind == "published"]
    k = max(0, min(len(pub), limit - len(runs)))
    if k == 0:
        return runs
    if k == 1:
        return runs + [pub[0]]
    idx = sorted({round(i * (len(pub) - 1) / (k - 1)) for i in range(k)})
    return runs + [pub[i] for i in idx]


def draw_radar(models: Sequence[ModelSummary]):
    plt = _plt()
    chosen = radar_selection(models)
    cats = [c.value for c in Category]
    angles = [2 * math.pi * i / len(cats) for i in range(len(cats))]
    fig = plt.figure(figsize=(10, 7))
    ax = fig.add_subplot(111, projection="polar")
    cmap = plt.get_cmap("tab10")
    pub_i = run_i = 0
    for m in chosen:
        vals = [100 * (m.categories.get(c) or 0.0) for c in cats]
        if m.kind == "run":
            color, lw, ls = RUN_COLORS[run_i % len(RUN_COLORS)], 2.4, "-"
            run_i += 1
        else:
            color, lw, ls = cmap(pub_i % 10), 1.1, "--"
            pub_i += 1
        line, = ax.plot(angles + angles[:1], vals + vals[:1], lw=lw, ls=ls, color=color,
                        label=shown(m.label), marker="o" if m.kind == "run" else None, ms=3)
        ax.fill(angles + angles[:1], vals + vals[:1], alpha=0.06, color=line.get_color())
    ax.set_xticks(angles)   # labels on two lines: the side ones stay clear of the legend
    ax.set_xticklabels([c.replace(" & ", " &\n") if " & " in c else c.replace(" ", "\n", 1)
                        for c in cats], fontsize=8)
    ax.xaxis.set_tick_params(pad=10)
    ax.set_ylim(0, 100)
    ax.set_yticks([20, 40, 60, 80])
    ax.set_yticklabels(["20%", "40%", "60%", "80%"], fontsize=7, color="grey")
    ax.set_title("Accuracy by challenge category (Figure 5)", fontsize=10, pad=24)
    # outside the polar axes, on the right: it never covers a polygon
    ax.legend(loc="center left", bbox_to_anchor=(1.3, 0.5), fontsize=8, frameon=False)
    return fig, ax, chosen


def radar_figure(models: Sequence[ModelSummary], out_dir: str) -> Figure:
    fig, _, chosen = draw_radar(models)
    shown = sum(m.kind == "published" for m in chosen)
    total = sum(m.kind == "published" for m in models)
    note = (f"{shown} of {total} published models shown, evenly spaced over the ranking; "
            "Table 1 has them all." if total > shown else "")
    return save(fig, out_dir, "radar", "Accuracy by challenge category (Figure 5)", note)


def all_figures(models: Sequence[ModelSummary], out_dir: str, *, title: str = "General365",
                radar: bool = True) -> list[Figure]:
    """The report's figures; `radar=False` for a benchmark without categories."""
    os.makedirs(out_dir, exist_ok=True)
    fig, _ = draw_leaderboard(models, title)
    figures = [save(fig, out_dir, "leaderboard", "Overall accuracy, ranked (Figure 1)"),
               tokens_figure(models, out_dir)]
    if radar:
        figures.append(radar_figure(models, out_dir))
    return figures
