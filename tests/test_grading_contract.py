"""Every example of /work/shared/docs/GRADING.md, through the public `general365.grade`
(real math-verify, real worker pool), plus the cases they make one think of."""

from __future__ import annotations

import pytest

import general365
from general365.schema import Method, Status


def grade_one(gold, answer_type, response, float_round=0, policy="rule", judge=None):
    row = {"id": "p1", "run": 0, "response": response, "answer": gold,
           "answer_type": answer_type, "float_round": float_round, "question": "Q?"}
    [v] = general365.grade([row], policy=policy, judge=judge)
    return v


# The table "Public examples (each should be a test)", row by row.
PUBLIC_EXAMPLES = [
    ("number", "12", 0, r"... so \boxed{12}", Status.CORRECT),
    ("number", "12", 0, r"<think>... \boxed{7}</think> The answer is \boxed{12}.", Status.CORRECT),
    ("number", "12", 0, r"<think>... \boxed{12}", Status.NO_ANSWER),
    ("number", "0.75", 2, r"\boxed{\frac{3}{4}}", Status.CORRECT),
    ("number", "2.67", 2, r"\boxed{2.666}", Status.CORRECT),
    ("number", "2.67", 2, r"\boxed{2.6}", Status.INCORRECT),
    ("number", "5", 0, r"\boxed{5.5}", Status.INCORRECT),
    ("number", "3600", 0, "Final answer: 3,600 seconds", Status.CORRECT),
    ("interval", r"(-\infty,3)\cup(4,+\infty)", 0, r"\boxed{(4,\infty)\cup(-\infty,3)}", Status.CORRECT),
    ("interval", "[1,2)", 0, r"\boxed{[1,2]}", Status.INCORRECT),
    ("multiple_choice", "BD", 0, r"\boxed{B, D}", Status.CORRECT),
    ("multiple_choice", "BD", 0, r"\boxed{B}", Status.INCORRECT),
]


@pytest.mark.parametrize("answer_type,gold,k,response,expected", PUBLIC_EXAMPLES)
def test_public_examples(answer_type, gold, k, response, expected):
    v = grade_one(gold, answer_type, response, k)
    assert v.status is expected, v
    want = Method.CHOICE if answer_type == "multiple_choice" else Method.RULE
    assert v.method is want


# Step 3: number answers.
STEP3 = [
    # equal values whatever the notation
    ("15/4", 0, r"\boxed{\frac{15}{4}}", True), ("15/4", 0, r"\boxed{3.75}", True),
    (r"\frac{15}{4}", 0, r"\boxed{15/4}", True), ("12000", 0, r"\boxed{12,000}", True),
    ("12,000", 0, r"\boxed{12000}", True), ("12000", 0, r"\boxed{1.2\times10^{4}}", True),
    ("12000", 0, r"\boxed{1.2 \times 10^4}", True), ("12000", 0, r"\boxed{12{,}000}", True),
    # units and labels
    ("30", 0, r"\boxed{30 cm}", True), ("30", 0, r"\boxed{30\text{ cm}}", True),
    ("30", 0, r"\boxed{x = 30}", True), ("30", 0, r"\boxed{\$30}", True),
    ("30", 0, r"\boxed{31\text{ cm}}", False),
    # percent
    ("25", 0, r"\boxed{25\%}", True), (r"25\%", 0, r"\boxed{25}", True), ("25", 0, r"\boxed{26\%}", False),
    # float_round k > 0
    ("3.14", 2, r"\boxed{3.1416}", True), ("3.14", 2, r"\boxed{3.140}", True),
    ("3.14", 2, r"\boxed{\pi}", True), ("3.14", 2, r"\boxed{3.1}", False),
    ("3.14", 2, r"\boxed{3.15}", False), ("3.14", 2, r"\boxed{3}", False),
    ("420.76", 2, r"\boxed{420.755}", True),   # exactly on a half rounds up
    ("420.75", 2, r"\boxed{420.755}", False),
    # float_round = 0: exact
    ("3", 0, r"\boxed{3.0}", True), ("3", 0, r"\boxed{\frac{6}{2}}", True), ("3", 0, r"\boxed{3.4}", False),
    ("3", 0, r"\boxed{3.0000001}", False),
]


@pytest.mark.parametrize("gold,k,response,correct", STEP3)
def test_step3_numbers(gold, k, response, correct):
    v = grade_one(gold, "number", response, k)
    assert v.status is (Status.CORRECT if correct else Status.INCORRECT), v


STEP4 = [
    ("[2,5)", r"\boxed{[2, 5)}", True), ("[2,5)", r"\boxed{x\in[2,5)}", True),
    ("[2,5)", r"\boxed{2\le x<5}", True), ("[2,5)", r"\boxed{2 \leq x < 5}", True),
    ("[2,5)", r"\boxed{[2,5]}", False), ("[2,5)", r"\boxed{(2,5)}", False),
    (r"(-\infty,3)\cup(4,+\infty)", r"\boxed{(-\infty,3)\cup(4,\infty)}", True),
    (r"(-\infty,3)\cup(4,\infty)", r"\boxed{(4,+\infty)\cup(-\infty,3)}", True),
    (r"(-\infty,3)\cup(4,+\infty)", r"\boxed{x<3 \text{ or } x>4}", True),
    (r"(-\infty,3)\cup(4,+\infty)", r"\boxed{(-\infty,3]\cup(4,\infty)}", False),
]


@pytest.mark.parametrize("gold,response,correct", STEP4)
def test_step4_intervals(gold, response, correct):
    v = grade_one(gold, "interval", response)
    assert v.status is (Status.CORRECT if correct else Status.INCORRECT), v


def test_step1_reasoning_is_never_graded():
    # The right value inside the reasoning, a wrong one after it.
    v = grade_one("12", "number", r"<think>\boxed{12}</think> \boxed{13}")
    assert v.status is Status.INCORRECT and v.extracted == "13"
    # Other common markers count too.
    v = grade_one("12", "number", r"<longcat_think>\boxed{7}</longcat_think>\boxed{12}")
    assert v.status is Status.CORRECT


def test_step2_no_answer_is_reported_as_no_answer():
    v = grade_one("12", "number", "I think it is twelve")
    assert v.status is Status.NO_ANSWER and not v.correct and v.detail


def test_statuses_are_exactly_the_documented_ones():
    assert {s.value for s in Status} >= {"correct", "incorrect", "no_answer", "timeout",
                                         "judge_failed"}


def test_timeout_is_a_status_not_incorrect():
    row = {"id": "p", "run": 0, "response": r"\boxed{9^{9^{9^{9}}}}", "answer": "12",
           "answer_type": "number"}
    [v] = general365.grade([row], policy="rule", timeout=1.0)
    assert v.status is Status.TIMEOUT and not v.correct


def test_gold_that_does_not_parse_is_a_data_error_naming_the_row():
    row = {"id": "bad-7", "run": 0, "response": r"\boxed{1}", "answer": "[2,5",
           "answer_type": "interval"}
    with pytest.raises(general365.DataError) as err:
        general365.grade([row], policy="rule")
    assert "bad-7" in str(err.value) and "answer" in str(err.value)


def test_float_round_arrives_as_a_string():
    row = {"id": "p", "run": 0, "response": r"\boxed{2.666}", "answer": "2.67",
           "answer_type": "number", "float_round": "2"}
    [v] = general365.grade([row], policy="rule")
    assert v.status is Status.CORRECT
    row["float_round"] = "two"
    with pytest.raises(general365.DataError, match="float_round"):
        general365.grade([row], policy="rule")
