"""`general365 run` and `general365 demo`: real subprocesses, the real transformers runner on
the tiny local model, the real grader and report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "general365.cli"]


def _cli(*args: str, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "GENERAL365_CACHE_DIR": str(cwd / "cache")}
    return subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_run_writes_a_graded_run_folder_and_resumes(tmp_path, tiny_model_dir):
    args = ["run", "--model", str(tiny_model_dir), "--backend", "transformers",
            "--dataset", "sample", "--limit", "3", "--runs", "2", "--max-tokens", "12",
            "--out", str(tmp_path / "run")]
    r = _cli(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    run = tmp_path / "run"
    responses = _lines(run / "responses.jsonl")
    graded = _lines(run / "graded.jsonl")
    assert sorted((x["id"], x["run"]) for x in responses) == sorted(
        (x["id"], x["run"]) for x in graded)
    assert len(responses) == 6 and {x["run"] for x in responses} == {0, 1}
    assert all(x["status"] in {"correct", "incorrect", "no_answer", "ungraded"} for x in graded)
    assert all(x["method"] in {"rule", "choice", None} for x in graded)
    # seed families travel inline from the dataset to the report
    sample = {p.id: p for p in __import__("general365").load_problems(source="sample")}
    for row in graded:
        assert (row["seed_id"], row["variant"]) == (sample[row["id"]].seed_id,
                                                    sample[row["id"]].variant)
    assert any(row["variant"] > 0 for row in graded)
    meta = json.loads((run / "run.json").read_text())
    assert meta["backend"] == "transformers"
    report = run / "report"
    assert (report / "index.html").stat().st_size > 1000
    assert json.loads((report / "report.json").read_text())
    # Rerunning is a resume: nothing new is generated, grading and report are redone.
    r2 = _cli(*args, cwd=tmp_path)
    assert r2.returncode == 0, r2.stderr[-3000:]
    assert len(_lines(run / "responses.jsonl")) == 6


def test_run_sends_its_results_to_tensorboard_and_a_hub_folder(tmp_path, tiny_model_dir):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run, hub = tmp_path / "run", tmp_path / "hub"
    r = _cli("run", "--model", str(tiny_model_dir), "--backend", "transformers",
             "--dataset", "sample", "--limit", "2", "--runs", "2", "--max-tokens", "8",
             "--out", str(run), "--report-to", "tensorboard", "--hub-folder", str(hub),
             cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "sent:   tensorboard: 1 run(s)" in r.stdout
    (events,) = list((run / "tensorboard").iterdir())   # RUN_DIR/tensorboard by default
    acc = EventAccumulator(str(events))
    acc.Reload()
    assert {"accuracy", "coverage", "status/correct", "n_runs"} <= set(acc.Tags()["scalars"])
    assert acc.Scalars("n_runs")[0].value == 2
    import datasets

    meta = json.loads((run / "run.json").read_text())
    rows = datasets.load_dataset(str(hub), "results", split="train",
                                 cache_dir=str(tmp_path / "cache-hf"))
    assert sorted(rows["run"]) == [0, 1]
    assert set(rows["dataset_fingerprint"]) == {meta["dataset"]["fingerprint"]}
    assert set(rows["backend"]) == {"transformers"} and set(rows["random_weights"]) == {True}
    assert datasets.load_dataset(str(hub), "details", split="train",
                                 cache_dir=str(tmp_path / "cache-hf")).num_rows == 4


def test_run_refuses_a_judge_policy_without_a_judge(tmp_path, tiny_model_dir):
    r = _cli("run", "--model", str(tiny_model_dir), "--backend", "transformers",
             "--dataset", "sample", "--limit", "1", "--policy", "paper",
             "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0, r.stderr
    assert "--judge-model" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "run").exists()


def test_demo_runs_offline_end_to_end(tmp_path):
    r = _cli("demo", "--limit", "2", "--runs", "1", "--max-tokens", "8",
             "--out", str(tmp_path / "demo"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "mean nothing" in r.stdout
    assert "--backend vllm" in r.stdout          # the one line that runs a real model
    assert (tmp_path / "cache" / "tiny-model").is_dir()   # built into the user cache
    assert (tmp_path / "demo" / "report" / "index.html").is_file()
    assert len(_lines(tmp_path / "demo" / "graded.jsonl")) == 2
    report = json.loads((tmp_path / "demo" / "report" / "report.json").read_text())
    assert "tiny-random-llama (demo)" in json.dumps(report)
    # a random model sampled with the reasoning preset is still grouped as a demo model
    assert json.loads((tmp_path / "demo" / "run.json").read_text())["random_weights"] is True
    (mine,) = [m for m in report["models"] if m["kind"] == "run"]
    assert mine["group"] == "demo"


@pytest.mark.parametrize("flags, needle", [
    (["--published", "foo"], "--published"),
    (["--judge-model", "m", "--judge-votes", "2"], "--judge-votes"),
    (["--grade-workers", "0"], "--grade-workers"),
    (["--grade-workers", "-2"], "--grade-workers"),
])
def test_run_checks_grading_and_report_options_before_generating(tmp_path, tiny_model_dir,
                                                                  flags, needle):
    r = _cli("run", "--model", str(tiny_model_dir), "--backend", "transformers",
             "--dataset", "sample", "--limit", "1", "--max-tokens", "4",
             "--out", str(tmp_path / "run"), *flags, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert needle in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "run").exists()      # nothing was generated


def test_run_through_an_api_with_a_local_judge(tmp_path, vllm_server):
    # The whole path against a real `vllm serve`: it answers the problems (openai backend)
    # and judges them (structured output, so even the tiny model's verdicts parse).
    r = _cli("run", "--backend", "openai", "--model", vllm_server.model,
             "--base-url", vllm_server.base_url, "--dataset", "sample", "--limit", "8",
             "--max-tokens", "16", "--judge-model", vllm_server.model,
             "--judge-base-url", vllm_server.base_url, "--judge-structured", "vllm",
             "--judge-max-tokens", "16", "--policy", "cascade", "--name", "tiny-api",
             "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    graded = _lines(tmp_path / "run" / "graded.jsonl")
    assert len(graded) == 8
    # every judged row got a verdict (a cut-off reasoning block may stay no_answer)
    assert {g["status"] for g in graded} <= {"correct", "incorrect", "no_answer"}
    judged = [g for g in graded if g["method"] == "judge"]
    assert judged and all(g["judge"]["model"] == vllm_server.model for g in judged)
    report = json.loads((tmp_path / "run" / "report" / "report.json").read_text())
    assert "tiny-api" in json.dumps(report)
