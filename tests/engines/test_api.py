"""The library's entry points as the README shows them: general365.generate, grade_file,
report and run on the tiny local model with the real transformers runner, in a plain
`python -c` (no __main__ guard), and a second benchmark (`qa`) through the same stages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import general365
from general365.tasks.qa import QABenchmark, infer_answer_type


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_the_stages_from_python_c(tmp_path, tiny_model_dir):
    code = f"""
import general365
out = {str(tmp_path / "run")!r}
gen = general365.generate({str(tiny_model_dir)!r}, backend="transformers", dataset="sample",
                          limit=3, runs=2, max_tokens=12, out=out, progress=False)
graded = general365.grade_file(out + "/responses.jsonl", out + "/graded.jsonl", policy="rule")
report = general365.report([out + "/graded.jsonl"], out + "/report", published="none")
print(gen.written, gen.already_done, graded.count, len(report.files))
again = general365.generate({str(tiny_model_dir)!r}, backend="transformers", dataset="sample",
                            limit=3, runs=2, max_tokens=12, out=out, progress=False)
print(again.written, again.already_done, again.status)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=900, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    first, second = r.stdout.strip().splitlines()[-2:]
    written, done, graded, files = map(int, first.split())
    assert (written, done, graded) == (6, 0, 6) and files > 5
    assert second.split() == ["0", "6", "nothing", "to", "do"]
    rows = _lines(tmp_path / "run" / "graded.jsonl")
    assert len(rows) == 6 and all("benchmark" not in row for row in rows)
    assert (tmp_path / "run" / "report" / "index.html").is_file()


def test_run_returns_each_stage(tmp_path, tiny_model_dir):
    stages = []
    result = general365.run(str(tiny_model_dir), backend="transformers", dataset="sample",
                            limit=2, max_tokens=8, out=str(tmp_path / "r"), progress=False,
                            published="public", name="tiny",
                            on_stage=lambda stage, path: stages.append(stage))
    assert stages == ["generate", "grade", "report"]
    assert result.exit_code == 0 and result.generate.written == 2
    assert result.grade.count == 2 and result.grade.policy == "rule"
    assert [m.name for m in result.report.models if m.kind == "run"] == ["tiny"]
    assert result.report.settings["published"] == "public"


# --- the qa benchmark -------------------------------------------------------------------

QA_ROWS = [
    {"input": "What is 6 times 7?", "target": "42", "uid": "q1"},
    {"input": "Which is prime? (A) 4 (B) 7", "target": "(B)", "uid": "q2"},
    {"input": "Is the sky green? Answer yes or no.", "target": "no", "uid": "q3"},
    {"input": "Give x with x^2 < 4.", "target": "(-2, 2)", "uid": "q4",
     "answer_type": "interval"},
]


def write_qa(path: Path, rows=QA_ROWS) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_second_benchmark_runs_generate_grade_report(tmp_path, tiny_model_dir):
    data = write_qa(tmp_path / "bbh-like.jsonl")
    bench = QABenchmark(question_field="input", answer_field="target", id_field="uid",
                        title="BBH-like")
    out = tmp_path / "qa"
    gen = general365.generate(str(tiny_model_dir), backend="transformers", benchmark=bench,
                              dataset=str(data), max_tokens=8, out=str(out), progress=False)
    assert gen.written == 4
    responses = _lines(out / "responses.jsonl")
    assert {r["benchmark"] for r in responses} == {"qa"}
    assert {r["id"]: r["answer_type"] for r in responses} == {
        "q1": "number", "q2": "single_choice", "q3": "text", "q4": "interval"}
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["dataset"]["benchmark"] == "qa"
    assert run_json["prompt"]["version"] == "qa-query-v1"
    # the question as asked: the dataset's text with the output instruction after it
    asked = {r["id"]: r["question"] for r in responses}
    assert asked["q1"] == "What is 6 times 7?\n\n" + bench.instruction

    graded = general365.grade_file(str(out / "responses.jsonl"), str(out / "graded.jsonl"))
    rows = _lines(out / "graded.jsonl")
    assert graded.count == 4 and {r["benchmark"] for r in rows} == {"qa"}
    assert {r["id"]: r["status"] for r in rows}["q3"] == "ungraded"   # text: rule policy

    report = general365.report(str(out / "graded.jsonl"), str(out / "report"))
    assert report.kind.name == "qa" and report.settings["published"] == "none"
    assert "table1_categories" not in {t.key for t in report.tables}
    page = (out / "report" / "index.html").read_text()
    assert "<h1>Q&amp;A benchmark leaderboard</h1>" in page
    assert not (out / "report" / "figures" / "radar.png").exists()
    # The report knows the benchmark from the rows: the CLI reports it the same way
    from general365.cli import main

    assert main(["report", str(out / "graded.jsonl"), "--out", str(out / "report2"),
                 "--published", "none"]) == 0


def test_qa_grades_against_its_dataset_and_finds_answers(tmp_path):
    data = write_qa(tmp_path / "d.jsonl")
    bench = QABenchmark(question_field="input", answer_field="target", id_field="uid")
    responses = write_qa(tmp_path / "r.jsonl", [
        {"id": "q1", "run": 0, "response": r"so \boxed{42}"},
        {"id": "q2", "run": 0, "response": r"\boxed{B}"},
        {"id": "q4", "run": 0, "response": r"\boxed{(-2,2]}"},
    ])
    result = general365.grade_file(str(responses), str(tmp_path / "g.jsonl"), benchmark=bench,
                                   dataset=str(data))
    rows = {r["id"]: r for r in _lines(tmp_path / "g.jsonl")}
    assert result.count == 3
    assert rows["q1"]["status"] == "correct" and rows["q2"]["status"] == "correct"
    assert rows["q4"]["status"] == "incorrect"
    assert {r["benchmark"] for r in rows.values()} == {"qa"}


def test_qa_refuses_bad_rows_one_line_each(tmp_path):
    data = write_qa(tmp_path / "d.jsonl", [{"input": "x?", "target": "1", "uid": "a"},
                                            {"input": "y?", "uid": "b"},
                                            {"input": "z?", "target": "", "uid": "c"},
                                            {"input": "w?", "target": "3", "uid": "a"}])
    bench = QABenchmark(question_field="input", answer_field="target", id_field="uid")
    with pytest.raises(general365.UserError) as info:
        bench.load(str(data))
    lines = str(info.value).splitlines()
    assert lines[0] == "3 bad row(s):"
    assert "d.jsonl:2" in lines[1] and "'target'" in lines[1]
    assert "d.jsonl:3" in lines[2] and "not a usable gold answer" in lines[2]
    assert "d.jsonl:4" in lines[3] and "duplicated id" in lines[3]


@pytest.mark.parametrize("gold,kind", [("42", "number"), ("3/4", "number"), ("(B)", "single_choice"),
                                      ("c", "single_choice"), ("[1, 2)", "interval"),
                                      ("yes", "text"), ("Paris", "text")])
def test_qa_reads_the_answer_type_from_the_gold(gold, kind):
    assert infer_answer_type(gold).value == kind


def test_the_cli_takes_the_qa_options(tmp_path, capsys):
    from general365.cli import main

    data = write_qa(tmp_path / "d.jsonl")
    code = main(["generate", "--benchmark", "qa", "--dataset", str(data),
                 "--question-field", "nope", "--model", "m", "--backend", "openai",
                 "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "'nope'" in err and "--question-field" in err
    assert not (tmp_path / "o").exists()
