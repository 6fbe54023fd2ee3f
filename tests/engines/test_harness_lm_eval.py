"""General365 inside lm-evaluation-harness: the tasks in general365.integrations.lm_eval.

A real `lm_eval` run (the hf model on the tiny local model, offline) on the bundled sample,
whose accuracy and coverage are what `general365 grade` says of the very outputs lm-eval
logged; and the task's metrics on answers known to be right and wrong."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("lm_eval", reason="the lm-eval tests need lm-eval (pip install "
                                      "'general365[lm_eval]')")

import general365  # noqa: E402
from general365.integrations import lm_eval as g365_lm_eval  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# one problem of each answer type: number, interval, single choice, multiple choice, text
PICKED = [0, 16, 24, 28, 40]


def _right_answer(problem) -> str:
    return f"<think>worked out</think>The answer is \\boxed{{{problem.answer}}}."


def test_the_task_folder_holds_both_tasks_and_their_functions():
    folder = Path(g365_lm_eval.TASK_DIR)
    assert (folder / "general365.yaml").is_file()
    assert (folder / "general365_sample.yaml").is_file()
    assert (folder / "utils.py").is_file()


def test_process_results_is_the_grader_right_wrong_and_text_left_out():
    problems = general365.load_problems(source="sample")
    ds = general365.load_dataset("all", source="sample")
    for i in PICKED:
        doc = ds[i]
        p = problems[i]
        right = g365_lm_eval.process_results(doc, [_right_answer(p)])
        wrong = g365_lm_eval.process_results(doc, ["<think>hm</think>\\boxed{no idea}"])
        if p.answer_type.value == "text":      # no judge: ungraded, out of the mean
            assert math.isnan(right["accuracy"]) and right["coverage"] == 0.0
            assert math.isnan(wrong["accuracy"]) and wrong["coverage"] == 0.0
        else:
            assert right == {"accuracy": 1.0, "coverage": 1.0}, p.id
            assert wrong == {"accuracy": 0.0, "coverage": 1.0}, p.id
    # the prompt is general365 generate's: the question, verbatim
    assert g365_lm_eval.doc_to_text(ds[0]) == ds[0]["question"]


@pytest.mark.slow
def test_lm_eval_run_on_the_tiny_model_scores_as_general365_grade(tmp_path, tiny_model_dir):
    out = tmp_path / "lm_eval"
    cmd = [sys.executable, "-m", "lm_eval", "run", "--model", "hf",
           "--model_args", f"pretrained={tiny_model_dir},dtype=float32",
           "--tasks", "general365_sample", "--include_path", g365_lm_eval.TASK_DIR,
           "--samples", json.dumps({"general365_sample": PICKED}),
           "--gen_kwargs", "max_gen_toks=24", "--log_samples", "--output_path", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (results_file,) = out.rglob("results_*.json")
    (samples_file,) = out.rglob("samples_general365_sample_*.jsonl")
    results = json.loads(results_file.read_text())["results"]["general365_sample"]
    logged = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert sorted(s["doc_id"] for s in logged) == PICKED

    # the outputs lm-eval logged, graded by general365 grade
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps({"id": s["doc"]["id"], "run": 0,
                                             "response": s["filtered_resps"][0]}) + "\n"
                                 for s in logged))
    graded = tmp_path / "graded.jsonl"
    g = subprocess.run([sys.executable, "-m", "general365", "grade", str(responses),
                        "--dataset", "sample", "--policy", "rule", "--out", str(graded),
                        "--no-progress"], capture_output=True, text=True, timeout=300)
    assert g.returncode == 0, g.stderr
    rows = [json.loads(line) for line in graded.read_text().splitlines()]
    status = {r["id"]: r["status"] for r in rows}
    counted = [s for s in status.values() if s != "ungraded"]
    assert len(counted) == len(PICKED) - 1          # the text answer is left out
    assert results["accuracy,none"] == pytest.approx(
        sum(s == "correct" for s in counted) / len(counted))
    assert results["coverage,none"] == pytest.approx(len(counted) / len(PICKED))
    assert "accuracy_stderr,none" in results
    for s in logged:   # and sample by sample
        st = status[s["doc"]["id"]]
        if st == "ungraded":
            assert math.isnan(s["accuracy"]) and s["coverage"] == 0.0
        else:
            assert s["accuracy"] == (1.0 if st == "correct" else 0.0) and s["coverage"] == 1.0
    # the run says how text answers were treated: in its log and in the saved task config
    assert "text answers are left out of accuracy" in proc.stderr
    config = json.loads(results_file.read_text())["configs"]["general365_sample"]
    assert "left out of accuracy" in config["metadata"]["grading"]


def test_lm_eval_finds_both_tasks_in_the_task_folder():
    from lm_eval.tasks import TaskManager

    names = set(TaskManager(include_path=g365_lm_eval.TASK_DIR).all_tasks)
    assert {"general365", "general365_sample"} <= names


def test_the_official_task_reads_the_release_through_our_loader(monkeypatch):
    # Offline (as here) the official split cannot be read: our loader's one line says so,
    # rather than a Hub traceback from inside lm-eval.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(general365.UserError) as info:
        g365_lm_eval.load_public()
    assert "meituan-longcat/General365_Public" in str(info.value)
    assert len(str(info.value).splitlines()) == 1


def test_the_judge_is_named_in_the_environment():
    from general365.integrations.harness import judge_from_env

    assert judge_from_env({}) is None
    judge = judge_from_env({"GENERAL365_JUDGE_MODEL": "my-judge",
                            "GENERAL365_JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
                            "GENERAL365_JUDGE_API_KEY_ENV": "MY_KEY"})
    try:
        assert judge.model == "my-judge"
    finally:
        judge.close()
