"""`general365 report`: the written files, the JSON structure, and bad input refused with
one line, exit 2, nothing written."""

from __future__ import annotations

import json
import os

import pytest

from general365.cli import main
from general365.errors import DataError
from general365.reporting import REPORT_SCHEMA, REPORT_VERSION, build_report
from general365.reporting.load import load_graded
from test_report_cases import alpha_rows, row, small_case, write_jsonl

EXPECTED_FILES = {
    "index.html", "report.json", "report.md",
    "tables/table1_categories.csv", "tables/statuses.csv", "tables/answer_types.csv",
    "tables/seed_variant.csv", "tables/stability.csv", "tables/consistency.csv",
    "tables/tokens.csv", "tables/leaderboard.csv",
    "figures/leaderboard.png", "figures/leaderboard.svg", "figures/radar.png",
    "figures/radar.svg", "figures/accuracy_vs_tokens.png", "figures/accuracy_vs_tokens.svg",
}


def listing(folder):
    return {os.path.relpath(os.path.join(r, f), folder)
            for r, _, fs in os.walk(folder) for f in fs}


def test_cli_writes_every_file(tmp_path, capsys):
    paths = small_case(str(tmp_path / "graded"))
    out = tmp_path / "report"
    assert main(["report", *paths, "--out", str(out), "--bootstrap", "300"]) == 0
    assert listing(out) == EXPECTED_FILES
    for name in EXPECTED_FILES:
        assert (out / name).stat().st_size > 0, name
    assert (out / "figures/leaderboard.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (out / "figures/radar.svg").read_bytes()[:2000]
    printed = capsys.readouterr().out
    assert "alpha" in printed and "44.4%" in printed and "index.html" in printed
    # no temporary folder left beside the report
    assert sorted(os.listdir(tmp_path)) == ["graded", "report"]


def test_json_structure(tmp_path):
    paths = small_case(str(tmp_path / "graded"))
    out = tmp_path / "report"
    assert main(["report", *paths, "--out", str(out), "--published", "full",
                 "--bootstrap", "300", "--seed", "5"]) == 0
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert doc["schema"] == REPORT_SCHEMA and doc["version"] == REPORT_VERSION
    assert doc["settings"]["bootstrap_seed"] == 5
    assert doc["settings"]["bootstrap_resamples"] == 300
    assert len(doc["categories"]) == 8
    models = {m["name"]: m for m in doc["models"]}
    assert len(models) == 29
    a = models["alpha"]
    assert a["kind"] == "run" and a["group"] == "reasoning"
    assert a["overall"] == {"accuracy": pytest.approx(4 / 9), "correct": 4, "graded": 9,
                            "rows": 10, "incorrect": 3, "no_answer": 1, "timeout": 1,
                            "judge_failed": 0, "ungraded": 1}
    assert a["interval"]["low"] <= a["accuracy"] <= a["interval"]["high"]
    assert a["interval"]["method"] == "percentile bootstrap over seed families"
    assert a["categories"]["Complex Constraints"] == pytest.approx(0.75)
    assert a["statuses"]["timeout"] == 1
    assert a["stability"]["delta"] == pytest.approx(0.35)
    assert a["stability"]["runs"][1]["accuracy"] == pytest.approx(0.25)
    assert a["consistency"]["mixed"] == pytest.approx(0.25)
    assert a["tokens"]["truncation_rate"] == pytest.approx(2 / 9)
    assert a["provenance"]["sampling"] == [{"preset": "reasoning", "temperature": 1.0,
                                            "top_p": 1.0}]
    g = models["Gemini-3-Pro"]
    assert g["kind"] == "published" and g["benchmark"] == "full"
    assert g["accuracy"] == pytest.approx(0.628)
    assert models["GLM-4.7-Thinking"]["stability"]["delta"] == pytest.approx(0.02)
    # the same numbers as the Python entry point
    rep = build_report(paths, published="full", resamples=300, seed=5)
    assert json.loads(json.dumps(rep.to_dict()))["models"] == doc["models"]


def test_run_json_beside_the_graded_file_gives_provenance(tmp_path):
    run_dir = tmp_path / "run-a"
    run_dir.mkdir()
    write_jsonl(str(run_dir / "graded.jsonl"),
                [{k: v for k, v in r.items() if k != "model"} for r in alpha_rows()])
    (run_dir / "run.json").write_text(json.dumps({
        "general365_run": 1, "model": "org/Alpha-7B", "backend": "vllm",
        "dataset": {"source": "meituan-longcat/General365_Public", "split": "public",
                    "fingerprint": "abc"},
        "sampling": {"preset": "reasoning", "temperature": 1.0}}), encoding="utf-8")
    rep = build_report([str(run_dir / "graded.jsonl")], published="none", resamples=200)
    assert rep.settings["notes"] == []
    m = rep.models[0]
    assert m.name == "org/Alpha-7B"            # rows name no model: run.json does
    assert m.provenance["run.json backend"] == "vllm"
    assert "fingerprint" in m.provenance["run.json dataset"]
    # a public-split run beside the paper's full-benchmark figures gets a note
    rep = build_report([str(run_dir / "graded.jsonl")], published="full", resamples=200)
    assert "--published public compares like with like" in rep.settings["notes"][0]
    assert build_report([str(run_dir / "graded.jsonl")], published="public",
                        resamples=200).settings["notes"] == []
    # a run on the bundled sample is not comparable with the paper at all
    meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    meta["dataset"]["source"] = "sample"
    (run_dir / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    for published in ("full", "public"):
        notes = build_report([str(run_dir / "graded.jsonl")], published=published,
                             resamples=200).settings["notes"]
        assert len(notes) == 1 and "bundled sample" in notes[0]


def test_names_override_and_model_per_row(tmp_path):
    a = write_jsonl(str(tmp_path / "a.jsonl"), alpha_rows())
    b = write_jsonl(str(tmp_path / "b.jsonl"), alpha_rows())
    # the same model twice would count every row twice: refused...
    with pytest.raises(DataError, match="duplicate row"):
        load_graded([a, b])
    # ...unless each file is named
    runs = load_graded([a, b], names=["alpha-T1", "alpha-T07"])
    assert [m.name for m in runs] == ["alpha-T1", "alpha-T07"]


BAD = [
    # (description, row change, expected fragment of the error line)
    ("missing status", lambda d: d.pop("status"), "field 'status': missing field"),
    ("unknown status", lambda d: d.update(status="maybe"), "unknown Status"),
    ("correct disagrees", lambda d: d.update(correct=False), "field 'correct': contradicts"),
    ("run not an int", lambda d: d.update(run="0"), "field 'run': wrong type"),
    ("unknown category", lambda d: d.update(categories=["Cooking"]), "unknown Category"),
    ("variant without seed", lambda d: (d.update(variant=2), d.pop("seed_id")),
     "field 'seed_id': missing field"),
    ("bad tokens", lambda d: d.update(output_tokens=-3), "field 'output_tokens'"),
]


@pytest.mark.parametrize("what,change,fragment", BAD, ids=[b[0] for b in BAD])
def test_bad_rows_are_refused_with_one_line(tmp_path, capsys, what, change, fragment):
    good = row("s1", 0, "correct", model="m")
    bad = row("s2", 0, "correct", model="m")
    change(bad)
    path = write_jsonl(str(tmp_path / "g.jsonl"), [good, bad])
    out = tmp_path / "report"
    assert main(["report", path, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"g.jsonl:2" in err and "id 's2'" in err and fragment in err
    assert "expected" in err
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["g.jsonl"]


def test_bad_json_and_missing_file(tmp_path, capsys):
    path = tmp_path / "g.jsonl"
    path.write_text('{"id": "s1"\n', encoding="utf-8")
    assert main(["report", str(path), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "g.jsonl:1: not valid JSON" in err and "expected one JSON object a line" in err
    assert main(["report", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "r")]) == 2
    assert "no such file" in capsys.readouterr().err
    empty = tmp_path / "e.jsonl"
    empty.write_text("\n", encoding="utf-8")
    assert main(["report", str(empty), "--out", str(tmp_path / "r")]) == 2
    assert "no rows" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_a_bad_second_file_writes_nothing(tmp_path, capsys):
    paths = small_case(str(tmp_path / "graded"))
    bad = write_jsonl(str(tmp_path / "graded" / "bad.jsonl"), [{"id": "x", "run": 0}])
    out = tmp_path / "report"
    assert main(["report", *paths, bad, "--out", str(out)]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err
    assert not out.exists()


def test_rerun_replaces_report_files_and_keeps_others(tmp_path):
    paths = small_case(str(tmp_path / "graded"))
    out = tmp_path / "report"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["report", paths[0], "--out", str(out), "--published", "none",
                 "--bootstrap", "200"]) == 0
    first = json.loads((out / "report.json").read_text())
    assert [m["name"] for m in first["models"]] == ["alpha"]
    assert main(["report", *paths, "--out", str(out), "--published", "none",
                 "--bootstrap", "200"]) == 0
    second = json.loads((out / "report.json").read_text())
    assert [m["name"] for m in second["models"]] == ["alpha", "beta", "gamma"]
    assert (out / "notes.txt").read_text() == "mine"


def test_a_model_with_nothing_graded_is_shown_not_ranked_as_zero(tmp_path):
    rows = [dict(r, status="ungraded", correct=False, model="pending")
            for r in alpha_rows()]
    paths = [write_jsonl(str(tmp_path / "p.jsonl"), rows)] + small_case(str(tmp_path / "g"))
    out = tmp_path / "report"
    assert main(["report", *paths, "--out", str(out), "--published", "none",
                 "--bootstrap", "200"]) == 0
    doc = json.loads((out / "report.json").read_text())
    pending = next(m for m in doc["models"] if m["name"] == "pending")
    assert pending["accuracy"] is None and pending["interval"] is None
    assert pending["coverage"] == 0.0 and pending["statuses"]["ungraded"] == 10
    board = (out / "tables/leaderboard.csv").read_text().splitlines()
    assert board[-1].startswith("4,pending,your run,reasoning,,")   # last, blank accuracy


def test_name_count_must_match_files(tmp_path, capsys):
    paths = small_case(str(tmp_path / "g"))
    assert main(["report", *paths, "--name", "only-one", "--out", str(tmp_path / "r")]) == 2
    assert "--name was given 1 time(s) for 2 file(s)" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
