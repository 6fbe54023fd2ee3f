"""Issue 18, case by case: the answer reader reads every answer in the shape its gold calls
for, and never grades a wrong answer right. Each group below is a cause the issue found;
tests/unit/test_reader_corpus.py holds the generated thousands."""

from __future__ import annotations

import pytest

import general365
from general365.answers import reader
from general365.answers.surface import Unreadable
from general365.grading.rule import parse_gold
from general365.schema import Status


def grade(cases):
    rows = [{"id": f"r{i}", "run": 0, "response": resp, "answer": gold, "answer_type": t,
             "float_round": k, "question": "Q?"} for i, (gold, t, k, resp) in enumerate(cases)]
    return general365.grade(rows, policy="rule")


def check(cases, want: Status):
    got = grade([c[:4] for c in cases])
    wrong = [(c, v.status.value, v.extracted, v.detail) for c, v in zip(cases, got)
             if v.status is not want]
    assert not wrong, "\n".join(map(str, wrong))


N, I, S, M = "number", "interval", "single_choice", "multiple_choice"

# Wrong answers that were graded correct, by cause (the issue's hunt table).
FALSE_POSITIVES = [
    # a wrapped constant was padded, then dropped as a unit
    (r"1-\frac{1}{\mathrm{e}}", N, 0, r"\boxed{1+\frac{1}{\mathrm{e}}}"),
    (r"1-\frac{1}{\mathrm{e}}", N, 0, r"\boxed{1-\frac{1}{\text{e}}\cdot 2}"),
    (r"\frac{\mathrm{e}-1}{\mathrm{e}}", N, 0, r"\boxed{-1}"),
    (r"\sqrt{\mathrm{e}}", N, 0, r"\boxed{\sqrt{\operatorname{e}}+1}"),
    # what math-verify cannot parse was graded by a number found inside it
    ("12", N, 0, r"\boxed{\mathit{e}}"), ("12", N, 0, r"\boxed{12 + ?}"),
    ("12", N, 0, r"\boxed{\text{the answer is not } 12}"), ("12", N, 0, "\\boxed{1\u200b2}"),
    ("12", N, 0, r"\boxed{\ge 12}"), ("12", N, 0, r"\boxed{13 \to 12}"),
    ("12", N, 0, r"\boxed{\foo{12}}"),
    # any trailing word was taken as a unit
    ("12", N, 0, r"\boxed{3e^2}"), ("12", N, 0, r"\boxed{12x^2}"), ("3", N, 0, r"\boxed{3 Pi}"),
    ("2", N, 0, r"\boxed{2 sqrt2}"), ("12", N, 0, r"\boxed{12 log}"),
    ("12", N, 0, r"\boxed{12 hundred}"), ("12", N, 0, r"\boxed{12 lakh}"),
    ("12", N, 0, r"\boxed{12 crore}"), ("12", N, 0, r"\boxed{12 bn}"),
    ("12", N, 0, r"\boxed{12 score}"), ("12", N, 0, r"\boxed{12 gross}"),
    ("12", N, 0, r"\boxed{12 halves}"), ("12", N, 0, r"\boxed{12 tenths}"),
    ("12", N, 0, r"\boxed{12 \text{ is wrong}}"), ("12", N, 0, r"\boxed{12k}"),
    # a statement cut at its first punctuation lost what retracts or hedges it
    ("12", N, 0, "The answer is 12 (or maybe 13)."),
    ("12", N, 0, "The answer is 12. No wait, it's 13."),
    ("12", N, 0, "The answer is $12$ or $13$."), ("12", N, 0, r"\boxed 12 or 13"),
    ("12", N, 0, r"\boxed{12}, or possibly 13."),
    ("12", N, 0, "Final Answer: The smallest $k$ is 12. Actually no: it is 13."),
    # a choice letter followed by any text counted as that option
    ("B", S, 0, r"\boxed{B (or C)}"), ("B", S, 0, r"\boxed{\text{B. is wrong}}"),
    ("B", S, 0, r"\boxed{(B) \text{ is false; the answer is } C}"),
    # times of day compared as ratios
    ("1:20", N, 0, r"\boxed{2:40}"), ("12:30", N, 0, r"\boxed{6:15}"),
    ("9:15", N, 0, r"\boxed{18:30}"), ("1:20", N, 0, r"\boxed{\frac{1}{20}}"),
    # an equation graded by its right-hand side
    ("12", N, 0, r"\boxed{13 = 12}"), ("12", N, 0, r"\boxed{x+1 = 12}"),
    ("12", N, 0, r"\boxed{2x = 12}"), ("12", N, 0, r"\boxed{x = 12 = 13}"),
    # percent on both sides hid a factor of 100
    (r"25\%", N, 0, r"\boxed{0.25\%}"), (r"25\%", N, 0, r"\boxed{2500\%}"),
    # an empty, unclosed or commented-out last box let an earlier one count
    ("12", N, 0, r"\boxed{12}\boxed{}"), ("12", N, 0, r"\boxed{12} then \boxed{13"),
    ("12", N, 0, r"\boxed{13} % \boxed{12}"), ("12", N, 0, r"\boxed{13}<!-- \boxed{12} -->"),
    ("12", N, 0, "\\boxed{13}\n% \\boxed{12}"),
    # hidden content
    ("12", N, 0, r"\boxed{\phantom{1}12}"), ("12", N, 0, r"\boxed{12_{3}}"),
    # a second hostile pass: text beside or after the box, rendering tricks, new words
    ("12", N, 0, r"\boxed{12} \quad or 13"), ("12", N, 0, r"\boxed{12}, 13"),
    ("12", N, 0, r"\boxed{12} (13)"), ("12", N, 0, r"\boxed{12} = 13"),
    ("12", N, 0, r"\boxed{12} ou 13"), ("12", N, 0, "\\boxed{12} \u6216 13"),
    ("12", N, 0, "\\boxed{12}\n\nEdit: it's 13."), ("12", N, 0, "\\boxed{12}\n\nSo 13."),
    ("12", N, 0, r"The answer is 13, not \boxed{12}."), ("12", N, 0, r"\boxed{13} or \boxed{12}"),
    ("12", N, 0, r"\boxed{12 \approx 13}"), ("12", N, 0, r"\boxed{12+}"),
    ("12", N, 0, r"\boxed{\not\approx 12}"), ("12", N, 0, r"\renewcommand{\boxed}[1]{13}\boxed{12}"),
    ("7:15", N, 0, r"\boxed{31:15}"), (r"5\%", N, 0, r"\boxed{5 \text{ bps}}"),
    ("12", N, 0, r"\boxed{12 \text{ tentative}}"), ("12", N, 0, r"\boxed{12\text{ (unsure)}}"),
    ("B", S, 0, r"\boxed{B} and C"), ("B", S, 0, r"\boxed{B (?)}"),
    ("12", N, 0, r"~~\boxed{12}~~ \boxed{13}"), ("12", N, 0, r"\boxed{13}\textcolor{white}{\boxed{12}}"),
    ("12", N, 0, r"\boxed{\text{not }\boxed{12}}"), ("12", N, 0, r"\boxed{13}`\boxed{12}`"),
]


def test_the_issues_false_positives_are_never_correct():
    got = grade(FALSE_POSITIVES)
    wrong = [(c, v.extracted) for c, v in zip(FALSE_POSITIVES, got) if v.status is Status.CORRECT]
    assert not wrong, "\n".join(map(str, wrong))


# The kinds of notation that were misread: a careful grader reads each as the gold.
RENDERINGS = [
    ("7:15", N, 0, r"\boxed{7:15}"), ("19:15", N, 0, r"\boxed{7:15 \text{ p.m.}}"),
    ("0:00", N, 0, r"\boxed{12:00 \text{ midnight}}"), ("9:05", N, 0, r"\boxed{9:05 AM}"),
    ("17:30", N, 0, "Final answer: 5:30 pm"),
    ("4.25", N, 0, r"\boxed{€4.25}"), ("4.25", N, 0, r"\boxed{£4.25}"), ("4.25", N, 0, r"\boxed{¥4.25}"),
    ("250", N, 0, r"\boxed{₹250}"), ("4.25", N, 0, r"\boxed{USD 4.25}"),
    ("250", N, 0, "The answer is Rs. 250."), ("1000.99", N, 0, r"\boxed{1,000.99\$}"),
    ("22500", N, 0, r"\boxed{22,\!500}"), ("22500", N, 0, r"\boxed{22\,500}"),
    ("32349", N, 0, r"\boxed{32,\! 349}"),
    ("0.67", N, 2, r"\boxed{⅔}"), ("3.25", N, 0, r"\boxed{3¼}"), ("0.00001", N, 0, r"\boxed{10⁻⁵}"),
    ("3000000", N, 0, r"\boxed{3 × 10^6}"), ("3000000", N, 0, r"\boxed{3 x 10^6}"),
    ("3000000", N, 0, r"\boxed{3 · 10^6}"), ("0.00001", N, 0, r"\boxed{10^-5}"),
    ("3000000", N, 0, r"\boxed{3 \times 10^{6} m}"),
    (r"12.5\%", N, 0, r"\boxed{12\frac{1}{2}\%}"),
    ("12", N, 0, r"\boxed{\underline{12}}"), (r"\frac{2}{3}", N, 0, r"\boxed{\frac{2}{3}\text{ of the cake}}"),
    (r"1-\frac{1}{\mathrm{e}}", N, 0, r"\boxed{1-\frac{1}{e}}"),
    (r"1-\frac{1}{e}", N, 0, r"\boxed{\frac{\mathrm{e}-1}{\mathrm{e}}}"),
    ("3.14", N, 2, r"\boxed{\text{\pi}}"), ("28.27", N, 2, r"\boxed{9\pi\text{ m}^2}"),
    ("[0,360)", I, 0, r"\boxed{[0, 360)}"), ("[100,250]", I, 0, r"\boxed{[100,250]}"),
    ("[2,5]", I, 0, r"\boxed{[2;5]}"),
    (r"(-\infty,-2)\cup(2,\infty)", I, 0, r"\boxed{(-inf, -2) U (2, inf)}"),
    (r"(-\infty,1)\cup(2,\infty)", I, 0, r"\boxed{\mathbb{R} - [1,2]}"),
    (r"(-3,-1)\cup(1,3)", I, 0, r"\boxed{x\in(-3,-1) \text{ or } x\in(1,3)}"),
    (r"(-\infty,2)\cup(2,\infty)", I, 0, r"\boxed{x \neq 2}"),
    (r"(0,\infty)", I, 0, r"\boxed{x\in\mathbb{R}, x>0}"),
    ("3, 5, 8", N, 0, r"\boxed{{3, 5, 8}}"), ("7, 21, 40", N, 0, r"\boxed{7, 21, \text{ and } 40}"),
    ("12", N, 0, "Final Answer: The smallest $k$ is 12."),
    ("12", N, 0, "## Final Answer\nThe minimum number of moves is 12."),
    ("C", S, 0, "The correct choice is (C) 5/8."), ("AE", M, 0, "The answers are A and E."),
    ("BCE", M, 0, "The correct options are B, C, E."), ("BCE", M, 0, "B, C and E only"),
    ("9", N, 0, r"Then $129^{34} \equiv \boxed{9} \pmod{11}$."),
    ("3.14", N, 2, r"\boxed{3.14} (to 2 decimal places)"), ("12", N, 0, "<think>x</think>Therefore 12."),
    (r"\frac{1}{3}", N, 0, r"\boxed{0.333\ldots}"), ("1:20", N, 0, r"\boxed{\text{an hour and 20 minutes}}"),
    (r"(-\infty,3)\cup(4,\infty)", I, 0, r"\boxed{(-\infty,3) \text{ or } (4,\infty)}"),
    (r"2\sqrt{3}", N, 0, r"\boxed{2\sqrt{3} \approx 3.46}"), ("12", N, 0, r"\boxed{12} \quad \checkmark"),
]


def test_the_question_decides_labels_percentages_and_counted_subunits():
    rows = [("0.632", r"\boxed{0.632\%}", "Give the answer as a decimal, not a percent.", False),
            ("0.632", r"\boxed{63.2\%}", "What is the probability?", True),
            ("2", r"\boxed{2\%}", "How many times larger is it?", False),
            ("25", r"\boxed{25\%}", "What percent of the class passed?", True),
            ("12", r"\boxed{12 \text{ hexominoes}}", "How many hexominoes are there?", True),
            ("12", r"\boxed{12 \text{ hexominoes}}", "How many tiles are there?", False),
            ("25", r"\boxed{25 \text{ cents}}", "How many cents does it cost?", True),
            ("25", r"\boxed{\$0.25}", "How many cents does it cost?", True),
            ("25", r"\boxed{\$25}", "How many cents does it cost?", False),
            ("5", r"\boxed{5 \text{ loss}}", "What is the profit?", False)]
    got = general365.grade([{"id": f"q{i}", "run": 0, "response": resp, "answer": gold,
                             "answer_type": "number", "float_round": 0, "question": q}
                            for i, (gold, resp, q, _) in enumerate(rows)], policy="rule")
    wrong = [(r, v.status.value, v.detail) for r, v in zip(rows, got)
             if (v.status is Status.CORRECT) != r[3]]
    assert not wrong, wrong


def test_every_kind_of_notation_reads_as_the_gold():
    check(RENDERINGS, Status.CORRECT)


@pytest.mark.parametrize("gold,t", [
    ("[0,360)", I), ("[100,250]", I), (r"(-\infty, 1000)\cup(2000,\infty)", I),
    (r"1-\frac{1}{\mathrm{e}}", N), (r"\frac{\mathrm{e}-1}{\mathrm{e}}", N), ("1:20", N),
    ("9:05 AM", N), ("3:2", N), (r"\$4.25", N), (r"12\frac{1}{2}\%", N), ("10⁻⁵", N),
])
def test_valid_golds_are_read(gold, t):
    parse_gold(gold, t, 0)


def test_a_gold_is_read_as_it_is_written():
    # `\frac{\mathrm{e}-1}{\mathrm{e}}` read as -1 before: the constant was dropped as a unit.
    v = grade([(r"\frac{\mathrm{e}-1}{\mathrm{e}}", N, 0, r"\boxed{1-e^{-1}}"),
               (r"\frac{\mathrm{e}-1}{\mathrm{e}}", N, 0, r"\boxed{-1}")])
    assert [x.status for x in v] == [Status.CORRECT, Status.INCORRECT]


def test_an_equal_radical_fraction_with_reordered_terms_is_decided_not_timed_out():
    v = grade([(r"\frac{\sqrt{6}+\sqrt{2}}{4}", N, 0, r"\boxed{\frac{\sqrt{2}+\sqrt{6}}{4}}"),
               (r"\frac{\sqrt{5}+\sqrt{3}}{2}", N, 0, r"\boxed{\frac{1}{\sqrt{5}-\sqrt{3}}}"),
               (r"\frac{\sqrt{6}+\sqrt{2}}{4}", N, 0, r"\boxed{\frac{\sqrt{2}-\sqrt{6}}{4}}")])
    assert [x.status for x in v] == [Status.CORRECT, Status.CORRECT, Status.INCORRECT]


def test_a_constant_a_hair_off_is_not_the_constant():
    # Numerically equal to 30 digits, different all the same: the symbolic check decides.
    v = grade([(r"\pi", N, 0, r"\boxed{\pi - 10^{-40}}"), (r"\sqrt{2}", N, 0, r"\boxed{\sqrt{2+10^{-50}}}")])
    assert [x.status for x in v] == [Status.INCORRECT, Status.INCORRECT]


def test_unreadable_answers_say_why():
    for text, why in [(r"\text{the answer is not } 12", "not a number"),
                      ("12 \\text{ is wrong}", "not a unit"), ("1\u200b2", "invisible"),
                      (r"\phantom{1}2", "hides"), ("12 or more", "bound")]:
        with pytest.raises(Unreadable, match=why):
            reader.read_values(text)


def test_thousands_separators_are_read_only_where_the_gold_is_a_value():
    assert [v.pieces[0].exact for v in reader.read_values("22,500")] == [22500]
    from general365.answers.exact import plain_intervals
    (span,) = plain_intervals("[0,360)")
    assert (span.lo, span.hi) == (0, 360)
