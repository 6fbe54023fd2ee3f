"""CFE-Bench's judge path against a real `vllm serve` (the tiny random model) on 127.0.0.1.

A random model's verdicts mean nothing; what is tested is the real path: CFE's own prompt
through the chat template, vLLM's structured outputs holding each reply to
{"accuracy": bool}, a verdict for every variable sent, the served model recorded, and a
second grade served from the cache.
"""

from __future__ import annotations

import json

import pytest

from general365.grading.judge import Judge
from general365.schema import Response, Status
from general365.tasks.cfe.data import CFEProblem, Variable, VariableType
from general365.tasks.cfe.grade import grade

pytestmark = pytest.mark.slow


# Short problems: the tiny model's context is 1024 tokens, and CFE's prompt is long.
PROBLEMS = [
    CFEProblem("p1", "A rod is 2.5 m long and painted. Give its length and colour.",
               (Variable("length", VariableType.NUMERIC, "in m", "2.5"),
                Variable("colour", VariableType.OTHER, "its colour", "red"))),
    CFEProblem("p2", "Give the roots of x^2 - 1 and the name of the curve y = x^2.",
               (Variable("roots", VariableType.OTHER, "both roots", "-1 and 1"),
                Variable("curve", VariableType.OTHER, "its name", "parabola"))),
    CFEProblem("p3", "What is the energy of a photon of frequency f?",
               (Variable("E", VariableType.FORMULA, "in h and f", "$h f$"),
                Variable("unit", VariableType.OTHER, "its SI unit", "joule"))),
]
ANSWERS = ["length = 2.5 m\ncolour = blue", "roots = 1, -1\ncurve = parabola",
           "E = hf\nunit = J"]


def test_paper_and_cascade(vllm_server, tmp_path):
    pairs = [(Response(p.id, 0, a), p) for p, a in zip(PROBLEMS, ANSWERS)]
    cache = tmp_path / "judge.sqlite"
    judge = Judge(vllm_server.model, base_url=vllm_server.base_url, structured="vllm",
                  max_tokens=16, concurrency=4, timeout=120, cache=cache)
    graded = grade(pairs, policy="paper", judge=judge)
    judged = [v for g in graded for v in g.variables]
    assert len(judged) == 6
    for v in judged:
        assert v.method == "judge" and v.status in (Status.CORRECT, Status.INCORRECT), v.detail
        assert v.judge["served_model"] == vllm_server.model
        assert json.loads(v.judge["raw"]) == {"accuracy": v.status is Status.CORRECT}
    assert judge.stats.requests == 6 and judge.stats.reasks == 0
    for g in graded:
        assert g.correct == all(v.correct for v in g.variables)
    judge.close()

    again = Judge(vllm_server.model, base_url=vllm_server.base_url, structured="vllm",
                  max_tokens=16, cache=cache)
    rerun = grade(pairs, policy="paper", judge=again)
    assert again.stats.requests == 0 and again.stats.cache_hits == 6
    assert [v.status for g in rerun for v in g.variables] == [v.status for v in judged]
    # Cascade: the verbatim answers the rule path reads are not sent again.
    cascade = grade(pairs, policy="cascade", judge=again)
    asked = [v for g in cascade for v in g.variables if v.method == "judge"]
    assert all(v.status in (Status.CORRECT, Status.INCORRECT) for v in asked)
    assert len(asked) < 6
    again.close()


def test_a_prompt_over_the_context_is_judge_failed_in_one_line(vllm_server, cfe_data):
    long = max(cfe_data.subset("text"), key=lambda p: len(p.question))
    judge = Judge(vllm_server.model, base_url=vllm_server.base_url, structured="vllm",
                  max_tokens=16, timeout=120, cache=False)
    [g] = grade([(Response(long.id, 0, "x"), long)], policy="paper", judge=judge)
    assert g.status is Status.JUDGE_FAILED
    for v in g.variables:
        assert v.status is Status.JUDGE_FAILED and "HTTP 400" in v.detail
        assert "\n" not in v.detail
