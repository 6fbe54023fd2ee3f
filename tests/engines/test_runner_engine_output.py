"""Turning engine output into a Generation: the reasoning split and its token count, the
settings recorded (shared by the vLLM and transformers runners)."""

from __future__ import annotations

import pytest

from general365.runners.base import GenerationRequest, SamplingSettings
from general365.runners.limits import Budget, ReasoningCounter, make_generation


@pytest.fixture(scope="module")
def tokenizer(tiny_model_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_model_dir)


@pytest.fixture(scope="module")
def counter(tokenizer):
    return ReasoningCounter(tokenizer)


REQ = GenerationRequest("p", 1, ({"role": "user", "content": "q"},),
                        SamplingSettings(temperature=0.7, max_tokens=None, seed=99, preset="chat"))


def ids(tokenizer, text):
    return tokenizer.encode(text, add_special_tokens=False)


def test_closed_block_is_split_and_counted_up_to_the_marker(tokenizer, counter):
    text = "<think>count 3 cases</think> The answer is \\boxed{3}."
    tokens = ids(tokenizer, text)
    g = make_generation(REQ, text=text, token_ids=tokens, finish_reason="stop",
                        budget=Budget(16, 500), counter=counter)
    assert g.response == text  # the full text is kept, markers included
    assert g.reasoning == "count 3 cases"
    assert g.reasoning_tokens == len(ids(tokenizer, "<think>count 3 cases</think>"))
    assert g.output_tokens == len(tokens)
    assert (g.finish_reason, g.prompt_tokens) == ("stop", 16)


def test_close_without_open_counts_from_the_start(tokenizer, counter):
    # Templates often put <think> in the prompt; the response then only closes it.
    text = "so 12 it is</think>\\boxed{12}"
    g = make_generation(REQ, text=text, token_ids=ids(tokenizer, text), finish_reason="stop",
                        budget=Budget(5, 50), counter=counter)
    assert g.reasoning == "so 12 it is"
    assert g.reasoning_tokens == len(ids(tokenizer, "so 12 it is</think>"))


def test_cut_off_inside_reasoning_keeps_length_and_no_split(tokenizer, counter):
    text = "<think>first, the left side"
    g = make_generation(REQ, text=text, token_ids=ids(tokenizer, text), finish_reason="length",
                        budget=Budget(5, 7), counter=counter)
    assert (g.finish_reason, g.reasoning, g.reasoning_tokens) == ("length", None, None)
    assert g.response == text


def test_no_markers_no_reasoning(tokenizer, counter):
    g = make_generation(REQ, text="42", token_ids=ids(tokenizer, "42"), finish_reason="stop",
                        budget=Budget(5, 7), counter=counter)
    assert (g.reasoning, g.reasoning_tokens) == (None, None)


def test_a_marker_of_several_tokens_is_counted_by_decoding(tokenizer, counter):
    # The tiny tokenizer has no single token for </thinking>: the bisection path.
    assert len(ids(tokenizer, "</thinking>")) > 1
    text = "<thinking>left, then up</thinking> \\boxed{7}"
    g = make_generation(REQ, text=text, token_ids=ids(tokenizer, text), finish_reason="stop",
                        budget=Budget(5, 100), counter=counter)
    assert g.reasoning == "left, then up"
    assert g.reasoning_tokens == len(ids(tokenizer, "<thinking>left, then up</thinking>"))


def test_the_settings_and_seed_are_recorded_with_the_resolved_max_tokens(tokenizer, counter):
    g = make_generation(REQ, text="x", token_ids=[5], finish_reason="stop",
                        budget=Budget(24, 1000), counter=counter)
    assert g.sampling["seed"] == 99 and g.sampling["temperature"] == 0.7
    assert g.sampling["preset"] == "chat" and g.sampling["max_tokens"] == 1000
    assert (g.problem_id, g.run) == ("p", 1)
