"""General365 inside inspect_ai: the tasks in general365.integrations.inspect.

A real `inspect eval general365/general365_sample` (found through inspect's entry point)
against a real `vllm serve` of the tiny model on 127.0.0.1, through inspect's
OpenAI-compatible provider, with every connection outside this machine refused; its scores
are what `general365 grade` says of the very completions inspect logged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="the inspect tests need inspect-ai (pip install "
                                         "'general365[inspect]')")

# one problem of each answer type: number, interval, single choice, multiple choice, text
PICKED = ["g365s-001", "g365s-005", "g365s-007", "g365s-008", "g365s-011"]


def _offline_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    # Every request that is not to this machine goes to a proxy that is not there: a
    # download (a tokenizer file, a dataset) fails at once instead of passing unseen.
    dead = "http://127.0.0.1:9"
    env.update({"HTTP_PROXY": dead, "HTTPS_PROXY": dead, "http_proxy": dead,
                "https_proxy": dead, "NO_PROXY": "127.0.0.1,localhost",
                "no_proxy": "127.0.0.1,localhost", "HF_HUB_OFFLINE": "1",
                "HF_DATASETS_OFFLINE": "1", "INSPECT_LOG_FORMAT": "json",
                "INSPECT_DISPLAY": "plain", **extra})
    return env


def test_the_entry_point_registers_both_tasks():
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai._util.registry import registry_lookup

    ensure_entry_points("general365")
    for name in ("general365/general365", "general365/general365_sample"):
        assert registry_lookup("task", name) is not None, name


@pytest.mark.slow
def test_inspect_eval_against_vllm_serve_scores_as_general365_grade(tmp_path, vllm_server):
    logs = tmp_path / "logs"
    cmd = [sys.executable, "-m", "inspect_ai", "eval", "general365/general365_sample",
           "--model", f"openai-api/vllm/{vllm_server.model}", "--max-tokens", "24",
           "--seed", "7", "--log-dir", str(logs), "--no-log-images",
           "--sample-id", ",".join(PICKED)]
    env = _offline_env(VLLM_BASE_URL=vllm_server.base_url, VLLM_API_KEY="not-a-real-key")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env=env)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:],
                                  vllm_server.log_tail())
    (log_file,) = logs.glob("*.json")
    log = json.loads(log_file.read_text())
    assert log["status"] == "success", log.get("error")
    samples = {s["id"]: s for s in log["samples"]}
    assert sorted(samples) == sorted(PICKED)
    # keyed as the scorer declares them (a metric's `name` may carry the package's prefix,
    # `general365/accuracy`, depending on how inspect found the tasks)
    metrics = {key: m["value"] for s in log["results"]["scores"]
               for key, m in s["metrics"].items()}

    # the completions inspect logged, graded by general365 grade
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(
        json.dumps({"id": pid, "run": 0, "response": s["output"]["completion"]}) + "\n"
        for pid, s in samples.items()))
    graded = tmp_path / "graded.jsonl"
    g = subprocess.run([sys.executable, "-m", "general365", "grade", str(responses),
                        "--dataset", "sample", "--policy", "rule", "--out", str(graded),
                        "--no-progress"], capture_output=True, text=True, timeout=300)
    assert g.returncode == 0, g.stderr
    status = {r["id"]: r["status"] for r in map(json.loads, graded.read_text().splitlines())}
    counted = [s for s in status.values() if s != "ungraded"]
    assert len(counted) == len(PICKED) - 1             # the text answer is left out
    assert metrics["accuracy"] == pytest.approx(sum(s == "correct" for s in counted)
                                                / len(counted))
    assert metrics["coverage"] == pytest.approx(len(counted) / len(PICKED))
    assert "stderr" in metrics
    for pid, s in samples.items():   # and sample by sample
        (score,) = s["scores"].values()
        assert score["metadata"]["status"] == status[pid], pid
