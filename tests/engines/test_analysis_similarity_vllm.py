"""Reasoning similarity against a real `vllm serve` (the tiny random model) on 127.0.0.1.

A random model's scores mean nothing; what is tested is the real path: our prompt through
the chat template and within the model's context, vLLM's structured outputs holding the
reply to one of "0".."5", votes, the served model recorded, the command end to end, and a
rerun served from the cache."""

from __future__ import annotations

import json

import pytest

from general365.analysis import analyze
from general365.analysis.similarity_prompt import SIMILARITY_TASK, SimilarityPair, Triplet
from general365.cli import main
from general365.grading.judge import Judge
from test_analysis_similarity import write_set

pytestmark = pytest.mark.slow


def make_judge(server, **kw) -> Judge:
    return Judge(server.model, base_url=server.base_url, structured="vllm", max_tokens=2,
                 concurrency=4, timeout=120, **kw)


def test_every_pair_gets_a_valid_score_and_the_rerun_is_cached(vllm_server, tmp_path):
    src = write_set(tmp_path / "fam.jsonl")
    cache = tmp_path / "judge.sqlite"
    judge = make_judge(vllm_server, cache=cache)
    a = analyze([src], embedder="tfidf", tsne_method="off", cache=False, judge=judge)
    s = a.similarity.set("fam")
    assert s.failed == 0 and len(s.scores) == 8, [p.detail for p in s.pairs]
    assert all(p.score in range(6) and p.votes == [p.score] for p in s.pairs)
    assert sum(s.counts) == 8 and s.mean == pytest.approx(sum(s.scores) / 8)
    assert a.similarity.judge["requests"] == 4 and judge.stats.reasks == 0

    again = make_judge(vllm_server, cache=cache)
    b = analyze([src], embedder="tfidf", tsne_method="off", cache=False, judge=again)
    assert again.stats.requests == 0 and again.stats.cache_hits == 4
    assert b.similarity.set("fam").scores == s.scores


def test_three_votes_and_the_served_model(vllm_server):
    judge = make_judge(vllm_server, votes=3, vote_temperature=1.0, cache=False)
    pairs = [SimilarityPair(Triplet("How many legs do 3 cats have?", "3 x 4 = 12.", "12"),
                            Triplet("How many wheels do 5 bikes have?", "5 x 2 = 10.", "10")),
             SimilarityPair(Triplet("Is 91 prime?"), Triplet("What day follows Monday?"))]
    for a in judge.ask(SIMILARITY_TASK, pairs):
        assert not a.failed, a.detail
        assert len(a.votes) == 3 and all(v in range(6) for v in a.votes)
        assert a.value == sorted(a.votes)[1]
        assert [int(r) for r in json.loads(a.raw)] == a.votes
        assert a.served_model == vllm_server.model
    assert judge.stats.requests == 6


def test_the_command_with_a_real_judge(vllm_server, tmp_path, capsys):
    src = write_set(tmp_path / "fam.jsonl")
    out = tmp_path / "out"
    assert main(["analyze", src, "--embedder", "tfidf", "--tsne", "off", "--no-progress",
                 "--no-embed-cache", "--out", str(out), "--judge-model", vllm_server.model,
                 "--judge-base-url", vllm_server.base_url, "--judge-structured", "vllm",
                 "--judge-max-tokens", "2", "--judge-cache", "none"]) == 0
    assert "reasoning similarity (0-5; judge tiny" in capsys.readouterr().out
    d = json.loads((out / "analysis.json").read_text())["similarity"]
    assert d["datasets"]["fam"]["scored"] == 8 and d["judge"]["structured"] == "vllm"
    assert (out / "figures" / "fig7_reasoning_similarity.svg").exists()
