"""The judge against a real `vllm serve` (the tiny random model) on 127.0.0.1.

A random model's verdicts mean nothing; what is tested is the real path: the official
prompt through the chat template, vLLM's structured outputs holding the reply to
{"accuracy": bool}, the served model recorded, and a rerun served from the cache.
"""

from __future__ import annotations

import json

import pytest

from general365.grading.judge import Judge, JudgeItem
from general365.schema import Status

pytestmark = pytest.mark.slow

ITEMS = [
    JudgeItem("Which option is a prime number? A) 4 B) 6 C) 7 D) 9", "C", "The answer is C."),
    JudgeItem("Which option is a prime number? A) 4 B) 6 C) 7 D) 9", "C", "\\boxed{B}"),
    JudgeItem("Name the largest planet of the solar system.", "Jupiter", "It is Jupiter."),
    JudgeItem("Name the largest planet of the solar system.", "Jupiter", "Saturn, I think."),
    JudgeItem("Select all even numbers: A) 2 B) 3 C) 4", "AC", "A and C"),
    JudgeItem("Select all even numbers: A) 2 B) 3 C) 4", "AC", "A only"),
]


def test_real_server_verdicts_parse_and_rerun_is_cached(vllm_server, tmp_path):
    cache = tmp_path / "judge.sqlite"
    judge = Judge(vllm_server.model, base_url=vllm_server.base_url, structured="vllm",
                  max_tokens=64, concurrency=4, timeout=120, cache=cache)
    results = judge.judge_batch(ITEMS)
    for r in results:
        assert r.status in (Status.CORRECT, Status.INCORRECT), (r.detail, r.raw)
        assert r.model == vllm_server.model and r.served_model == vllm_server.model
        assert json.loads(r.raw) == {"accuracy": r.status is Status.CORRECT}
        assert r.votes == [r.status is Status.CORRECT] and not r.cached
    assert judge.stats.requests == len(ITEMS) and judge.stats.reasks == 0
    judge.close()

    again = Judge(vllm_server.model, base_url=vllm_server.base_url, structured="vllm",
                  max_tokens=64, cache=cache)
    rerun = again.judge_batch(ITEMS)
    assert again.stats.requests == 0 and again.stats.cache_hits == len(ITEMS)
    assert [r.status for r in rerun] == [r.status for r in results]
    assert all(r.cached for r in rerun)
    again.close()


def test_real_server_votes(vllm_server, tmp_path):
    judge = Judge(vllm_server.model, base_url=vllm_server.base_url, structured="vllm",
                  max_tokens=64, votes=3, vote_temperature=1.0, cache=False, timeout=120)
    results = judge.judge_batch(ITEMS[:2])
    for r in results:
        assert r.status in (Status.CORRECT, Status.INCORRECT), (r.detail, r.raw)
        assert len(r.votes) == 3
        assert (r.status is Status.CORRECT) == (sum(r.votes) >= 2)
        assert len(json.loads(r.raw)) == 3
    assert judge.stats.requests == 6
