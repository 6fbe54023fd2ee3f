"""The deterministic option-letter grader (choice.py)."""

from __future__ import annotations

import pytest

from general365.grading.choice import grade_choice, letters
from general365.schema import Status

BD = frozenset("BD")


@pytest.mark.parametrize("cand", [
    "B, D", "B and D", "(B)(D)", r"\text{BD}", "BD", "DB", "D, B", "B/D", "B; D.", "(B), (D)",
    "Options B and D", "$B$, $D$", "**B, D**", "B & D", "Both B and D", "[B] [D]",
])
def test_all_and_only_the_gold_letters_any_order(cand):
    assert letters(cand) == BD
    assert grade_choice(BD, cand, single=False).status is Status.CORRECT


@pytest.mark.parametrize("cand", ["B", "B, C, D", "A", "BCD", "D"])
def test_missing_or_extra_letters_are_incorrect(cand):
    assert grade_choice(BD, cand, single=False).status is Status.INCORRECT


@pytest.mark.parametrize("cand,want", [
    ("Option B", "B"), ("B", "B"), (r"\text{(B)}", "B"), ("B. 42", "B"), ("(B) Paris", "B"),
    ("The correct option is C", "C"), ("Choice: D", "D"), (r"\textbf{A}", "A"),
])
def test_single_letters(cand, want):
    assert letters(cand) == frozenset(want)


@pytest.mark.parametrize("cand", [
    "Paris", "I think B", "NO", "YES", "ABBA", "The Eiffel Tower", "42", "", "bd", "x", "k",
    "B and d", "c. Paris",
    "A bridge", "It is A",
])
def test_words_and_option_text_are_not_letters(cand):
    assert letters(cand) is None
    assert grade_choice(frozenset("A"), cand or None, single=True).status in (
        Status.INCORRECT, Status.NO_ANSWER)


def test_letter_list_means_letters():
    assert letters("A and B") == frozenset("AB")


def test_single_choice_with_two_letters_is_incorrect():
    res = grade_choice(frozenset("B"), "B, D", single=True)
    assert res.status is Status.INCORRECT and "single" in res.detail


def test_no_candidate_is_no_answer():
    assert grade_choice(BD, None, single=False).status is Status.NO_ANSWER


def test_option_text_gives_a_reason():
    res = grade_choice(frozenset("A"), "Paris", single=True)
    assert res.status is Status.INCORRECT and "no option letter" in res.detail


@pytest.mark.parametrize("cand", [
    r"B \& D", r"\{B, D\}", "[B, D]", "B\u3001D", "B\uff0cD", r"\text{B. 42, D. 17}",
])
def test_more_separators_and_wrappings(cand):
    assert letters(cand) == BD


@pytest.mark.parametrize("cand", ["C - 42", "C \u2014 Paris", r"C\text{ (42)}", "C: 42"])
def test_letter_then_its_option_text(cand):
    assert letters(cand) == frozenset("C")


def test_brackets_around_one_letter_each_still_work():
    assert letters("[B] [D]") == BD and letters("[B]") == frozenset("B")


# --- lowercase letters after a cue, several letters in a sentence (issue 14) -----------


@pytest.mark.parametrize("cand,want", [
    ("c", "C"), ("(c)", "C"), ("[c]", "C"), (r"\text{c}", "C"), ("option c", "C"),
    ("**c**", "C"), ("b and d", "BD"), ("b, d", "BD"), ("(b)(d)", "BD"), ("(c) Paris", "C"),
    ("j", "J"),
])
def test_lowercase_letters_name_options(cand, want):
    # Every candidate comes after an explicit cue (a box or "Answer:"): the paper's judge
    # reads `Answer: c` as C, and so does the letter grader (docs/grading.md).
    assert letters(cand) == frozenset(want)


def test_lowercase_answer_is_graded_like_its_capital():
    assert grade_choice(frozenset("C"), "c", single=True).status is Status.CORRECT
    assert grade_choice(frozenset("C"), "d", single=True).status is Status.INCORRECT
    assert grade_choice(BD, "b and d", single=False).status is Status.CORRECT
    assert grade_choice(BD, "b", single=False).status is Status.INCORRECT


@pytest.mark.parametrize("cand,named", [
    ("C, though D is also plausible", "C, D"), ("B or C", "B, C"),
    ("Between B and the others, D", "B, D"), ("either A or E", "A, E"),
])
def test_several_letters_in_a_sentence_say_so(cand, named):
    res = grade_choice(frozenset("C"), cand, single=True)
    assert res.status is Status.INCORRECT and res.letters is None
    assert f"several options ({named})" in res.detail


@pytest.mark.parametrize("cand,named", [
    ("I think B", "B"), ("C, though I'm unsure", "C"), ("It is A", "A"),
])
def test_one_letter_in_a_sentence_says_which(cand, named):
    res = grade_choice(frozenset("C"), cand, single=True)
    assert res.status is Status.INCORRECT and f"mentions option {named}" in res.detail


@pytest.mark.parametrize("cand", ["Paris", "A bridge", "I would say the tower", "NO"])
def test_no_letter_at_all_says_so(cand):
    res = grade_choice(frozenset("A"), cand, single=True)
    assert res.detail == "the answer names no option letter"
