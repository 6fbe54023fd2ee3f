"""max_tokens resolution and the up-front refusal of prompts that cannot fit (pure logic;
the runners' tests check that both backends apply it before generating anything)."""

from __future__ import annotations

import pytest

from general365.errors import UserError
from general365.runners.base import GenerationRequest, SamplingSettings
from general365.runners.limits import Budget, plan_budgets, resolve_max_tokens


def req(pid, max_tokens, run=0):
    return GenerationRequest(pid, run, ({"role": "user", "content": "q"},),
                             SamplingSettings(temperature=1.0, max_tokens=max_tokens, seed=run))


def test_unset_max_tokens_is_the_rest_of_the_context():
    assert resolve_max_tokens("a", 100, None, 1024) == 924
    assert resolve_max_tokens("a", 1023, None, 1024) == 1


def test_explicit_max_tokens_is_kept_when_it_fits():
    assert resolve_max_tokens("a", 100, 924, 1024) == 924
    assert resolve_max_tokens("a", 100, 5, 1024) == 5


def test_prompt_plus_max_tokens_over_the_context_is_refused_with_the_numbers():
    with pytest.raises(UserError) as err:
        resolve_max_tokens("g365-017", 100, 925, 1024, run=2)
    msg = str(err.value)
    assert "\n" not in msg
    assert "'g365-017'" in msg and "run 2" in msg
    assert "prompt tokens 100" in msg and "max_tokens 925" in msg and "= 1025" in msg
    assert "max_model_len 1024" in msg


@pytest.mark.parametrize("prompt_tokens", [1024, 5000])
def test_a_prompt_that_fills_the_context_is_refused_even_without_max_tokens(prompt_tokens):
    with pytest.raises(UserError, match=rf"the prompt has {prompt_tokens} tokens.*max_model_len 1024"):
        resolve_max_tokens("x", prompt_tokens, None, 1024)


@pytest.mark.parametrize("bad", [0, -3])
def test_max_tokens_below_one_is_refused(bad):
    with pytest.raises(UserError, match="at least 1"):
        resolve_max_tokens("x", 10, bad, 1024)


def test_plan_budgets_pairs_each_request_with_its_prompt():
    requests = [req("a", None), req("b", 50), req("c", None)]
    assert plan_budgets(requests, [10, 20, 30], 100) == [
        Budget(10, 90), Budget(20, 50), Budget(30, 70)]


def test_plan_budgets_refuses_the_whole_run_naming_the_first_and_counting_the_rest():
    requests = [req("ok", 10), req("long1", 95), req("ok2", None), req("long2", 200, run=1)]
    with pytest.raises(UserError) as err:
        plan_budgets(requests, [10, 10, 10, 10], 100)
    msg = str(err.value)
    assert "'long1'" in msg and "(1 more request(s) do not fit either)" in msg
    assert "long2" not in msg


def test_plan_budgets_needs_one_length_per_request():
    with pytest.raises(ValueError):
        plan_budgets([req("a", 1)], [], 100)
