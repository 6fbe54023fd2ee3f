"""Difficulty filtering (`general365 analyze difficulty GRADED...`): each problem's solve
rate across models and runs, from graded files the test writes; the too-easy problems (the
paper's filter), the ones no model solves (check the gold), and the seed families whose
variants differ widely; in analysis.json, the tables and the page."""

from __future__ import annotations

import csv
import json

import pytest

from general365.analysis.difficulty import solve_rates
from general365.cli import main
from general365.reporting.load import load_graded

# id -> (seed_id, {model: [correct?, ...] one per run})
PLAN = {
    "s1": ("s1", {"a": [1, 1], "b": [1, 1]}),          # every model, every run: too easy
    "s1-v1": ("s1", {"a": [0, 0], "b": [0, 0]}),       # nobody: check the gold
    "s1-v2": ("s1", {"a": [1, 0], "b": [1, 1]}),       # 75%
    "s2": ("s2", {"a": [1, 0], "b": [0, 1]}),          # 50%
    "s2-v1": ("s2", {"a": [0, 1], "b": [1, 1]}),       # 75%: spread 0.25, not flagged
    "s3": ("s3", {"a": [1, 1], "b": [1, 0]}),          # 75%, too easy only at --too-easy 0.5
}


def write_graded(path, model: str, extra_rows=()) -> str:
    with open(path, "w", encoding="utf-8") as f:
        for pid, (seed, runs) in PLAN.items():
            for run, ok in enumerate(runs[model]):
                f.write(json.dumps({"id": pid, "run": run, "model": model,
                                    "seed_id": seed, "variant": 0 if pid == seed else 1,
                                    "status": "correct" if ok else "incorrect",
                                    "correct": bool(ok)}) + "\n")
        for row in extra_rows:
            f.write(json.dumps(row) + "\n")
    return str(path)


@pytest.fixture
def graded(tmp_path):
    # a text answer no judge graded: no rate, no flag
    ungraded = {"id": "t1", "run": 0, "model": "a", "seed_id": "t1", "variant": 0,
                "status": "ungraded", "correct": False}
    return [write_graded(tmp_path / "a.jsonl", "a", [ungraded]),
            write_graded(tmp_path / "b.jsonl", "b")]


def test_solve_rates_flags(graded):
    rows = [r for m in load_graded(graded) for r in m.rows]
    sr = solve_rates([("G", rows)])
    rates = {p.id: p for p in sr.problems}
    assert set(rates) == set(PLAN) and sr.ungraded == 1
    assert rates["s1"].rate == 1.0 and rates["s1"].flag == "too_easy"
    assert rates["s1-v1"].flag == "check_gold" and rates["s1-v1"].answers == 4
    assert rates["s1-v2"].rate == 0.75 and rates["s1-v2"].per_model == {"a": 0.5, "b": 1.0}
    assert [p.flag for p in sr.problems][:2] == ["too_easy", "check_gold"]   # flagged first
    fams = {f.seed_id: f for f in sr.families}
    assert fams["s1"].flagged and fams["s1"].spread == 1.0
    assert (fams["s1"].hardest, fams["s1"].easiest) == ("s1-v1", "s1")
    assert not fams["s2"].flagged and fams["s2"].spread == 0.25
    assert "s3" not in fams   # one member: no spread
    looser = solve_rates([("G", rows)], too_easy=0.5, family_spread=0.25)
    assert {p.id for p in looser.flagged("too_easy")} == {"s1", "s1-v2", "s2", "s2-v1", "s3"}
    assert {f.seed_id for f in looser.spread_families} == {"s1", "s2"}


def test_analyze_difficulty_writes_tables_and_page(graded, tmp_path, capsys):
    out = tmp_path / "diff"
    assert main(["analyze", "difficulty", *graded, "--out", str(out), "--no-progress"]) == 0
    lines = capsys.readouterr().out
    assert "too easy (every model solves it) 1; no model solves it (check the gold) 1" in lines
    assert "families with a spread >= 0.5: 1 of 2" in lines
    assert "spread families: s1 (0-100%)" in lines
    data = json.loads((out / "analysis.json").read_text())["difficulty"]
    assert data["benchmarks"] == ["General365"]
    sr = data["solve_rates"]
    assert sr["counts"] == {"problems": 6, "too_easy": 1, "check_gold": 1, "families": 2,
                            "families_spread": 1, "ungraded_problems": 1}
    with open(out / "tables" / "solve_rates.csv", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert [(r["Id"], r["Flag"]) for r in table[:2]] == [("s1", "too_easy"),
                                                         ("s1-v1", "check_gold")]
    assert {r["Id"]: r["Solve rate (%)"] for r in table}["s1-v2"] == "75.00"
    with open(out / "tables" / "family_spread.csv", encoding="utf-8") as f:
        fams = list(csv.DictReader(f))
    assert fams[0]["Seed id"] == "s1" and fams[0]["Flagged"] == "yes"
    page = (out / "index.html").read_text()
    assert 'id="solve_rates"' in page and 'id="family_spread"' in page


def test_named_benchmarks_and_thresholds(graded, tmp_path, capsys):
    out = tmp_path / "diff"
    assert main(["analyze", "difficulty", f"Mine={graded[0]}", f"Mine={graded[1]}",
                 "--too-easy", "0.5", "--family-spread", "0.25", "--out", str(out),
                 "--no-progress"]) == 0
    sr = json.loads((out / "analysis.json").read_text())["difficulty"]["solve_rates"]
    assert sr["counts"]["too_easy"] == 5 and sr["counts"]["families_spread"] == 2
    assert {p["benchmark"] for p in sr["problems"]} == {"Mine"}
    # the same tables come with --graded beside datasets
    assert main(["analyze", "--graded", f"G={graded[0]}", "--out", str(tmp_path / "g"),
                 "--no-progress"]) == 0
    assert (tmp_path / "g" / "tables" / "solve_rates.csv").exists()
    capsys.readouterr()


@pytest.mark.parametrize("argv, message", [
    (["analyze", "difficulty"], "expected one or more graded files"),
    (["analyze", "difficulty", "{a}", "--too-easy", "0"], "--too-easy must be a share in (0, 1]"),
    (["analyze", "difficulty", "{a}", "--family-spread", "2"],
     "--family-spread must be a share in (0, 1]"),
    (["analyze", "difficulty", "{a}", "{a}"], "duplicate row"),
    (["analyze", "difficulty", "missing.jsonl"], "missing.jsonl"),
])
def test_errors_exit_2_with_one_line(graded, tmp_path, capsys, argv, message):
    argv = [w.replace("{a}", graded[0]) for w in argv] + ["--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err, err
    assert not (tmp_path / "o").exists()
