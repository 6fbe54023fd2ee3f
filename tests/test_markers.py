"""The one reasoning-marker list, shared by the runners and the grader."""

import pytest

from general365.markers import REASONING_MARKERS, split_reasoning


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
