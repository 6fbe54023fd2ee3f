"""Every cell of every table for the small hand-worked case (see test_report_cases.py)."""

from __future__ import annotations

import csv
import io

import pytest

from general365.reporting import build_report
from general365.reporting.tables import to_csv, to_markdown
from test_report_cases import small_case

CATS = ["Complex Constraints", "Branching & Enumeration", "Spatial & Temporal",
        "Recursive & Backtracking", "Semantic Interference", "Implicit Information",
        "Optimal Strategy", "Probability & Uncertainty"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    paths = small_case(str(tmp_path_factory.mktemp("graded")))
    return build_report(paths, published="none", resamples=500, seed=7)


def rows_by_model(table):
    return {r[0]: dict(zip([c.name for c in table.columns], r)) for r in table.rows}


def test_table1_every_cell(report):
    t = report.table("table1_categories")
    assert [c.name for c in t.columns] == (
        ["Model", "Source"] + CATS + ["Overall", "95% CI low", "95% CI high", "Graded",
                                      "no_answer", "timeout", "judge_failed", "ungraded",
                                      "Coverage"])
    # grouped: reasoning, chat, other (by the rows' sampling preset)
    assert [r[0] for r in t.rows] == ["alpha", "beta", "gamma"]
    assert t.groups == ["Reasoning Models", "Chat Models",
                        "Other Models (no reasoning/chat preset recorded)"]
    by = rows_by_model(t)
    expect = {
        # categories: CC, BE, ST, RB, SI, II, OS, PU; then overall, graded, statuses, coverage
        "alpha": ([3 / 4, 3 / 4, 0 / 4, None, None, None, None, 1 / 1],
                  4 / 9, 9, [1, 1, 0, 1], 9 / 10),
        "beta": ([0 / 2, 0 / 2, 1 / 2, None, None, None, None, 1 / 1],
                 2 / 5, 5, [0, 0, 1, 0], 1.0),
        "gamma": ([1.0, 1.0, None, None, None, None, None, 1.0], 1.0, 2, [0, 0, 0, 0], 1.0),
    }
    for model, (cats, overall, graded, statuses, coverage) in expect.items():
        r = by[model]
        assert r["Source"] == "your run"
        assert [r[c] for c in CATS] == pytest.approx(cats)
        assert r["Overall"] == pytest.approx(overall)
        assert r["Graded"] == graded
        assert [r[s] for s in ("no_answer", "timeout", "judge_failed", "ungraded")] == statuses
        assert r["Coverage"] == pytest.approx(coverage)
        assert r["95% CI low"] <= r["Overall"] <= r["95% CI high"]
    # gamma is always right: its interval cannot move
    assert by["gamma"]["95% CI low"] == by["gamma"]["95% CI high"] == 1.0
    assert "counts in each of them" in t.note


def test_status_table_every_cell(report):
    by = rows_by_model(report.table("statuses"))
    assert by["alpha"] == {"Model": "alpha", "Rows": 10, "Graded": 9, "Coverage": 0.9,
                           "Accuracy": pytest.approx(4 / 9), "correct": 4, "incorrect": 3,
                           "no_answer": 1, "timeout": 1, "judge_failed": 0, "ungraded": 1}
    assert by["beta"] == {"Model": "beta", "Rows": 5, "Graded": 5, "Coverage": 1.0,
                          "Accuracy": pytest.approx(0.4), "correct": 2, "incorrect": 2,
                          "no_answer": 0, "timeout": 0, "judge_failed": 1, "ungraded": 0}
    assert by["gamma"]["Rows"] == 2 and by["gamma"]["Accuracy"] == 1.0


def test_answer_type_table_every_cell(report):
    t = report.table("answer_types")
    got = [tuple(r) for r in t.rows]
    assert got == [
        # model, type, accuracy, correct, graded, no_answer, timeout, judge_failed, ungraded
        ("alpha", "number", 3 / 4, 3, 4, 0, 0, 0, 0),
        ("alpha", "single_choice", 1.0, 1, 1, 0, 0, 0, 1),
        ("alpha", "text", 0.0, 0, 4, 1, 1, 0, 0),
        ("beta", "number", 0.0, 0, 2, 0, 0, 0, 0),
        ("beta", "single_choice", 1.0, 1, 1, 0, 0, 0, 0),
        ("beta", "text", 0.5, 1, 2, 0, 0, 1, 0),
        ("gamma", "number", 1.0, 1, 1, 0, 0, 0, 0),
        ("gamma", "single_choice", 1.0, 1, 1, 0, 0, 0, 0),
    ]


def test_seed_variant_table_every_cell(report):
    got = [tuple(r) for r in report.table("seed_variant").rows]
    assert got == [
        ("alpha", "seed", 3 / 5, 3, 5, 0, 1, 0, 1),
        ("alpha", "variant", 1 / 4, 1, 4, 1, 0, 0, 0),
        ("beta", "seed", 2 / 3, 2, 3, 0, 0, 0, 0),
        ("beta", "variant", 0.0, 0, 2, 0, 0, 1, 0),
        ("gamma", "seed", 1.0, 2, 2, 0, 0, 0, 0),
        ("gamma", "variant", None, 0, 0, 0, 0, 0, 0),
    ]


def test_stability_table(report):
    t = report.table("stability")
    assert [c.name for c in t.columns] == ["Model", "Source", "Runs", "Run 1", "Run 2", "Mean",
                                           "Delta (max-min)", "avg@N", "pass@N"]
    by = rows_by_model(t)
    a = by["alpha"]
    assert a["Runs"] == 2
    assert a["Run 1"] == pytest.approx(3 / 5)          # run 0: 5 graded, 3 correct
    assert a["Run 2"] == pytest.approx(1 / 4)          # run 1: 4 graded (s3 ungraded), 1 correct
    assert a["Mean"] == pytest.approx((3 / 5 + 1 / 4) / 2)
    assert a["Delta (max-min)"] == pytest.approx(3 / 5 - 1 / 4)
    # per problem share of runs correct: s1 1, s1-v1 1/2, s2 0, s2-v1 0, s3 1 (one graded run)
    assert a["avg@N"] == pytest.approx(2.5 / 5)
    assert a["pass@N"] == pytest.approx(3 / 5)
    b = by["beta"]
    assert (b["Runs"], b["Run 1"], b["Run 2"], b["Delta (max-min)"]) == (1, 0.4, None, 0.0)
    assert b["avg@N"] == pytest.approx(0.4) and b["pass@N"] == pytest.approx(0.4)


def test_consistency_table(report):
    by = rows_by_model(report.table("consistency"))
    # alpha run 0: s1 all correct, s2 all wrong; run 1: s1 mixed, s2 all wrong; s3 never
    # counts (a family of one, and ungraded in run 1)
    a = by["alpha"]
    assert (a["Families"], a["Runs"]) == (4, 2)
    assert (a["All correct"], a["All wrong"], a["Mixed"]) == pytest.approx((0.25, 0.5, 0.25))
    b = by["beta"]  # s1 all wrong, s2 mixed
    assert (b["Families"], b["Runs"], b["All correct"], b["All wrong"], b["Mixed"]) == \
        (2, 1, 0.0, 0.5, 0.5)
    g = by["gamma"]  # two families of one graded member each: none counted
    assert (g["Families"], g["All correct"]) == (0, None)


def test_tokens_table(report):
    by = rows_by_model(report.table("tokens"))
    a = by["alpha"]
    assert a["Avg output tokens"] == pytest.approx((1500 + 3000) / 9)
    assert a["Avg reasoning tokens"] == pytest.approx((50 + 150) / 2)
    assert (a["Truncated"], a["Rows with tokens"], a["Rows"]) == (2, 9, 10)
    assert a["Truncation rate"] == pytest.approx(2 / 9)  # among rows with a finish_reason
    b = by["beta"]
    assert (b["Avg output tokens"], b["Truncation rate"], b["Rows"]) == (None, None, 5)


def test_leaderboard_ranks_all_groups_together(report):
    t = report.table("table1_categories")
    from general365.reporting.tables import leaderboard_table

    board = leaderboard_table(report.models)
    assert [r[1] for r in board.rows] == ["gamma", "alpha", "beta"]
    assert board.column("Rank") == [1, 2, 3]
    assert t.cell("alpha", "Overall") == pytest.approx(4 / 9)


def test_markdown_and_csv_renderings(report):
    t = report.table("statuses")
    text = to_csv(t)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["Model", "Rows", "Graded", "Coverage (%)", "Accuracy (%)", "correct",
                       "incorrect", "no_answer", "timeout", "judge_failed", "ungraded"]
    assert rows[1] == ["alpha", "10", "9", "90.00", "44.44", "4", "3", "1", "1", "0", "1"]
    md = to_markdown(report.table("table1_categories"))
    assert "| **Reasoning Models** |" in md and "| **Chat Models** |" in md
    assert "| alpha | your run | 75.0 | 75.0 | 0.0 |  |" in md
    # a "|" in a model name must not break the Markdown table
    from general365.reporting.tables import Column, Table

    odd = Table("x", "x", [Column("Model")], rows=[["a|b"]])
    assert "a\\|b" in to_markdown(odd)


def test_published_rows_sit_in_the_same_table(tmp_path):
    paths = small_case(str(tmp_path))
    rep = build_report(paths, published="full", resamples=200)
    t = rep.table("table1_categories")
    names = [r[0] for r in t.rows]
    assert len(names) == 3 + 26
    # alpha (44.4%) ranks among the paper's reasoning models, by Overall
    reasoning = [r for r, g in zip(t.rows, t.groups) if g == "Reasoning Models"]
    overall = [r[[c.name for c in t.columns].index("Overall")] for r in reasoning]
    assert overall == sorted(overall, reverse=True)
    src = dict((r[0], r[1]) for r in t.rows)
    assert src["Gemini-3-Pro"] == "paper (full)" and src["alpha"] == "your run"
    stab = rows_by_model(rep.table("stability"))
    assert stab["GLM-4.7-Thinking"]["Delta (max-min)"] == pytest.approx(0.020)
    assert stab["GLM-4.7-Thinking"]["Run 4"] == pytest.approx(0.574)
    pub = build_report(paths, published="public", resamples=200)
    t2 = pub.table("table1_categories")
    assert t2.cell("Gemini-3-Pro", "Overall") == pytest.approx(0.613)
    assert t2.cell("Gemini-3-Pro", "Source") == "paper (public)"
    assert t2.cell("Gemini-3-Pro", "Complex Constraints") is None


def test_a_random_weight_model_is_grouped_as_a_demo_not_by_its_preset(tmp_path):
    # The demo samples its tiny random model with the reasoning preset; run.json says the
    # weights are random, and that, not the preset, decides its group.
    import json
    import os

    paths = small_case(str(tmp_path / "alpha"))
    demo = tmp_path / "demo"
    os.makedirs(demo)
    os.replace(paths[0], demo / "graded.jsonl")
    (demo / "run.json").write_text(json.dumps({"model": "alpha", "backend": "transformers",
                                               "random_weights": True}))
    rep = build_report([str(demo / "graded.jsonl"), paths[1]], published="full",
                       resamples=200)
    t = rep.table("table1_categories")
    groups = dict(zip([r[0] for r in t.rows], t.groups))
    assert groups["alpha"] == "Demo Models (random weights: their scores mean nothing)"
    assert groups["beta"] == "Chat Models" and groups["Gemini-3-Pro"] == "Reasoning Models"
    # the demo group comes last, after the paper's models and the user's real ones
    assert t.groups[-1] == groups["alpha"]
    from general365.reporting.tables import leaderboard_table

    assert leaderboard_table(rep.models).cell("alpha", "Group", label_column=1) == "demo"
