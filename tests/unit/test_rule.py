"""The rule grader (rule.py, exact.py, symbolic.py) on real math-verify, in this process."""

from __future__ import annotations

from fractions import Fraction

import pytest

from general365.answers import exact, reader
from general365.answers.surface import Unreadable
from general365.answers.gold import GoldAnswer, parse_gold
from general365.grading.rule import grade_fast, grade_slow
from general365.schema import AnswerType, Status

N, I = AnswerType.NUMBER, AnswerType.INTERVAL


def verdict(gold, candidate, k=0, t=N, fast=True):
    return grade_slow(parse_gold(gold, t, k), candidate, fast=fast).status


# --- parse_gold (the dataset importer's entry point) ---------------------------------


def test_parse_gold_plain_number_takes_the_fast_path():
    g = parse_gold("3,600", N, 0)
    assert isinstance(g, GoldAnswer) and g.values[0].exact == 3600 and not g.values[0].percent
    assert parse_gold(r"-\frac{3}{4}", N, 2).values[0].exact == Fraction(-3, 4)
    assert parse_gold("25\\%", N, 0).values[0].percent


def test_parse_gold_interval_spans():
    g = parse_gold(r"(4,+\infty)\cup(-\infty,3)", I, 0)
    assert g.spans == (exact.Span(None, False, Fraction(3), False),
                       exact.Span(Fraction(4), False, None, False))


@pytest.mark.parametrize("gold,t", [(r"\sqrt{2}", N), (r"\{1,2\}", I), ("2\\le x<5", I),
                                    (r"x\in[2,5)", I), ("1,2,3", N), (r"\frac{\pi}{2}", N)])
def test_parse_gold_accepts_what_math_verify_reads(gold, t):
    g = parse_gold(gold, t, 0)
    assert g.text == gold and g.answer_type is t


@pytest.mark.parametrize("gold,t,reason", [
    ("[2,5", I, "cannot read"), ("abc", N, "not a number"), ("abc", I, "not an interval"),
    ("", N, "empty"), ("   ", I, "empty"), ("x+1", N, "not a number"),
])
def test_parse_gold_raises_value_error_with_the_reason(gold, t, reason):
    with pytest.raises(ValueError, match=reason):
        parse_gold(gold, t, 0)


def test_parse_gold_rejects_a_bad_float_round():
    with pytest.raises(ValueError, match="float_round"):
        parse_gold("1", N, -1)
    with pytest.raises(ValueError, match="float_round"):
        parse_gold("1", N, "2")


def test_parse_gold_for_judged_types_keeps_the_text():
    g = parse_gold("Paris", AnswerType.TEXT, 0)
    assert g.text == "Paris" and g.values is None and g.spans is None


# --- math-verify traps the grader must avoid ----------------------------------------


def test_bare_interval_and_set_golds_are_read():
    # math-verify alone parses a bare `[2,5)` or `\{1,2\}` to nothing.
    from math_verify import parse

    assert parse("[2,5)", parsing_timeout=None) == []
    assert verdict("[2,5)", "[2,5)", t=I, fast=False) is Status.CORRECT
    assert verdict(r"\{1,2\}", r"\{2,1\}", t=I) is Status.CORRECT
    assert verdict(r"\{1,2\}", r"\{1,3\}", t=I) is Status.INCORRECT


def test_bare_list_is_a_list_not_a_decimal():
    # math-verify reads a bare `1,2,3` as 1.2.
    assert verdict("1,2,3", "3, 2, 1") is Status.CORRECT
    assert verdict("1,2,3", "1.2") is Status.INCORRECT
    assert verdict("1,2,3", "1,2") is Status.INCORRECT


def test_float_round_rounds_the_prediction_half_up_not_both_sides_to_six_places():
    # math-verify's float_rounding=6 would call 3.0000001 equal to 3.
    assert verdict("3", "3.0000001") is Status.INCORRECT
    assert verdict("3", "3.0000001", fast=False) is Status.INCORRECT
    assert verdict("2.68", "2.675", 2) is Status.CORRECT     # binary 2.675 is below the half
    assert verdict("2.68", "2.675", 2, fast=False) is Status.CORRECT
    assert verdict("-2.68", "-2.675", 2) is Status.CORRECT   # halves away from zero
    assert verdict("0.33", r"\frac{1}{3}", 2) is Status.CORRECT
    assert verdict("1.41", r"\sqrt{2}", 2) is Status.CORRECT
    assert verdict("1.42", r"\sqrt{2}", 2) is Status.INCORRECT
    assert verdict(r"\sqrt{2}", "1.414") is Status.INCORRECT  # k = 0 is exact
    assert verdict(r"\sqrt{8}", r"2\sqrt{2}") is Status.CORRECT


def test_gold_itself_is_rounded_to_k_places():
    # A gold given with more places than k still compares at k places.
    assert verdict("3.14159", "3.14", 2) is Status.CORRECT
    assert verdict("3.145", "3.15", 2) is Status.CORRECT


def test_percent_rules():
    assert verdict("25", r"25\%") is Status.CORRECT
    assert verdict("0.25", r"25\%") is Status.CORRECT     # the same quantity
    assert verdict(r"25\%", "25") is Status.CORRECT
    assert verdict("25", "0.25") is Status.INCORRECT      # no percent sign: a different number
    assert verdict("2.5", r"2.5\%") is Status.CORRECT
    assert verdict("33.33", r"33.333\%", 2) is Status.CORRECT


def test_scientific_and_thousands_notation():
    # math-verify alone reads `1.2e4` as 1.2 * e * 4; the fast path reads the number.
    assert verdict("12000", "1.2e4") is Status.CORRECT
    assert verdict("12000", "1.2E4") is Status.CORRECT
    assert verdict("12000", r"12\,000") is Status.CORRECT
    assert verdict("1234", "1,234") is Status.CORRECT
    assert verdict("-5", "\u22125") is Status.CORRECT     # unicode minus
    assert verdict("-5", r"\text{$-5$}") is Status.CORRECT


def test_units_do_not_turn_letters_into_numbers():
    assert verdict("30", "30 cm") is Status.CORRECT
    assert verdict("30", "30 km/h") is Status.CORRECT
    assert verdict("30", "30 m^2") is Status.CORRECT
    assert verdict("30", "30e") is Status.INCORRECT      # 30 times e, not a unit
    with pytest.raises(Unreadable):
        reader.read_values("3x")


def test_infinity_spellings_agree():
    for s in [r"(4,\infty)", r"(4,+\infty)", "(4,\u221e)", r"x > 4"]:
        assert verdict(r"(4,+\infty)", s, t=I) is Status.CORRECT, s


def test_unions_compare_as_sets():
    assert verdict(r"[1,3]", r"[1,2]\cup[2,3]", t=I) is Status.CORRECT
    assert verdict(r"[1,3]", r"[1,2)\cup(2,3]", t=I) is Status.INCORRECT
    assert verdict(r"[1,3]", r"[1,2)\cup[2,3]", t=I) is Status.CORRECT
    assert verdict(r"(0,1)\cup(2,3)", r"(2,3)\cup(0,1)", t=I) is Status.CORRECT
    assert verdict(r"(0,1)\cup(2,3)", r"(0,3)", t=I) is Status.INCORRECT
    assert verdict(r"\mathbb{R}", r"(-\infty,\infty)", t=I) is Status.CORRECT
    assert verdict(r"[0.5,1]", r"[\frac{1}{2},1]", t=I) is Status.CORRECT


def test_interval_endpoints_round_with_float_round():
    assert verdict("[1.41, 2)", r"[\sqrt{2}, 2)", 2, t=I) is Status.CORRECT
    assert verdict("[1.41, 2)", r"[1.414, 2)", 2, t=I) is Status.CORRECT
    assert verdict("[1.41, 2)", r"[1.414, 2]", 2, t=I) is Status.INCORRECT


def test_unreadable_candidate_is_incorrect_with_a_reason():
    res = grade_slow(parse_gold("12", N, 0), "")
    assert res.status is Status.INCORRECT


# --- the fast path agrees with the math-verify path ---------------------------------

AGREE = [
    ("12", 0, c) for c in ["12", "12.0", "13", "-12", r"\frac{24}{2}", "24/2", "0012"]
] + [
    ("2.67", 2, c) for c in ["2.666", "2.665", "2.6749", "2.675", "2.6", r"\frac{8}{3}", "2.67"]
] + [
    ("0.75", 2, c) for c in [r"\frac{3}{4}", "0.749", "0.7449", "3/4", r"75\%"]
] + [
    ("25", 0, c) for c in [r"25\%", "25", "0.25", r"\frac{50}{2}"]
] + [
    ("12000", 0, c) for c in ["12,000", r"1.2\times10^{4}", "12000.0", "11999"]
] + [
    ("[2,5)", 0, c) for c in ["[2,5)", "[2, 5]", "(2,5)", r"x\in[2,5)", r"[2,5)\cup[3,4]",
                              r"2\le x<5", "2<x<5", r"x\ge 2", r"5 > x \geq 2", r"2\le x\le 5"]
] + [
    (r"(-\infty,3)\cup(4,+\infty)", 0, c) for c in [
        r"(4,\infty)\cup(-\infty,3)", r"(-\infty,3]\cup(4,\infty)", r"(-\infty,4)", r"(-\infty,3)\cup[4,\infty)",
        r"x<3 \text{ or } x>4", r"x\le 3 \text{ or } x>4", r"x>4 \text{ or } x<3", "x<3"]
]


@pytest.mark.parametrize("gold,k,candidate", AGREE)
def test_fast_path_verdict_equals_math_verify_path(gold, k, candidate):
    t = I if ("[" in gold or "infty" in gold) else N
    g = parse_gold(gold, t, k)
    quick = grade_fast(g, candidate)
    assert quick is not None, "this candidate should take the fast path"
    assert quick.status is grade_slow(g, candidate, fast=False).status


def test_inequality_fast_path_declines_mixed_or_two_variable_forms():
    for cand in ["2<x>3", r"1<x<\infty", r"x<\sqrt{2}"]:
        assert exact.plain_intervals(cand) is None, cand
    with pytest.raises(Unreadable, match="two variables"):
        exact.plain_intervals("x<3, y>4")


def test_and_intersects_or_unites():
    # math-verify alone reads "x >= 2 and x < 5" as the set {x >= 2, x < 5}, which would
    # unite; the fast path intersects.
    assert verdict("[2,5)", r"x\ge 2 \text{ and } x<5", t=I) is Status.CORRECT
    assert verdict("[2,5)", r"x\ge 2 \text{ or } x<5", t=I) is Status.INCORRECT
    assert verdict(r"(-\infty,2)\cup[5,\infty)", r"x<2 \text{ or } x\ge 5", t=I) is Status.CORRECT
    assert verdict(r"\emptyset", r"x>5 \text{ and } x<2", t=I) is Status.CORRECT


def test_fast_path_declines_what_it_cannot_be_sure_of():
    g = parse_gold("12", N, 0)
    for cand in [r"2^{2}\cdot 3", r"\sqrt{144}", "9^{9^{9^{9}}}"]:
        assert grade_fast(g, cand) is None, cand
    # A long plain number is read exactly; an exponent out of range is refused, not parsed.
    assert grade_fast(g, "1" * 500).status is Status.INCORRECT
    assert "out of range" in grade_fast(g, "1e100000").detail


def test_round_half_up_on_exact_values():
    r = exact.round_half_up
    assert r(Fraction("420.755"), 2) == Fraction("420.76")
    assert r(Fraction("2.665"), 2) == Fraction("2.67")
    assert r(Fraction("-0.125"), 2) == Fraction("-0.13")
    assert r(Fraction("0.124999"), 2) == Fraction("0.12")
    assert r(Fraction(7, 2), 0) == 4


# Adversarial answers, as a function of a size k: runs that make a backtracking regex
# (or a rescanning loop) go quadratic or worse.
ADVERSARIAL = {
    "letters then !": lambda k: "1 " + "a" * k + "!",
    "spaces": lambda k: "Final answer:" + " " * (10 * k) + "\n",
    "open boxes": lambda k: r"\boxed{" * (4 * k),
    "open parens": lambda k: "(" * (4 * k),
    "commas": lambda k: "A" + " ," * k + "x",
    "x<": lambda k: "x<" * k,
    "1,": lambda k: "1," * (4 * k) + "x",
    "open text": lambda k: r"\text{" * k + "1",
    "dollars": lambda k: "$" * (4 * k),
    "think blocks": lambda k: "<think>" * k + "</think>" * k,
    "the answer is": lambda k: "The answer is " * k,
    "answer lines": lambda k: "answer\n" * (4 * k),
    "stars": lambda k: "**" * (4 * k),
    "111": lambda k: "111 " * k,
    "0.": lambda k: "0." * (2 * k),
    "open set": lambda k: r"\{x|" + "a" * (4 * k),
    "approximately": lambda k: "approximately " * k,
    "spaced tail": lambda k: "the answer is 7" + "  " * (4 * k) + "because",
    "CJK": lambda k: "\u7b54\u6848" * (2 * k),
    # the hedge search after a box (a run of newlines was cubic in it)
    "newlines after a box": lambda k: "\\boxed{12}" + "\n" * (4 * k),
    "spaced lines after a box": lambda k: "\\boxed{12}" + "\n " * (2 * k),
}


def _parent_side(text: str) -> None:
    """Everything the parent runs on a response with no time limit: extraction and the
    fast path (the worker pool bounds the rest)."""
    from general365.grading.choice import letters
    from general365.grading.extract import extract, usable_for

    g, gi = parse_gold("12", N, 0), parse_gold("[2,5)", I, 0)
    for t in (N, I, "single_choice", "text"):
        extract(text, usable_for(t))
    reader.qualifier(text)
    ex = extract(text)
    for cand in (text, ex.candidate or ""):
        for read in (reader.read_values, exact.plain_intervals, reader.read_clock):
            try:
                read(cand)
            except Unreadable:
                pass
        letters(cand)
        grade_fast(g, cand)
        grade_fast(gi, cand)


def _cpu_seconds(text: str) -> float:
    """The least CPU time of three runs (this thread's clock: other processes on the
    machine do not count)."""
    import gc
    import time

    best = float("inf")
    gc.disable()
    try:
        for _ in range(3):
            start = time.thread_time()
            _parent_side(text)
            best = min(best, time.thread_time() - start)
    finally:
        gc.enable()
    return best


@pytest.mark.timeout(120)   # exponential backtracking would hang: that is a failure too
@pytest.mark.parametrize("family", ADVERSARIAL)
def test_parent_side_stays_linear_on_adversarial_answers(family):
    # Extraction and the fast path run in the parent with no time limit, so none of their
    # regexes may backtrack quadratically or worse. The input grows 16-fold: linear work
    # grows ~16-fold (measured 2.5 to 8.8 per 8-fold here), quadratic 256-fold. A ratio of
    # two CPU times of the same code in one process, not a time limit.
    make = ADVERSARIAL[family]
    small, large = _cpu_seconds(make(312)), _cpu_seconds(make(4992))
    growth = large / max(small, 0.001)   # below a millisecond the clock's grain dominates
    assert growth < 40, f"{family}: 16x the input took {growth:.0f}x the CPU time"


def _random_pairs(seed: int, n: int):
    import random

    rng = random.Random(seed)
    for _ in range(n):
        k = rng.choice([0, 0, 1, 2, 3])
        num, den = rng.randint(-999, 999), rng.choice([1, 2, 3, 4, 7, 8, 10, 16])
        q = Fraction(num, den)
        gold = f"{float(exact.round_half_up(q, k)):.{k}f}" if k else (
            str(q.numerator) if q.denominator == 1 else rf"\frac{{{q.numerator}}}{{{q.denominator}}}")
        shown = rng.choice([
            lambda: f"{float(q):.{rng.randint(0, 6)}f}",
            lambda: rf"\frac{{{num}}}{{{den}}}",
            lambda: f"{num}/{den}",
            lambda: f"{float(q) + rng.choice([-1, 1]) * 10 ** -rng.randint(1, 4):.6f}",
            lambda: f"{float(q) * 1000:,.0f}" if q.denominator == 1 else f"{float(q):.3f}",
        ])()
        yield gold, k, shown


@pytest.mark.parametrize("seed", range(4))
def test_fast_path_agrees_with_math_verify_on_random_numbers(seed):
    for gold, k, cand in _random_pairs(seed, 40):
        g = parse_gold(gold, N, k)
        quick = grade_fast(g, cand)
        assert quick is not None, cand
        assert quick.status is grade_slow(g, cand, fast=False).status, (gold, k, cand)


@pytest.mark.parametrize("seed", range(2))
def test_fast_path_agrees_with_math_verify_on_random_intervals(seed):
    import random

    rng = random.Random(seed)

    def union():
        parts = []
        for _ in range(rng.randint(1, 3)):
            a = rng.randint(-6, 6)
            b = a + rng.randint(1, 4)
            lo = r"-\infty" if rng.random() < 0.15 else str(a)
            hi = r"+\infty" if rng.random() < 0.15 else str(b)
            parts.append(("(" if lo.endswith("infty") or rng.random() < 0.5 else "[") + f"{lo},{hi}"
                         + (")" if hi.endswith("infty") or rng.random() < 0.5 else "]"))
        return r"\cup".join(parts)

    for _ in range(25):
        gold, cand = union(), union()
        if rng.random() < 0.3:
            cand = gold
        g = parse_gold(gold, I, 0)
        quick = grade_fast(g, cand)
        assert quick is not None
        assert quick.status is grade_slow(g, cand, fast=False).status, (gold, cand)


# --- reviewer's cases: each side of the rule, on both paths --------------------------


def both(gold, candidate, k=0, t=N):
    """The verdict of the default path and of the math-verify path (they must agree)."""
    g = parse_gold(gold, t, k)
    a, b = grade_slow(g, candidate).status, grade_slow(g, candidate, fast=False).status
    assert a is b, (gold, candidate, a, b)
    return a


@pytest.mark.parametrize("gold,cand,ok", [
    ("7", r"7\text{ million}", False), ("7", "7 dozen", False), ("7", "7 squared", False),
    ("7", "7 or more", False), ("7", "7 or fewer", False), ("7", r"7\text{ at most}", False),
    ("7", "at least 7", False), ("7000000", "7 million", True), ("7500000", "7.5 million", True),
    ("84", "7 dozen", True), ("7000", r"7\text{ thousand}", True),
])
def test_scale_words_multiply_and_qualifiers_are_not_values(gold, cand, ok):
    assert both(gold, cand) is (Status.CORRECT if ok else Status.INCORRECT)


@pytest.mark.parametrize("gold,cand", [
    ("[-1,3]", r"-1 \leqslant x \leqslant 3"), (r"[3,+\infty)", r"x \geqslant 3"),
    ("[-1,3]", "-1 \u2a7d x \u2a7d 3"), (r"[3,+\infty)", "x \u2a7e 3"),
    ("[-1,3]", "-1 \u2264 x \u2264 3"), (r"[3,+\infty)", "x\u22653"),
    ("[2,5)", r"\{x \mid 2\le x<5\}"), ("[2,5)", r"\{x : 2\le x<5\}"),
    (r"[3,+\infty)", r"\{x|x\geq3\}"), (r"[3,+\infty)", r"\{x\in\mathbb{R}\mid x\ge3\}"),
    ("[2,5)", "[2,5["), ("(-2,2)", "]-2,2["), (r"(-\infty,0)\cup(1,2)", r"]-\infty,0[\cup]1,2["),
])
def test_inequality_spellings_set_builder_and_iso_brackets(gold, cand):
    assert both(gold, cand, t=I) is Status.CORRECT


def test_set_builder_and_iso_brackets_keep_their_ends():
    assert both("[2,5)", r"\{x \mid 2< x<5\}", t=I) is Status.INCORRECT
    assert both("(-2,2)", "]-2,2]", t=I) is Status.INCORRECT


@pytest.mark.parametrize("cand", [
    r"7 \text{ cm}^2", r"7 \mathrm{m}^2", r"7\,\text{m/s}^2", r"7\ \text{g/cm}^3",
    r"7^\circ \text{C}", r"7^{\circ}", r"7\,\Omega", r"7\,\mu\text{m}", r"7 \text{ (cm)}",
])
def test_units_with_exponents_and_commands(cand):
    assert verdict("7", cand) is Status.CORRECT
    assert verdict("8", cand) is Status.INCORRECT


def test_percent_then_words():
    assert verdict("70", r"70\%\text{ chance}") is Status.CORRECT
    assert verdict("0.7", r"70\%\text{ chance}") is Status.CORRECT


@pytest.mark.parametrize("gold,cand,ok", [
    ("1,2,2", "1,2", False), ("1,2,3", "1,2,3,3", False), ("2", "2,2", False),
    ("1,2,2", "1,1,2", False), ("1,2,2", "2, 1, 2", True), ("1,2,3", "3,2,1", True),
])
def test_lists_are_multisets(gold, cand, ok):
    assert both(gold, cand) is (Status.CORRECT if ok else Status.INCORRECT)


@pytest.mark.parametrize("gold,k,cand,ok", [
    # float_round applies to the mantissa at the gold's own power of ten
    (r"1.6\times10^{-19}", 2, r"2\times10^{-19}", False),
    (r"1.6\times10^{-19}", 2, r"1.604\times10^{-19}", True),
    (r"6.02\times10^{23}", 2, r"6.0221\times10^{23}", True),
    (r"6.02\times10^{23}", 2, r"6.03\times10^{23}", False),
    ("6.02e23", 2, "6.0249e23", True),
    # repeating decimals
    ("0.33", 2, r"0.\overline{3}", True), (r"\frac{1}{3}", 0, r"0.\overline{3}", True),
    ("2.67", 2, r"2.\overline{6}", True), (r"\frac{13}{6}", 0, r"2.1\overline{6}", True),
    ("0.34", 2, r"0.\overline{3}", False),
    # hedges, spaces as thousands separators, full-width minus
    ("3.14", 2, "approximately 3.14", True), ("3.14", 2, "about 3.14", True),
    ("7", 0, r"\text{approximately } 7", True), ("3.14", 2, r"x \approx 3.14", True),
    ("12000", 0, "12 000", True), ("12000", 0, "12\u2009000", True),
    ("-1.5", 0, "\uff0d1.5", True),
    # an approximation written as a fraction shows every place: it must equal the gold
    (r"\frac{64}{15}", 0, r"\frac{64}{15} \approx \frac{79}{15}", False),
    ("124", 0, r"124 \approx \frac{869}{7}", False),
    (r"\frac{64}{15}", 0, r"\frac{64}{15} \approx \frac{128}{30}", True),
    (r"\frac{64}{15}", 0, r"\frac{64}{15} \approx 4.27", True),
])
def test_notation_decisions(gold, k, cand, ok):
    assert both(gold, cand, k) is (Status.CORRECT if ok else Status.INCORRECT)


# --- number golds with several values (issue 14, section 4) ---------------------------


@pytest.mark.parametrize("gold,cand", [
    ("-1, 3", r"\{-1, 3\}"), ("-1, 3", r"\{3, -1\}"), ("-1, 3", r"\left\{-1, 3\right\}"),
    ("-1, 3", r"x \in \{-1, 3\}"), ("-1, 3", r"S = \{-1, 3\}"),
    ("-1, 3", r"x = -1 \text{ or } x = 3"), ("-1, 3", r"x=-1 \text{ and } x = 3"),
    ("-1, 3", r"-1 \text{ and } 3"), ("-1, 3", "-1 or 3"), ("-1, 3", "3 and -1"),
    ("-1, 3", "x = -1; x = 3"), ("-1, 3", r"x_1 = -1,\ x_2 = 3"), ("-1, 3", r"-1 \lor 3"),
    ("-3, 3", r"\pm 3"), ("-3, 3", r"x = \pm 3"), ("-3, 3", "\u00b13"), ("-3, 3", r"\mp 3"),
    ("-3, 3", r"\pm 3 \text{ cm}"), ("-1, 1, -2, 2", r"\pm 1, \pm 2"),
    (r"\pm 3", "-3, 3"), (r"\{-1, 3\}", "3, -1"), ("3", r"\{3\}"),
    (r"1-\sqrt{2}, 1+\sqrt{2}", r"1 \pm \sqrt{2}"),
    (r"\frac{1-\sqrt{5}}{2}, \frac{1+\sqrt{5}}{2}", r"\frac{1 \pm \sqrt{5}}{2}"),
    ("12000, 5", r"12,000 \text{ and } 5"),
])
def test_several_values_as_a_set_with_or_and_or_plus_minus_are_correct(gold, cand):
    assert both(gold, cand) is Status.CORRECT


@pytest.mark.parametrize("gold,cand,why", [
    ("-1, 3", r"\{3\}", "1 value where the gold has 2"),            # a value missing
    ("-1, 3", r"\{-1, 3, 5\}", "3 values where the gold has 2"),    # an extra value
    ("-1, 3", "-1 or 3 or 5", "3 values"),
    ("-1, 3", r"\{-1, 3, 3\}", "3 values"),                         # a repeat is an extra value
    ("1, 2, 2", r"\{1, 2\}", "2 values where the gold has 3"),      # the gold's multiset
    ("3", r"\pm 3", "2 values where the gold has 1"),               # +-3 is not 3
    ("3", "3 or 4", "2 values"),                                      # a hedge is not a value
    ("-3, 3, 5", r"\pm 3", "2 values where the gold has 3"),
    ("-3, 3", r"\pm 3 \text{ or } 5", "3 values"),
    ("0", r"\pm 0", "2 values"),
])
def test_missing_or_extra_values_stay_incorrect_and_say_why(gold, cand, why):
    assert both(gold, cand) is Status.INCORRECT
    g = parse_gold(gold, N, 0)
    for fast in (True, False):
        assert why in grade_slow(g, cand, fast=fast).detail


@pytest.mark.parametrize("gold,cand", [
    ("-2, 3", r"\pm 3"), ("-2, 2", r"\pm 3"), ("-1, 3", r"\{-1, 4\}"),
    ("-1, 3", r"x = 1 \text{ or } x = 3"), ("2, 4", r"3 \pm 2"), ("-1, 3", r"\pm 1 \pm 3"),
])
def test_wrong_values_and_plus_minus_on_an_asymmetric_gold_are_incorrect(gold, cand):
    assert both(gold, cand) is Status.INCORRECT


def test_plus_minus_rounds_each_value_with_float_round():
    assert both("-1.41, 1.41", r"\pm\sqrt{2}", k=2) is Status.CORRECT
    assert both("-1.41, 1.42", r"\pm\sqrt{2}", k=2) is Status.INCORRECT


def test_several_values_do_not_change_intervals():
    # "or" unites and "and" intersects for an interval gold, as before.
    assert both("[2,5)", r"x\ge 2 \text{ and } x<5", t=I) is Status.CORRECT
    assert both(r"\{-1,3\}", r"\{3,-1\}", t=I) is Status.CORRECT


def test_read_values():
    def items(text):
        return [[p.exact for p in v.pieces] for v in reader.read_values(text)]

    assert items(r"\{-1, 3\}") == [[-1], [3]]
    assert items(r"x = -1 \text{ or } x = 3") == [[-1], [3]]
    assert items(r"\pm 3") == [[-3], [3]]
    assert items("12,000") == [[12000]]                       # thousands, not a list
    assert items("7, 21, and 40") == [[7], [21], [40]]
    assert len(reader.read_values("100,200,300", expect=3)) == 3   # the gold's count decides
    assert len(reader.read_values("100,200,300", expect=1)) == 1
    for text in (r"\pm 1 \pm 2", r"\frac{1 or 2}{3}", "between 3 and 5"):
        with pytest.raises(Unreadable):
            reader.read_values(text)


def _random_value_lists(seed: int, n: int):
    """(gold, candidate, correct?) for number golds of one to three values: the candidate's
    values are the gold's, or with one missing, one extra, one changed or repeated, written
    as a list, a set, with "or"/"and", as x = ..., or with a plus-minus sign."""
    import random

    rng = random.Random(seed)

    def show(q: Fraction) -> str:
        if q.denominator == 1:
            return str(q.numerator)
        return rng.choice([rf"\frac{{{q.numerator}}}{{{q.denominator}}}", f"{q.numerator}/{q.denominator}"])

    for _ in range(n):
        a = Fraction(rng.randint(1, 40), rng.choice([1, 1, 2, 4]))
        gold_vals = rng.choice([[a], [-a, a], [-a, a], [a, a + 3], [-a, a, a + 1]])
        vals = list(gold_vals)
        change = rng.choice(["same", "same", "same", "missing", "extra", "changed", "repeat"])
        if change == "missing" and len(vals) > 1:
            vals.pop(rng.randrange(len(vals)))
        elif change == "extra":
            vals.append(a + 7)
        elif change == "changed":
            vals[rng.randrange(len(vals))] += 1
        elif change == "repeat":
            vals.append(vals[0])
        rng.shuffle(vals)
        ok = sorted(vals) == sorted(gold_vals)
        gold = ", ".join(show(v) for v in gold_vals)
        form = rng.choice(["list", "set", "or", "and", "assign", "pm"])
        if form == "pm" and len(vals) == 2 and vals[0] == -vals[1] and vals[0] != 0:
            cand = rf"\pm {show(abs(vals[0]))}"
            if rng.random() < 0.5:
                cand = "x = " + cand
        elif form == "set":
            cand = r"\{" + ", ".join(show(v) for v in vals) + r"\}"
        elif form in ("or", "and"):
            cand = rf" \text{{ {form} }} ".join(show(v) for v in vals)
        elif form == "assign":
            cand = r" \text{ or } ".join(f"x = {show(v)}" for v in vals)
        else:
            cand = ", ".join(show(v) for v in vals)
        yield gold, cand, ok


@pytest.mark.parametrize("seed", range(3))
def test_fast_path_agrees_with_math_verify_on_random_value_lists(seed):
    # Both paths, and the independently computed answer: the same multiset of values.
    for gold, cand, ok in _random_value_lists(seed, 40):
        g = parse_gold(gold, N, 0)
        quick = grade_fast(g, cand)
        assert quick is not None, (gold, cand)
        slow = grade_slow(g, cand, fast=False)
        assert quick.status is slow.status, (gold, cand, quick, slow)
        assert quick.status is (Status.CORRECT if ok else Status.INCORRECT), (gold, cand)


def test_and_intersects_on_the_math_verify_path_too():
    # Bounds the fast path does not read (sqrt 2) go to math-verify, which alone would read
    # "and" like "or": the slow path intersects as the fast path does.
    gold = r"[\sqrt{2}, 5)"
    assert both(gold, r"x\ge \sqrt{2} \text{ and } x<5", t=I) is Status.CORRECT
    assert both(gold, r"x\ge \sqrt{2} \land x<5", t=I) is Status.CORRECT
    assert both(gold, r"x\ge \sqrt{2} \text{ or } x<5", t=I) is Status.INCORRECT
    assert both(gold, r"x> \sqrt{2} \text{ and } x<5", t=I) is Status.INCORRECT
    assert both(r"x\ge \sqrt{2} \text{ and } x<5", r"[\sqrt{2}, 5)", t=I) is Status.CORRECT


@pytest.mark.parametrize("seed", range(2))
def test_fast_path_agrees_with_math_verify_on_random_inequalities(seed):
    # Unions of bounded spans written as inequalities joined by "and" and "or".
    import random

    rng = random.Random(1000 + seed)

    def span_as_words(a, b, lo_closed, hi_closed):
        lo = rf"x \ge {a}" if lo_closed else f"x > {a}"
        hi = rf"x \le {b}" if hi_closed else f"x < {b}"
        return rf"{lo} \text{{ and }} {hi}" if rng.random() < 0.5 else rf"{hi} \text{{ and }} {lo}"

    for _ in range(20):
        spans = []
        for _ in range(rng.randint(1, 2)):
            a = rng.randint(-6, 6)
            spans.append((a, a + rng.randint(0, 4), rng.random() < 0.5, rng.random() < 0.5))
        gold = r"\cup".join(("[" if lc else "(") + f"{a},{b}" + ("]" if hc else ")")
                            for a, b, lc, hc in spans if a < b or (lc and hc)) or r"\emptyset"
        if rng.random() < 0.5:  # the candidate: the same spans, or one end moved
            a, b, lc, hc = spans[0]
            spans[0] = (a, b, not lc, hc)
        cand = r" \text{ or } ".join(span_as_words(*s) for s in spans)
        g = parse_gold(gold, I, 0)
        quick = grade_fast(g, cand)
        assert quick is not None, cand
        assert quick.status is grade_slow(g, cand, fast=False).status, (gold, cand)
