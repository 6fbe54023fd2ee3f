"""What every local runner (vLLM, transformers) must do, tested once against each real
engine on the tiny model: `local` (tests/support/runner_cases.py) is each backend's
session-scoped runner in turn.

The tiny model's weights are random, so its next-token distribution is close to uniform:
different seeds give different text. Where a test needs a known shape of output (a stop,
a reasoning block, text that re-tokenizes canonically) it steers the real sampler with
`logit_bias`, as a user could.
"""

from __future__ import annotations

import pytest

from general365.errors import UserError
from support.runner_cases import by_key, request, token_id


def test_runs_with_distinct_seeds_differ_and_a_seed_reproduces(local):
    runner = local.runner
    reqs = [request("p", run, max_tokens=12) for run in range(4)]
    first = by_key(runner.generate(reqs))
    assert len(first) == 4
    texts = [first[("p", r)].response for r in range(4)]
    assert len(set(texts)) == 4, texts
    again = by_key(runner.generate(list(reversed(reqs))))
    assert [again[("p", r)].response for r in range(4)] == texts
    for r in range(4):
        g = first[("p", r)]
        assert g.sampling["seed"] == r and g.sampling["temperature"] == 1.0
        assert g.sampling["top_p"] == 1.0 and g.sampling["top_k"] == -1
    # A request's text depends on its seed, not on what else is in the batch.
    (alone,) = runner.generate([reqs[2]])
    assert alone.response == texts[2]


def test_small_max_tokens_finishes_with_length(local):
    runner = local.runner
    gens = list(runner.generate([request("p", r, max_tokens=5) for r in range(3)]))
    for g in gens:
        assert (g.finish_reason, g.output_tokens) == ("length", 5)
        assert g.sampling["max_tokens"] == 5 and g.prompt_tokens > 0


def test_a_stop_token_finishes_with_stop(local):
    runner, tokenizer = local.runner, local.tokenizer
    (g,) = runner.generate([request(logit_bias={tokenizer.eos_token_id: 30.0}, max_tokens=20)])
    assert (g.finish_reason, g.output_tokens, g.response) == ("stop", 1, "")


def test_token_counts_match_the_tokenizer_and_reasoning_is_split(local):
    runner, tokenizer = local.runner, local.tokenizer
    # Steered to two tokens that re-tokenize canonically (" 12" and "</think>"), so the
    # tokenizer's count of the text must equal the engine's count of what it generated.
    bias = {token_id(tokenizer, " 12"): 15.0, token_id(tokenizer, "</think>"): 14.0}
    gens = list(runner.generate([request("p", r, max_tokens=16, logit_bias=bias)
                                 for r in range(6)]))
    split = 0
    for g in gens:
        assert g.output_tokens == 16 == len(tokenizer.encode(g.response, add_special_tokens=False))
        assert g.finish_reason == "length"
        if "</think>" in g.response:
            split += 1
            head = g.response[: g.response.rindex("</think>") + len("</think>")]
            assert g.reasoning == head[: -len("</think>")].strip()
            assert g.reasoning_tokens == len(tokenizer.encode(head, add_special_tokens=False))
        else:
            assert g.reasoning is None and g.reasoning_tokens is None
    assert split >= 3  # P(</think>) is ~0.27 a token: 6 runs of 16 tokens close almost always


def test_cut_off_inside_reasoning_stays_length(local):
    runner, tokenizer = local.runner, local.tokenizer
    (g,) = runner.generate([request(max_tokens=6,
                                    logit_bias={token_id(tokenizer, "<think>"): 30.0})])
    assert g.response.startswith("<think>") and "</think>" not in g.response
    assert (g.finish_reason, g.output_tokens, g.reasoning) == ("length", 6, None)


def test_chat_template_kwargs_reach_the_template(local):
    runner = local.runner
    gens = by_key(runner.generate([
        request("plain", max_tokens=2),
        request("off", max_tokens=2, chat_template_kwargs={"enable_thinking": False}),
    ]))
    plain, off = gens[("plain", 0)], gens[("off", 0)]
    # enable_thinking=false writes "<think>\n\n</think>\n\n" (6 tokens) into the prompt.
    assert off.prompt_tokens == plain.prompt_tokens + 6


def test_unset_max_tokens_is_the_rest_of_the_context(local):
    runner, tokenizer = local.runner, local.tokenizer
    (g,) = runner.generate([request(max_tokens=None, logit_bias={tokenizer.eos_token_id: 30.0})])
    assert g.sampling["max_tokens"] == runner.max_model_len - g.prompt_tokens
    assert g.finish_reason == "stop"


def test_greedy_and_top_k_1_ignore_the_seed(local):
    runner = local.runner
    greedy = {g.response for g in runner.generate(
        [request("p", r, temperature=0.0, max_tokens=8) for r in range(3)])}
    top1 = {g.response for g in runner.generate(
        [request("q", r, top_k=1, max_tokens=8) for r in range(3)])}
    assert len(greedy) == 1 and top1 == greedy


def test_top_p_keeps_only_the_head(local):
    runner, tokenizer = local.runner, local.tokenizer
    # A bias gives " 12" ~13% of the mass, far more than any other token: top_p 0.1 keeps
    # only it, where plain sampling would pick it 8 times running with odds of ~1e-7.
    bias = {token_id(tokenizer, " 12"): 5.0}
    gens = list(runner.generate([request("p", r, top_p=0.1, max_tokens=8, logit_bias=bias)
                                 for r in range(3)]))
    assert {g.response for g in gens} == {" 12" * 8}


def test_over_long_requests_are_refused_before_anything_is_generated(local):
    runner = local.runner
    (probe,) = runner.generate([request("probe", max_tokens=1)])
    n = probe.prompt_tokens
    room = runner.max_model_len - n
    fits, too_long = request("fits", max_tokens=room), request("g365-long", 3, max_tokens=room + 1)
    assert runner.prepare([fits])[0].max_tokens == room
    stream = runner.generate([request("first", max_tokens=2), too_long])
    with pytest.raises(UserError) as err:
        next(stream)  # the first request fits, yet nothing comes out
    msg = str(err.value)
    assert "\n" not in msg and "'g365-long'" in msg and "run 3" in msg
    assert f"prompt tokens {n}" in msg and f"max_tokens {room + 1}" in msg
    assert f"max_model_len {runner.max_model_len}" in msg
    huge = ({"role": "user", "content": " 12" * (runner.max_model_len + 10)},)
    with pytest.raises(UserError, match=r"'huge'.*no room to generate"):
        runner.prepare([request("huge", max_tokens=None, messages=huge)])
    # The runner is still usable after a refusal.
    (ok,) = runner.generate([request("after", max_tokens=2)])
    assert ok.output_tokens == 2
