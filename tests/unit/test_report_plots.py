"""Figures: written, non-empty, and readable at a glance for 26 published + 2 user models
(labels that do not overlap, legends outside the data)."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402

from general365.reporting import build_report, plots, stats  # noqa: E402
from general365.reporting.summary import ModelSummary  # noqa: E402
from test_report_cases import small_case  # noqa: E402


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    paths = small_case(str(tmp_path_factory.mktemp("graded")))
    rep = build_report(paths[:1], published="full", resamples=200)
    # a second model of the user's, with tokens, from the other file's beta rows
    rep2 = build_report(paths[1:], published="none", resamples=200)
    return rep.models + [m for m in rep2.models if m.name == "beta"]


def overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_figures_are_written(models, tmp_path):
    figs = plots.all_figures(models, str(tmp_path))
    assert [f.key for f in figs] == ["leaderboard", "accuracy_vs_tokens", "radar"]
    for f in figs:
        png = open(f.png, "rb").read()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
        assert b"<svg" in open(f.svg, "rb").read(3000)


def test_leaderboard_names_are_legible(models):
    assert sum(m.kind == "published" for m in models) == 26
    assert sum(m.kind == "run" for m in models) == 2
    fig, ax = plots.draw_leaderboard(models)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    labels = [t for t in ax.get_yticklabels() if t.get_text()]
    assert len(labels) == 28
    assert {t.get_text() for t in labels} >= {"alpha", "beta", "Gemini-3-Pro [paper, full]"}
    assert all(t.get_fontsize() >= 8 for t in labels)
    boxes = [t.get_window_extent(r) for t in labels]
    assert not any(overlaps(a, b) for a, b in itertools.combinations(boxes, 2))
    legend = ax.get_legend().get_window_extent(r)
    assert not overlaps(legend, ax.get_window_extent(r))   # never over the bars
    assert ax.get_xlabel() and "accuracy" in ax.get_xlabel().lower()
    matplotlib.pyplot.close(fig)


def _crowd(n: int) -> list[ModelSummary]:
    # n models within a few tokens and a point of accuracy of each other: the worst case
    out = []
    for i in range(n):
        out.append(ModelSummary(
            name=f"crowded-model-{i}", kind="run", group="reasoning",
            accuracy=0.50 + 0.002 * i, categories={},
            tokens=stats.Tokens(avg_output=10_000 + 30 * i, avg_reasoning=None, with_output=1,
                                with_reasoning=0, truncated=0, with_finish=0, rows=1)))
    return out


def test_token_labels_are_spread_apart():
    fig, ax, _ = plots.draw_tokens(_crowd(8) + [
        ModelSummary(name="far-away", kind="run", group="chat", accuracy=0.2, categories={},
                     tokens=stats.Tokens(2_000, None, 1, 0, 0, 0, 1))])
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    texts = [t for t in ax.texts if t.get_text().startswith(("crowded", "far"))]
    assert len(texts) == 9
    boxes = [t.get_window_extent(r) for t in texts]
    assert not any(overlaps(a, b) for a, b in itertools.combinations(boxes, 2))
    assert ax.get_xlabel() == "Average output tokens per response"
    assert ax.get_ylabel() == "Overall accuracy (%)"
    matplotlib.pyplot.close(fig)


def test_radar_shows_every_run_and_a_readable_number_of_polygons(models):
    chosen = plots.radar_selection(models)
    assert len(chosen) == plots.RADAR_MAX
    assert {m.name for m in chosen if m.kind == "run"} == {"alpha", "beta"}
    pub = [m.name for m in chosen if m.kind == "published"]
    assert pub[0] == "Gemini-3-Pro" and pub[-1] == "DeepSeek-V3.2-Chat"  # the range is shown
    fig, ax, _ = plots.draw_radar(models)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    assert len(ax.get_legend().get_texts()) == plots.RADAR_MAX
    legend = ax.get_legend().get_window_extent(r)
    assert not overlaps(legend, ax.get_window_extent(r))
    assert not any(overlaps(legend, t.get_window_extent(r)) for t in ax.get_xticklabels())
    matplotlib.pyplot.close(fig)


def test_tokens_figure_without_tokens_says_so(tmp_path):
    f = plots.tokens_figure([ModelSummary(name="x", kind="run", group="other", accuracy=0.5,
                                          categories={})], str(tmp_path))
    assert "no run reports output_tokens" in f.note


def test_token_figure_keeps_every_interval_inside_the_axes():
    # A wide 95% interval (few seed families) must not run off the top or bottom.
    wide = ModelSummary(name="wide", kind="run", group="reasoning", accuracy=0.379,
                        categories={}, interval=stats.Interval(low=0.267, high=0.492, level=0.95, resamples=200,
                                                 seed=0, families=30),
                        tokens=stats.Tokens(64, None, 1, 0, 0, 0, 1))
    floor = ModelSummary(name="floor", kind="run", group="reasoning", accuracy=0.0,
                         categories={}, interval=stats.Interval(low=0.0, high=0.0, level=0.95, resamples=200,
                                                  seed=0, families=30),
                         tokens=stats.Tokens(160, None, 1, 0, 0, 0, 1))
    fig, ax, _ = plots.draw_tokens([wide, floor])
    low, high = ax.get_ylim()
    assert low <= 0.0 and high >= 49.2
    matplotlib.pyplot.close(fig)


@pytest.mark.parametrize("accuracy,tokens", [(0.0, 120), (1.0, 120), (0.0, 0), (0.5, 80)])
def test_a_lone_point_is_drawn_inside_the_axes_not_on_them(accuracy, tokens):
    # One model (the demo's random one scores 0%): its marker must sit clear of every
    # axis line, or it reads as no data.
    lone = ModelSummary(name="lone", kind="run", group="reasoning", accuracy=accuracy,
                        categories={}, interval=stats.Interval(
                            low=accuracy, high=accuracy, level=0.95, resamples=200, seed=0,
                            families=3),
                        tokens=stats.Tokens(tokens, None, 1, 0, 0, 0, 1))
    fig, ax, _ = plots.draw_tokens([lone])
    fig.canvas.draw()
    box = ax.get_window_extent(fig.canvas.get_renderer())
    px, py = ax.transData.transform((tokens, 100 * accuracy))
    margin = 8   # pixels: more than the marker's radius
    assert box.x0 + margin < px < box.x1 - margin
    assert box.y0 + margin < py < box.y1 - margin
    matplotlib.pyplot.close(fig)
