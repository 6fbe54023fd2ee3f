"""Step 1 (the final-answer region) and step 2 (the candidate answer) of the contract (docs/grading.md)."""

from __future__ import annotations

import pytest

from general365.grading.extract import (EMPTY_BOX, NO_CANDIDATE, NO_REGION, extract, final_region,
                                       OPEN_BOX, is_blank, last_boxed)
from general365.markers import REASONING_MARKERS


def test_region_is_after_the_last_closing_marker():
    assert final_region(r"<think>a \boxed{7}</think>b</think> c") == " c"


@pytest.mark.parametrize("open_,close", REASONING_MARKERS)
def test_every_shared_marker_closes_a_block(open_, close):
    ex = extract(f"{open_}thinking \\boxed{{7}}{close} so \\boxed{{12}}")
    assert ex.candidate == "12"
    cut = extract(f"{open_}thinking \\boxed{{7}}")
    assert cut.region is None and cut.candidate is None and cut.detail == NO_REGION


def test_close_without_open_is_a_closed_block():
    # Chat templates often put <think> in the prompt, so only the close is in the output.
    assert extract(r"\boxed{7} reasoning</think>\boxed{12}").candidate == "12"


def test_no_marker_means_the_whole_response():
    assert extract(r"so \boxed{12}").region == r"so \boxed{12}"


def test_last_boxed_wins_and_braces_balance():
    assert last_boxed(r"\boxed{1} then \boxed{\frac{1}{2}}") == r"\frac{1}{2}"
    assert last_boxed(r"\boxed{\{1,2\}}") == r"\{1,2\}"
    assert last_boxed(r"\boxed{[2,5)}") == "[2,5)"
    # An unclosed last \boxed{ (cut off) states nothing; an earlier box does not stand in
    # for it (issue 18: a policy could leave a box open after a guess).
    assert last_boxed(r"\boxed{3} and \boxed{\frac{1}{2}") is None


@pytest.mark.parametrize("text,want", [
    (r"\fbox{4}", "4"), (r"\boxed 5", "5"), (r"\boxed {6}", "6"), (r"$\boxed{7}$.", "7"),
    (r"\boxed{\text{B}}", r"\text{B}"),
])
def test_boxed_variants(text, want):
    assert extract(text).candidate == want


def test_boxed_is_not_a_prefix_match():
    assert last_boxed(r"\boxedtext{4}") is None


@pytest.mark.parametrize("text,want", [
    ("Final answer: 3,600 seconds", "3,600 seconds"),
    ("The answer is 12.", "12"),
    ("The answer is 3.75.", "3.75"),
    ("**Answer:** 42", "42"),
    ("**Answer**: 42", "42"),
    ("**Final Answer:** $\\frac{1}{2}$ because ...", "\\frac{1}{2}"),
    ("The final answer is: **12**", "12"),
    ("Work.\n\nAnswer: B and D", "B and D"),
    ("The answer is 5. Check: 2 + 3 = 5.", "5"),
    ("the answer is 12\nFinal answer: 13", "13"),
    ("final answer is \\(x = 4\\)", "x = 4"),
    ("**Final Answer**\n\n$$12$$", "12"),
    ("## Final Answer\n12 apples", "12 apples"),
    ("Answer:\n\n**B**", "B"),
])
def test_final_answer_statements(text, want):
    ex = extract(text)
    assert ex.candidate == want and ex.source == "statement"


def test_a_box_then_a_statement_of_another_answer_states_two_answers():
    # Issue 18: `\boxed{12}. The answer is 13` commits to neither; the box keeps the
    # statement with it, so no single value is read. A statement that agrees is harmless.
    both = extract(r"\boxed{12}. The answer is 13").candidate
    assert both.startswith("12") and "13" in both
    assert extract(r"\boxed{12}. The answer is 12 apples.").candidate == "12"


@pytest.mark.parametrize("text", [
    "I think it is twelve", "Let us answer this question first. We get 5.", "",
    "No answer here: none", "<think>long</think>   ",
])
def test_no_candidate(text):
    ex = extract(text)
    assert ex.candidate is None and ex.detail in (NO_CANDIDATE,)


def test_statement_inside_reasoning_is_not_used():
    ex = extract("<think>The answer is 12.</think> I am not sure.")
    assert ex.candidate is None


# --- statement fallback: every statement is collected, the last usable one wins -------

from general365.grading.extract import usable_for  # noqa: E402

NUMBER = usable_for("number")
CHOICE = usable_for("single_choice")


@pytest.mark.parametrize("text,want", [
    # later prose that mentions "the answer" does not override the stated one
    ("**Final answer:** 7\n\nThis is consistent with the final answer above.", "7"),
    ("Answer: 7\n\nNote: the answer is independent of the radius.", "7"),
    ("So, the answer is 7.\n\nWe can verify the answer is correct by substitution.", "7"),
    # several statements on one line: the last usable one
    ("The answer is 8. Wait, actually the answer is 7.", "7"),
    ("The final answer will be 7.", "7"),
    # the candidate stops at its reason, remark or parenthetical
    ("The answer is 7, since 3+4=7.", "7"),
    ("The answer is 7 (to the nearest integer).", "7"),
    ("The answer is 7; that's the count.", "7"),
    ("The answer is **7** (seven).", "7"),
    # more statement forms
    ("The correct answer is 7.", "7"),
    ("**Final Answer:**\n$$\n7\n$$", "7"),
    ("**Final Answer**\n\\[\n7\n\\]", "7"),
    ("**Final Answer**\nThe minimum value is 7.", "7"),
    ("The answer is 3.75.", "3.75"),
    ("My answer is 7.", "7"),
    # prose mentioning a number later is not a value either
    ("Final answer: 7\n\nThe answer is consistent with step 3.", "7"),
    ("The answer is x = 4.", "x = 4"),
    ("The answer is approximately 3.14.", "approximately 3.14"),
    ("Final answer: -3. This makes sense because the value is negative.", "-3"),
    ("The answer is (2, 5) (open interval).", "(2, 5)"),
])
def test_statement_fallback_numbers(text, want):
    ex = extract(text, NUMBER)
    assert ex.candidate == want and ex.source == "statement"


@pytest.mark.parametrize("text,want", [
    ("The answer is C because A and B fail.", "C"),
    ("The answer is C, i.e., 42.", "C"),
    ("The answer is B, D, since A is false.", "B, D"),
    ("The best answer is C.", "C"),
    ("Correct answer: C", "C"),
    ("\u7b54\u6848\uff1aC", "C"),
    ("**Answer**\nC", "C"),
    ("The answer is C.\n\nThe answer is consistent with the text.", "C"),
    ("Final answer: B; D", "B; D"),  # `;` ends X only before words
    ("The answer is (B) Paris.", "(B) Paris"),
])
def test_statement_fallback_choices(text, want):
    assert extract(text, CHOICE).candidate == want


def test_no_usable_statement_falls_back_to_the_last_one():
    # There was an answer, it is just not a number: graded incorrect, not no_answer.
    assert extract("The answer is seven.", NUMBER).candidate == "seven"
    assert extract("The answer is seven.").candidate == "seven"


def test_the_last_box_decides_even_when_empty():
    # Issue 18: an empty last box states nothing, and no earlier box stands in for it.
    for text in (r"\boxed{7}\boxed{}", r"\boxed{7} and \boxed{ }", r"\boxed{}"):
        ex = extract(text)
        assert ex.candidate is None and ex.source == "empty_box", text


@pytest.mark.parametrize("text", [
    r"so \boxed{}", r"\boxed{ }", r"\boxed{\text{}}", r"\boxed{\text{ }}", r"$\boxed{}$",
    r"\boxed{\quad}", r"The final answer is $\boxed{}$.", r"**Final Answer:** \boxed{}",
    r"Answer: $\boxed{\,}$", r"<think>\boxed{7}</think> so \boxed{}",
])
def test_an_empty_final_box_is_no_answer_and_says_so(text):
    # An empty box states nothing, also when a statement points at it (issue 14): no
    # candidate, and the reason names the empty box.
    for usable in (None, NUMBER, CHOICE):
        ex = extract(text, usable)
        assert ex.candidate is None and ex.source == "empty_box", (text, ex)
        assert ex.detail == EMPTY_BOX


def test_an_empty_or_open_last_box_is_no_answer_whatever_came_before():
    # Issue 18: a box states the answer; an empty one states that there is none, also
    # after a statement (`Final answer: 7. \boxed{}`), and an unclosed one was cut off.
    assert extract(r"Final answer: 7. \boxed{}", NUMBER).candidate is None
    assert extract(r"\boxed{7} then \boxed{\text{}}").candidate is None
    assert extract(r"so \boxed{12").detail == OPEN_BOX
    assert extract(r"\boxed{7} so \boxed{12").detail == OPEN_BOX


@pytest.mark.parametrize("text,blank", [
    ("", True), (" ", True), (r"\boxed{}", True), (r"$\text{ }$", True), (r"\,\;", True),
    ("0", False), (r"\text{?}", False), (r"\emptyset", False), (r"\{\}", False), ("B", False),
])
def test_is_blank(text, blank):
    assert is_blank(text) is blank
