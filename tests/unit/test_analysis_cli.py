"""`general365 analyze` end to end: what it writes, what it prints, how it refuses bad
input (exit 2, one line, nothing written), and Figures 8 and 9 from graded files of two
benchmarks."""

from __future__ import annotations

import csv
import json
import os

import pytest

import general365
from general365.analysis import write as output_mod
from general365.cli import main
from support.templated import write_templated


def _graded(path, model, statuses, tokens):
    with open(path, "w", encoding="utf-8") as f:
        for i, (st, tok) in enumerate(zip(statuses, tokens)):
            f.write(json.dumps({"id": f"q{i}", "run": 0, "model": model, "status": st,
                                "correct": st == "correct", "output_tokens": tok}) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def analysis_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("analyze")
    tpl = write_templated(root / "templated.jsonl")
    g = [_graded(root / "a_g365.jsonl", "alpha", ["correct", "incorrect", "incorrect",
                                                  "ungraded"], [1000, 3000, 5000, None]),
         _graded(root / "a_bbh.jsonl", "alpha", ["correct", "correct", "correct", "incorrect"],
                 [100, 200, 300, 400]),
         _graded(root / "b_g365.jsonl", "beta", ["correct", "correct", "no_answer", "incorrect"],
                 [2000, 2000, 2000, 2000]),
         _graded(root / "b_bbh.jsonl", "beta", ["correct", "correct", "correct", "correct"],
                 [None, None, None, None])]
    out = root / "out"
    (out / "keep").mkdir(parents=True)
    (out / "keep" / "mine.txt").write_text("left alone")
    return root, out, tpl, g


@pytest.fixture(scope="module")
def ran(analysis_dir):
    root, out, tpl, g = analysis_dir
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["analyze", "sample", f"templated={tpl}", "--embedder", "tfidf",
                   "--out", str(out), "--no-progress", "--graded", f"General365={g[0]}",
                   "--graded", f"BBH={g[1]}", "--graded", f"General365={g[2]}",
                   "--graded", f"BBH={g[3]}"])
    return rc, buf.getvalue(), out


def test_writes_every_output(ran):
    rc, printed, out = ran
    assert rc == 0
    for f in ("analysis.json", "tsne.csv", "index.html", "tables/datasets.csv",
              "tables/categories.csv", "tables/labels_per_problem.csv",
              "tables/answer_types.csv", "tables/question_length.csv",
              "tables/near_duplicates.csv", "tables/variant_seed_similarity.csv",
              "tables/difficulty.csv"):
        assert (out / f).is_file(), f
    for key in ("fig3_statistics", "fig6_tsne", "diversity", "fig8_accuracy",
                "fig9_accuracy_vs_tokens"):
        assert (out / "figures" / f"{key}.png").read_bytes()[:4] == b"\x89PNG"
        assert b"<svg" in (out / "figures" / f"{key}.svg").read_bytes()[:400]
    assert (out / "keep" / "mine.txt").read_text() == "left alone"
    assert not [p for p in os.listdir(out.parent) if p.startswith(".general365-analysis-")]


def test_analysis_json(ran):
    _, _, out = ran
    a = json.loads((out / "analysis.json").read_text())
    assert a["schema"] == "general365.analysis" and a["version"] == 1
    assert list(a["datasets"]) == ["sample", "templated"]
    s, t = a["datasets"]["sample"], a["datasets"]["templated"]
    problems = general365.load_problems("sample")
    seeds = sum(p.variant == 0 for p in problems)
    assert (s["n"], s["seeds"], s["variants"], s["kind"]) == (
        len(problems), seeds, len(problems) - seeds, "general365")
    for key in ("nn_similarity_mean", "near_duplicate_share", "local_collapse",
                "near_copy_share", "mean_pairwise_similarity"):
        assert isinstance(s[key], float) and isinstance(t[key], float)
    assert t["near_duplicate_share"] == 1.0 > s["near_duplicate_share"]
    assert s["tsne"] == {"perplexity": 30.0, "method": "opentsne", "note": None}
    assert s["statistics"]["categories"]["Complex Constraints"] > 0
    assert a["settings"]["embedder"]["kind"] == "tfidf" and a["settings"]["mask"] is True
    d = a["difficulty"]
    assert d["benchmarks"] == ["General365", "BBH"] and d["models"] == ["alpha", "beta"]
    cells = {(c["benchmark"], c["model"]): c for c in d["cells"]}
    # alpha on General365: 1 correct of 3 graded (the ungraded row left out), 3 rows' tokens
    assert cells["General365", "alpha"]["accuracy"] == pytest.approx(1 / 3)
    assert cells["General365", "alpha"]["avg_output_tokens"] == pytest.approx(3000)
    assert cells["BBH", "alpha"]["accuracy"] == 0.75
    assert cells["General365", "beta"]["accuracy"] == 0.5
    assert cells["BBH", "beta"]["avg_output_tokens"] is None


def test_tsne_csv(ran):
    _, _, out = ran
    with open(out / "tsne.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["dataset", "id", "x", "y"]
    assert len(rows) == len(general365.load_problems("sample")) + 120   # + the templated set
    assert {r["dataset"] for r in rows} == {"sample", "templated"}
    for name in ("sample", "templated"):
        xs = [float(r["x"]) for r in rows if r["dataset"] == name]
        ys = [float(r["y"]) for r in rows if r["dataset"] == name]
        assert min(xs) == -1.0 and max(xs) == 1.0 and min(ys) == -1.0 and max(ys) == 1.0
    assert rows[0]["id"] == "g365s-001"


def test_tables_and_summary(ran):
    _, printed, out = ran
    with open(out / "tables" / "datasets.csv", newline="") as f:
        rows = {r["Dataset"]: r for r in csv.DictReader(f)}
    assert rows["templated"]["Near-duplicate share (%)"] == "100.00"
    assert rows["templated"]["Near-copy variants (%)"] == "100.00"
    with open(out / "tables" / "variant_seed_similarity.csv", newline="") as f:
        fam = list(csv.DictReader(f))
    sample_variants = sum(p.variant != 0 for p in general365.load_problems("sample"))
    assert len(fam) == sample_variants + 90 and all(r["Near-copy"] == "yes" for r in fam
                                   if r["Dataset"] == "templated")
    with open(out / "tables" / "difficulty.csv", newline="") as f:
        diff = list(csv.DictReader(f))
    assert [(r["Benchmark"], r["Model"], r["Accuracy (%)"]) for r in diff] == [
        ("General365", "alpha", "33.33"), ("General365", "beta", "50.00"),
        ("BBH", "alpha", "75.00"), ("BBH", "beta", "100.00")]
    lines = printed.splitlines()
    assert len(lines) < 25                                   # one screen
    assert lines[0].startswith("general365 analyze: 2 set(s); embedder tfidf")
    assert any(ln.split()[:3] == ["templated", "120", "30"] and "100.0%" in ln for ln in lines)
    assert any("difficulty: 2 benchmark(s) x 2 model(s)" in ln for ln in lines)
    assert any(ln.strip().startswith("page:") and ln.strip().endswith("index.html")
               for ln in lines)


def test_graded_only(analysis_dir, tmp_path, capsys):
    _, _, _, g = analysis_dir
    out = tmp_path / "diff"
    assert main(["analyze", "--out", str(out), "--graded", f"G={g[0]}",
                 "--graded", f"B={g[1]}", "--no-progress"]) == 0
    assert sorted(os.listdir(out / "figures")) == [
        "fig8_accuracy.png", "fig8_accuracy.svg", "fig9_accuracy_vs_tokens.png",
        "fig9_accuracy_vs_tokens.svg"]
    assert not (out / "tsne.csv").exists()
    assert json.loads((out / "analysis.json").read_text())["datasets"] == {}
    assert "no question sets" in capsys.readouterr().out


def test_progress_goes_to_stderr(tmp_path, capsys):
    f = tmp_path / "q.jsonl"
    f.write_text("".join(json.dumps({"question": f"How many {w} are there?"}) + "\n"
                         for w in ("cats", "dogs", "ants", "owls", "bees", "elks")))
    assert main(["analyze", str(f), "--embedder", "tfidf", "--out", str(tmp_path / "o")]) == 0
    captured = capsys.readouterr()
    assert "general365 analyze: q: embedding 6 questions" in captured.err
    assert "general365 analyze: q: t-SNE" in captured.err
    assert "perplexity 1.67 (the largest valid for 6 items)" in captured.out


@pytest.mark.parametrize("argv, message", [
    (["nope.jsonl"], "nope.jsonl: no such file or folder"),
    (["sample", "sample"], "two datasets named 'sample'"),
    (["sample", "--graded", "just_a_file.jsonl"], "expected BENCHMARK=GRADED.jsonl"),
    (["sample", "--graded", "B=missing.jsonl"], "missing.jsonl: no such file"),
    (["sample", "--near-duplicate", "1.5"], "--near-duplicate 1.5: expected a cosine in (0, 1]"),
    (["sample", "--perplexity", "0"], "--perplexity 0.0: expected a positive number"),
    (["sample", "--embedder", "tfidf", "--embedder-base-url", "http://x/v1"],
     "--embedder tfidf takes no --embedder-base-url"),
    (["sample", "--embedder", "m", "--embedder-base-url", "localhost:8000"],
     "expected an http(s) URL"),
    ([], "nothing to analyse"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys,
                                                           argv, message):
    out = tmp_path / "out"
    monkeypatch.chdir(tmp_path)
    embedder = [] if "--embedder" in argv else ["--embedder", "tfidf"]
    assert main(["analyze", *argv, *embedder, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("general365 analyze: error: ") and message in err, err
    assert len(err.splitlines()) == 1
    assert not out.exists() and os.listdir(tmp_path) == []


def test_bad_graded_row_is_named(tmp_path, capsys):
    bad = tmp_path / "g.jsonl"
    bad.write_text('{"id": "a", "run": 0, "status": "correct", "correct": true}\n'
                   '{"id": "b", "run": 0, "status": "maybe", "correct": false}\n')
    assert main(["analyze", "--graded", f"B={bad}", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2, id 'b', field 'status': unknown Status" in err
    assert not (tmp_path / "o").exists()


def test_out_is_a_file(tmp_path, capsys, monkeypatch):
    f = tmp_path / "file"
    f.write_text("x")

    def never(*a, **k):
        raise AssertionError("the analysis ran before --out was checked")

    monkeypatch.setattr("general365.cli.analyze.analyze", never)
    assert main(["analyze", "sample", "--embedder", "tfidf", "--out", str(f),
                 "--no-progress"]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err
    assert f.read_text() == "x"


def test_unknown_model_is_one_line(tmp_path, capsys):
    assert main(["analyze", "sample", "--embedder", "no-such-org/no-such-model", "--out",
                 str(tmp_path / "o"), "--no-embed-cache", "--no-progress", "--tsne",
                 "off"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "cannot load the sentence-transformers model 'no-such-org/no-such-model'" in err
    assert "--embedder tfidf" in err
    assert not (tmp_path / "o").exists()


def test_a_failure_while_writing_leaves_nothing(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"

    def broken(*a, **k):
        raise OSError(28, "No space left on device", str(out / "figures" / "fig6_tsne.png"))

    monkeypatch.setattr(output_mod.figs, "diversity_figure", broken)
    assert main(["analyze", "sample", "--embedder", "tfidf", "--out", str(out),
                 "--no-progress", "--tsne", "off"]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert not out.exists()
    assert os.listdir(tmp_path) == []
