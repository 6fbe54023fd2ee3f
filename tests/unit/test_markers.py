"""The one reasoning-marker list, shared by the runners and the grader."""

import pytest

from general365.markers import CLOSES, OPENS, REASONING_MARKERS, final_part, split_reasoning


@pytest.mark.parametrize("open_, close", REASONING_MARKERS)
def test_every_marker_pair_splits(open_, close):
    reasoning, final, closed = split_reasoning(f"{open_}think hard{close} The answer is 7.")
    assert (reasoning, final.strip(), closed) == ("think hard", "The answer is 7.", True)
    reasoning, final, closed = split_reasoning(f"{open_}cut off \\boxed{{7}}")
    assert (reasoning, final, closed) == ("cut off \\boxed{7}", "", False)


def test_close_without_open_is_a_closed_block():
    # chat templates often put the opening <think> in the prompt
    assert split_reasoning("reasoning</think>answer") == ("reasoning", "answer", True)


def test_last_close_wins():
    reasoning, final, closed = split_reasoning("<think>a</think>b<think>c</think> \\boxed{12}")
    assert closed and final.strip() == "\\boxed{12}"


def test_a_block_reopened_and_never_closed_has_no_final_answer():
    reasoning, final, closed = split_reasoning("<think>x</think><think>y \\boxed{7}")
    assert final == "" and closed is False
    assert "y \\boxed{7}" in reasoning


def test_no_marker():
    assert split_reasoning("just \\boxed{3}") == (None, "just \\boxed{3}", True)


def _regex_split(text):
    """The definition split_reasoning implements (a regex alternation of the markers),
    kept here to check the faster string searches against."""
    import re

    close_re = re.compile("|".join(re.escape(c) for _, c in REASONING_MARKERS))
    open_re = re.compile("|".join(re.escape(o) for o, _ in REASONING_MARKERS))
    last = None
    for m in close_re.finditer(text):
        last = m
    if last is not None:
        head = text[: last.start()]
        opened = open_re.search(head)
        reasoning = head[opened.end():] if opened else head
        tail = text[last.end():]
        reopened = open_re.search(tail)
        if reopened is not None:
            return (reasoning.strip() + "\n" + tail[reopened.end():].strip()).strip(), "", False
        return reasoning.strip(), tail, True
    opened = open_re.search(text)
    if opened is not None:
        return text[opened.end():].strip(), "", False
    return None, text, True


def test_string_search_agrees_with_the_regex_definition_on_random_texts():
    import random

    rng = random.Random(7)
    pieces = [m for pair in REASONING_MARKERS for m in pair] + [
        "<", ">", "</", "think", "<think", "</think", "x", " ", "\n", "\\boxed{3}", "◁", "▷",
        "<|end_of_thought", "|>", "seed:", "ing>"]
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert split_reasoning(text) == _regex_split(text), text
        _, final, closed = _regex_split(text)
        assert final_part(text) == (final if closed else None), text


@pytest.mark.parametrize("markers", [OPENS, CLOSES])
def test_no_marker_overlaps_another(markers):
    # split_reasoning searches with str.find, which finds what the regex alternation would
    # only while no marker's end is another's start and none holds another.
    for a in markers:
        for b in markers:
            assert a == b or b not in a
            assert not any(a.endswith(b[:k]) for k in range(1, min(len(a), len(b))))
