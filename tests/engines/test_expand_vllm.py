"""`general365 expand` against a real `vllm serve` on the tiny random model: the plumbing
(structured output through vLLM's response_format, the run store, the checks, the review
page, select) with candidates that fail the checks, as a random model's must: each is
kept and flagged, nothing crashes.

The expansion prompt with a seed is ~1,000 of the tiny tokenizer's tokens, past the shared
server's 1,024-token context, so this module starts its own server with 2,048."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from general365.cli import main
from support.models import SERVER_MODEL_NAME, VLLMServer, _free_port, _stop, _vllm_command, \
    _wait_ready, SERVER_START_TIMEOUT_S

pytestmark = pytest.mark.slow

SEED = {"id": "s1", "question": "Ann has 3 red and 4 blue pens. She gives away 2 pens. At "
        "most how many red pens can she have left? Put your final answer in \\boxed{}.",
        "answer": "3", "answer_type": "number", "categories": ["Optimal Strategy"],
        "reasoning": "She gives away 2 blue pens and keeps all 3 red."}


@pytest.fixture(scope="module")
def server(tiny_model_dir, tmp_path_factory):
    pytest.importorskip("vllm", reason="vllm is not installed")
    port = _free_port()
    cmd = _vllm_command(tiny_model_dir, port)
    cmd[cmd.index("--max-model-len") + 1] = "2048"
    log_path = tmp_path_factory.mktemp("vllm-serve-2k") / "server.log"
    env = {**os.environ, "VLLM_NO_USAGE_STATS": "1"}
    with open(log_path, "wb") as log:
        process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    srv = VLLMServer(base_url=f"http://127.0.0.1:{port}/v1", model=SERVER_MODEL_NAME,
                     max_model_len=2048, model_dir=tiny_model_dir, log_path=log_path,
                     process=process)
    try:
        _wait_ready(srv, SERVER_START_TIMEOUT_S)
        yield srv
    finally:
        _stop(process)


def test_tiny_model_candidates_are_flagged_not_fatal(server, tmp_path, capsys):
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text(json.dumps(SEED) + "\n")
    out = tmp_path / "exp"
    args = ["expand", str(seeds), "--model", server.model, "--backend", "openai",
            "--base-url", server.base_url, "--out", str(out), "--candidates", "2",
            "--max-tokens", "120", "--no-progress"]
    assert main(args) == 0, server.log_tail()
    summary = capsys.readouterr().out
    assert "written 2" in summary and "structured output: json_schema" in summary
    rows = [json.loads(x) for x in (out / "candidates.jsonl").read_text().splitlines()]
    assert [(r["seed_id"], r["candidate"]) for r in rows] == [("s1", 0), ("s1", 1)]
    for r in rows:
        assert r["flags"] and all(f["reason"] for f in r["flags"]), r
        assert r["model"] == server.model
    run = json.loads((out / "run.json").read_text())
    assert run["status"] == "complete" and run["runner"]["served_model"] == server.model
    # the prompt alone, no response_format: the reply is still read and flagged
    plain = tmp_path / "plain"
    assert main(args[:-1] + ["--structured", "off", "--candidates", "1", "--no-progress"]
                + ["--out", str(plain)]) == 0, server.log_tail()
    [row] = [json.loads(x) for x in (plain / "candidates.jsonl").read_text().splitlines()]
    assert row["flags"]
    # the rest of the pipeline takes flagged candidates: review, reject all, select
    assert main(["expand", "review", str(out)]) == 0
    decisions = tmp_path / "d.jsonl"
    decisions.write_text("".join(json.dumps({"seed_id": "s1", "candidate": k,
                                             "decision": "reject"}) + "\n" for k in (0, 1)))
    assert main(["expand", "select", str(out), "--decisions", str(decisions),
                 "--out", str(tmp_path / "v.jsonl")]) == 0
    assert "write the rest by hand): s1 (0)" in capsys.readouterr().out
