"""CFE-Bench through the Benchmark seam: `general365.generate / grade_file / report / run`
and `general365 generate | grade | report | run --benchmark cfe` on the real release, with
the real OpenAI runner against a scripted server (it answers from the golds, which a real
model cannot do on demand), the real run store, grader and report. The accuracies are
computed here from what the script was told to answer."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import general365
from general365.cli import main
from general365.errors import UserError
from general365.tasks import BENCHMARKS, get_benchmark
from general365.tasks.cfe.benchmark import CFEBench
from general365.tasks.cfe.data import VariableType
from general365.tasks.cfe.prompts import build_messages
from support.servers import Behaviour

TEXT, MM = 4, 2
RUNS = 2


def chosen(cfe_data):
    """Problems whose variables are all numeric (the rule path grades every one), four
    text and two multimodal."""
    ok = [p for p in cfe_data.problems
          if all(v.type is VariableType.NUMERIC for v in p.variables)]
    return [p for p in ok if p.modality == "text"][:TEXT] + \
        [p for p in ok if p.modality == "mm"][:MM]


def dropped(i: int, run: int) -> bool:
    """Whether the answer for problem i, run `run` leaves out its first variable."""
    return (i + run) % 3 == 0


def answering(problems):
    """A script that answers each problem from its golds, leaving a variable out where
    `dropped` says, and records which problem each request was."""
    by_content = {json.dumps(build_messages(p)[0]["content"]): (i, p)
                  for i, p in enumerate(problems)}
    asked: list[str] = []

    def script(req, n):
        i, p = by_content[json.dumps(req["messages"][-1]["content"])]
        run = sum(1 for a in asked if a == p.id)
        asked.append(p.id)
        lines = [f"{v.name} = {v.value}" for k, v in enumerate(p.variables)
                 if not (k == 0 and dropped(i, run))]
        return Behaviour.reply("Working it out.\n\n" + "\n".join(lines))

    return script, asked


def expected(problems, modality=None):
    """Variable and Question Accuracy over (problem, run) rows, by hand."""
    scores, right = [], []
    for i, p in enumerate(problems):
        if modality and p.modality != modality:
            continue
        for run in range(RUNS):
            n = len(p.variables)
            ok = n - dropped(i, run)
            scores.append(Fraction(ok, n))
            right.append(ok == n)
    return float(sum(scores) / len(scores)), sum(right) / len(right)


def lines(path) -> list[dict]:
    return [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines()]


def test_cfe_is_a_registered_benchmark():
    assert BENCHMARKS["cfe"] == "general365.tasks.cfe.benchmark:CFEBench"
    b = get_benchmark("cfe", tolerance=0.05)
    assert isinstance(b, general365.tasks.Benchmark) and b.tolerance == 0.05
    assert b.name == "cfe" and b.report.name == "cfe" and b.prompt_version == "cfe-query-v1"
    with pytest.raises(UserError, match="tolerance must be a relative tolerance"):
        get_benchmark("cfe", tolerance=0.9)


def test_generate_grade_report_through_the_api(fault_server, cfe_dir, cfe_data, tmp_path):
    problems = chosen(cfe_data)
    script, asked = answering(problems)
    fault_server.set_script(script)
    out = tmp_path / "run"
    gen = general365.generate(fault_server.model, backend="openai", benchmark="cfe",
                              dataset=str(cfe_dir), ids=[p.id for p in problems], runs=RUNS,
                              max_tokens=64, base_url=fault_server.base_url, out=str(out),
                              progress=False)
    assert gen.ok and gen.written == len(problems) * RUNS == len(asked)
    # Figures reach the server as image content parts; text rows as plain strings.
    mm = [r for r in fault_server.requests if isinstance(r["messages"][0]["content"], list)]
    assert len(mm) == MM * RUNS
    for r in mm:
        parts = r["messages"][0]["content"]
        urls = [x["image_url"]["url"] for x in parts if x["type"] == "image_url"]
        assert urls and all(u.startswith("data:image/") for u in urls)
    responses = lines(out / "responses.jsonl")
    assert {r["benchmark"] for r in responses} == {"cfe"}
    assert all(r["variables"] and r["modality"] in ("text", "mm") for r in responses)
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["dataset"]["benchmark"] == "cfe"
    assert run_json["dataset"]["fingerprint"] == CFEBench().fingerprint(problems)
    assert run_json["prompt"]["version"] == "cfe-query-v1"

    # Grading: the benchmark is read from the rows; no dataset needed.
    result = general365.grade_file(str(out / "responses.jsonl"), str(out / "graded.jsonl"))
    va, qa = expected(problems)
    assert result.policy == "rule" and result.count == len(problems) * RUNS
    assert result.summary.accuracy == pytest.approx(qa)
    assert result.summary.mean_score == pytest.approx(va)
    assert "parts    mean score" in result.render()
    graded = lines(out / "graded.jsonl")
    assert all(g["benchmark"] == "cfe" and len(g["parts"]) == len(g["variables"])
               for g in graded)
    no_answer = [g for g in graded if g["status"] == "no_answer"]
    assert all(len(g["parts"]) == 1 for g in no_answer)   # its only variable left out

    # The report: CFE's tables first, the paper's rows beside the runs.
    report = general365.report(str(out / "graded.jsonl"), str(out / "report"))
    assert report.kind.name == "cfe" and report.settings["published"] == "full"
    keys = [t.key for t in report.tables]
    assert keys[:3] == ["cfe_accuracy", "cfe_runs", "cfe_variables"]
    assert "status" in " ".join(keys) and "tokens" in keys
    acc = report.table("cfe_accuracy").records()
    mine = {r["Subset"]: r for r in acc if r["Source"] == "your run"}
    for subset, modality in (("Text", "text"), ("Multimodal", "mm"),
                             ("Text + Multimodal", None)):
        va, qa = expected(problems, modality)
        assert mine[subset]["Variable Accuracy"] == pytest.approx(va)
        assert mine[subset]["Question Accuracy"] == pytest.approx(qa)
    assert any(r["Source"] == "paper (Table 2)" for r in acc)
    saved = json.loads((out / "report" / "report.json").read_text())
    assert saved["settings"]["benchmark"] == "cfe"
    assert saved["tables"]["cfe_accuracy"] == json.loads(json.dumps(acc))
    page = (out / "report" / "index.html").read_text()
    assert "CFE-Bench" in page and "Variable Accuracy" in page
    assert (out / "report" / "tables" / "cfe_accuracy.csv").is_file()
    bare = general365.report(str(out / "graded.jsonl"), published="none")
    assert not [r for r in bare.table("cfe_accuracy").records() if r["Source"] != "your run"]
    with pytest.raises(UserError, match="published 'public': expected one of full, none"):
        general365.report(str(out / "graded.jsonl"), published="public")

    # A rerun asks for nothing it has.
    fault_server.reset()
    again = general365.generate(fault_server.model, backend="openai", benchmark="cfe",
                                dataset=str(cfe_dir), ids=[p.id for p in problems], runs=RUNS,
                                max_tokens=64, base_url=fault_server.base_url, out=str(out),
                                progress=False)
    assert again.already_done == len(problems) * RUNS and not fault_server.requests


def test_the_command_line_runs_it_whole(fault_server, cfe_dir, cfe_data, tmp_path, capsys):
    problems = chosen(cfe_data)[:TEXT]
    script, _ = answering(problems)
    fault_server.set_script(script)
    ids = tmp_path / "ids.txt"
    ids.write_text("\n".join(p.id for p in problems) + "\n")
    out = tmp_path / "run"
    code = main(["run", "--benchmark", "cfe", "--dataset", str(cfe_dir), "--config", "text",
                 "--ids", str(ids), "--runs", str(RUNS), "--model", fault_server.model,
                 "--backend", "openai", "--base-url", fault_server.base_url,
                 "--max-tokens", "64", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    va, qa = expected(problems)
    assert f"accuracy {100 * qa:.1f}%" in printed
    assert f"parts    mean score {100 * va:.1f}%" in printed
    assert "the paper's figures in its tables (full)" in printed
    assert "CFE-Bench's own tables: cfe_accuracy, cfe_runs, cfe_variables" in printed
    assert (out / "report" / "tables" / "cfe_accuracy.csv").is_file()
    # grade --policy rule on its own, with a tolerance: per-variable statuses and both
    # accuracies; grade --policy cascade with a judge sends only what the rule did not find
    # right, with CFE's prompt.
    assert main(["grade", str(out / "responses.jsonl"), "--out", str(tmp_path / "g.jsonl"),
                 "--policy", "rule", "--tolerance", "0.02", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "policy rule" in printed and f"mean score {100 * va:.1f}%" in printed
    assert all(p["status"] in ("correct", "no_answer")
               for g in lines(tmp_path / "g.jsonl") for p in g["parts"])
    fault_server.reset()
    fault_server.set_script(lambda req, n: Behaviour.reply('{"accuracy": true}'))
    assert main(["grade", str(out / "responses.jsonl"), "--out", str(tmp_path / "c.jsonl"),
                 "--policy", "cascade", "--judge-model", "j", "--judge-base-url",
                 fault_server.base_url, "--judge-cache", str(tmp_path / "j.sqlite"),
                 "--no-progress"]) == 0
    missing = sum(dropped(i, r) for i in range(len(problems)) for r in range(RUNS))
    assert len(fault_server.requests) == missing
    assert all(r["messages"][0]["content"].startswith("You are grading one answer variable")
               for r in fault_server.requests)
    assert all(g["status"] == "correct" for g in lines(tmp_path / "c.jsonl"))


def test_a_graded_file_grades_again_with_no_dataset(cfe_data, tmp_path):
    rows = [{"id": p.id, "run": 0, "response": "\n".join(f"{v.name} = {v.value}"
                                                        for v in p.variables),
             **p.inline_fields()} for p in cfe_data.problems[:8]]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    general365.grade_file(str(tmp_path / "r.jsonl"), str(tmp_path / "g1.jsonl"))
    general365.grade_file(str(tmp_path / "g1.jsonl"), str(tmp_path / "g2.jsonl"))
    first, again = lines(tmp_path / "g1.jsonl"), lines(tmp_path / "g2.jsonl")
    assert first == again
    assert [r["variables"] for r in first] == [r["variables"] for r in rows]
    # Regraded under another tolerance, the verdict fields are replaced, not left over.
    general365.grade_file(str(tmp_path / "g1.jsonl"), str(tmp_path / "g3.jsonl"),
                          benchmark=CFEBench(tolerance=0.0))
    assert [r["status"] for r in lines(tmp_path / "g3.jsonl")] == [r["status"] for r in first]


def bad_case(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_bad_responses_are_refused_one_line_before_grading(cfe_dir, cfe_data, tmp_path,
                                                           capsys):
    p = cfe_data.problems[0]
    good = {"id": p.id, "run": 0, "response": "x", **p.inline_fields()}
    other_gold = dict(good, variables=[dict(v, value="42") for v in good["variables"]])
    cases = [
        ([good, good], {}, "a second response for this id and run"),
        ([{"id": p.id, "run": 0, "response": "x", "benchmark": "cfe"}], {},
         "no gold answer in the response and no dataset given"),
        ([other_gold], {"dataset": str(cfe_dir)}, "the response's variables are not the "
                                                  "dataset's"),
        ([dict(good, id="nope")], {"dataset": str(cfe_dir)}, "no problem with this id"),
        ([dict(good, variables=[{"name": "a", "value": "1", "type": "num"}])], {},
         "unknown variable type"),
        ([dict(good, modality="video")], {}, "unknown modality"),
    ]
    out = tmp_path / "g.jsonl"
    for n, (rows, kwargs, needle) in enumerate(cases):
        path = bad_case(tmp_path, f"bad{n}.jsonl", rows)
        with pytest.raises(UserError) as info:
            general365.grade_file(path, str(out), **kwargs)
        assert needle in str(info.value) and f"bad{n}.jsonl:" in str(info.value)
        flags = ["--dataset", kwargs["dataset"]] if kwargs else []
        assert main(["grade", path, "--out", str(out), "--no-progress", *flags]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and needle in err, err
        assert not out.exists()


def test_options_are_refused_the_same_from_python_and_the_command_line(
        fault_server, cfe_dir, tmp_path, capsys):
    out = tmp_path / "run"
    base = ["--model", "m", "--backend", "openai", "--base-url", fault_server.base_url,
            "--dataset", str(cfe_dir), "--out", str(out)]
    cases = [
        ("generate", {"benchmark": CFEBench(), "config": "images"}, ["--benchmark", "cfe",
                                                                     "--config", "images"],
         "config 'images': CFE-Bench's subsets are all, text, mm"),
        ("generate", None, ["--benchmark", "qa", "--tolerance", "0.1"],
         "--tolerance is CFE-Bench's option"),
        ("generate", None, ["--tolerance", "0.7"], "--tolerance must be a relative tolerance"),
        ("run", {"benchmark": "cfe", "policy": "paper"}, ["--benchmark", "cfe", "--policy",
                                                          "paper"],
         "paper sends CFE-Bench variables to an LLM judge"),
    ]
    for verb, kwargs, flags, needle in cases:
        if kwargs is not None:
            call = general365.generate if verb == "generate" else general365.run
            with pytest.raises(UserError, match=needle.replace("(", r"\(")):
                call("m", backend="openai", base_url=fault_server.base_url,
                     dataset=str(cfe_dir), out=str(out), **kwargs)
        assert main([verb, *base, *flags]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and needle in err, err
        assert not out.exists() and not fault_server.requests


def test_one_report_per_benchmark(tmp_path):
    cfe = {"id": "q", "run": 0, "response": "", "benchmark": "cfe", "status": "correct",
           "correct": True, "parts": [{"name": "x", "type": "numeric", "value": "1",
                                       "status": "correct"}], "score": 1.0}
    g365 = {"id": "g", "run": 0, "response": "", "status": "correct", "correct": True,
            "answer": "1", "answer_type": "number"}
    a = bad_case(tmp_path, "a.jsonl", [cfe])
    b = bad_case(tmp_path, "b.jsonl", [g365])
    with pytest.raises(UserError, match=r"different benchmarks \(cfe, general365\)"):
        general365.report([a, b])
    assert general365.report(a).table("cfe_accuracy").records()[0]["Question Accuracy"] == 1.0


def synthetic_mm(tmp_path) -> Path:
    folder = tmp_path / "mm-data"
    (folder / "images").mkdir(parents=True)
    (folder / "images" / "f.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 24)
    row = {"id": "m1", "question": {"text": "What does <image> show?",
                                    "images": ["images/f.png"]},
           "answer": {"text": "", "images": []}, "short_answer_variable": ["x"],
           "short_answer_value": ["1"], "short_answer_description": ["x"],
           "short_answer_type": ["numeric"], "reasoning_flow": []}
    (folder / "CFE_text.json").write_text("[]")
    (folder / "CFE_mm.json").write_text(json.dumps([row]))
    return folder


def test_transformers_refuses_multimodal_rows_before_writing(tiny_model_dir, tmp_path):
    out = tmp_path / "run"
    with pytest.raises(UserError) as info:
        general365.generate(str(tiny_model_dir), backend="transformers", benchmark="cfe",
                            dataset=str(synthetic_mm(tmp_path)), max_tokens=4, out=str(out),
                            progress=False)
    assert "\n" not in str(info.value) and "'m1'" in str(info.value)
    assert "text prompts only" in str(info.value) and not out.exists()


@pytest.mark.slow
def test_vllm_refuses_images_for_a_text_only_model(tiny_model_dir, tmp_path):
    out = tmp_path / "run"
    with pytest.raises(UserError) as info:
        general365.generate(str(tiny_model_dir), backend="vllm", benchmark="cfe",
                            dataset=str(synthetic_mm(tmp_path)), max_tokens=4, out=str(out),
                            max_model_len=512, enforce_eager=True, progress=False)
    msg = str(info.value)
    assert "\n" not in msg and "'m1'" in msg and "not a multimodal model" in msg
    assert not out.exists()
