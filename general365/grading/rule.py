"""The rule grader for `number` and `interval` answers (../../docs GRADING.md steps 3-4).

Two paths with the same verdicts:

- the fast path (`exact.py`): plain numbers and interval unions compared as `Fraction`s,
  run in the parent process, microseconds per answer;
- the math-verify path: everything else is parsed by math-verify (`parse`), then compared
  by this module where the contract fixes the rule (the problem's `float_round`, percent
  signs, sets of intervals) and by math-verify's `verify(gold, pred)` (gold first) for the
  rest. This path runs in a worker of `pool.py` that is killed past its time limit, so
  math-verify's own SIGALRM timeouts are switched off (they break outside the main thread).

Gold answers are read by general365.answers.gold, once per problem: `parse_gold` in the
parent (the dataset layer calls it too, to validate), and `sympy_gold` once per worker
process (a cache keyed by the gold).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..answers import exact
from ..answers.exact import Span
from ..answers.gold import (GoldAnswer, joined_relations, mv_parse, parse_gold,  # noqa: F401
                            sympy_gold)  # (parse_gold: the grader's entry for callers)
from ..schema import AnswerType, Status


@dataclass(frozen=True)
class RuleResult:
    status: Status
    detail: str | None = None
    # What a task's own `grade_in_worker` hands back to its caller besides a verdict
    # (CFE-Bench's reading of a response: tasks/cfe/reading.py); picklable.
    data: Any = field(default=None, compare=False)


# --- the fast path (parent process) -------------------------------------------------


def grade_fast(gold: GoldAnswer, candidate: str) -> RuleResult | None:
    """The verdict when both sides are plain, else None (then the worker decides)."""
    if gold.number is not None or gold.numbers is not None:
        qualified = qualified_result(gold, candidate)
        if qualified is not None:
            return qualified
        preds = exact.plain_values(candidate)
        if preds is None:
            return None
        golds = (gold.number,) if gold.number is not None else gold.numbers
        if len(golds) != len(preds):
            return RuleResult(Status.INCORRECT, count_mismatch(len(golds), len(preds)))
        ok = _multisets_agree(golds, preds, gold.float_round, gold.exponent)
        return RuleResult(Status.CORRECT if ok else Status.INCORRECT)
    if gold.spans is not None:
        pred_spans = exact.plain_intervals(candidate)
        if pred_spans is None:
            return None
        ok = _round_spans(gold.spans, gold.float_round) == _round_spans(pred_spans, gold.float_round)
        return RuleResult(Status.CORRECT if ok else Status.INCORRECT)
    return None


def qualified_result(gold: GoldAnswer, candidate: str) -> RuleResult | None:
    """`7 or more`, `at most 7`, `7 squared` state a bound or an operation, not the value:
    incorrect for a number gold, on both paths (math-verify would read the 7)."""
    if gold.answer_type is not AnswerType.NUMBER:
        return None
    words = exact.qualifier(candidate)
    if words is None:
        return None
    return RuleResult(Status.INCORRECT, f"{words!r} makes the answer a bound or an operation, not a value")


def count_mismatch(golds: int, preds: int) -> str:
    """The reason a list answer is wrong by its length alone (the same words on both paths)."""
    said = f"{preds} value" + ("s" if preds != 1 else "")
    return f"the answer gives {said} where the gold has {golds}"


def _multisets_agree(golds, preds, k: int, exponent: int) -> bool:
    """Lists compare as multisets (`1,2,2` is not `1,2`), any order, each element by the
    number rule. Greedy matching is exact: rounding both sides to k places is an equivalence."""
    if len(golds) != len(preds):
        return False
    rest = list(preds)
    for g in golds:
        for i, p in enumerate(rest):
            if _numbers_agree(g.value, g.percent, p.value, p.percent, k, exponent):
                del rest[i]
                break
        else:
            return False
    return True


def _numbers_agree(g: Fraction, g_pct: bool, p: Fraction, p_pct: bool, k: int,
                   exponent: int = 0) -> bool:
    # A percent sign on either side: the written number or its hundredth both count
    # (gold 25 vs 25%, gold 0.25 vs 25%, gold 25% vs 25): the same quantity, a careful
    # human grader accepts each.
    golds = [g, g / 100] if g_pct else [g]
    preds = [p, p / 100] if p_pct else [p]
    return any(exact.numbers_match(a, b, k, exponent) for a in golds for b in preds)


def _round_spans(spans: tuple[Span, ...], k: int) -> tuple[Span, ...]:
    if k <= 0:
        return spans
    r = exact.round_half_up
    return exact.canonical_spans(
        (None if s.lo is None else r(s.lo, k), s.lo_closed,
         None if s.hi is None else r(s.hi, k), s.hi_closed) for s in spans)


# --- the math-verify path (worker process) ------------------------------------------

def grade_slow(gold: GoldAnswer, candidate: str, *, fast: bool = True) -> RuleResult:
    """The verdict through math-verify (call in a worker: it may take long). `fast=False`
    skips the fast path (the tests use it to check that both paths agree)."""
    if fast:
        quick = grade_fast(gold, candidate)
        if quick is not None:
            return quick
    from math_verify import verify

    from ..answers import symbolic as sets

    qualified = qualified_result(gold, candidate)
    if qualified is not None:
        return qualified
    if not fast:
        gold = GoldAnswer(gold.text, gold.answer_type, gold.float_round, exponent=gold.exponent)
    gold_value, gold_parsed = sympy_gold(gold)
    k = gold.float_round
    if gold.answer_type is AnswerType.NUMBER:
        listed = _list_verdict(gold, gold_value, candidate)
        if listed is not None:
            return listed
    if gold.answer_type is AnswerType.INTERVAL:
        joined = joined_relations(candidate)
        if joined is not None:
            ok = sets.sets_equal(gold_value, joined, k)
            return RuleResult(Status.CORRECT if ok else Status.INCORRECT)
    parsed = mv_parse(exact.normalize(candidate))
    pred = next((p for p in parsed if not isinstance(p, str)), None)
    if pred is None:
        return RuleResult(Status.INCORRECT, "math-verify could not read the answer")
    if gold.answer_type is AnswerType.INTERVAL:
        pred_set = sets.to_set(pred)
        if pred_set is not None:
            ok = sets.sets_equal(gold_value, pred_set, k)
            return RuleResult(Status.CORRECT if ok else Status.INCORRECT)
    else:
        ok = sets.numbers_equal(gold_value, sets.unwrap_value(pred), k, gold.exponent)
        if ok is not None:
            return RuleResult(Status.CORRECT if ok else Status.INCORRECT)
    # Neither side reduced to a number or a set: math-verify's own comparison, exact
    # values (floats made rational so its 6-place float rounding does not apply).
    ok = verify([sets.exactify(g) for g in gold_parsed if not isinstance(g, str)],
                [sets.exactify(pred)], timeout_seconds=None)
    return RuleResult(Status.CORRECT if ok else Status.INCORRECT)


def _list_verdict(gold: GoldAnswer, gold_value, candidate: str) -> RuleResult | None:
    """Lists as multisets on the math-verify path too: math-verify reads `1,2,2` as the set
    {1, 2}, so each item is parsed on its own. None when neither side is a list."""
    from sympy import Tuple

    from ..answers import symbolic as sets

    g_items, p_items = exact.value_items(gold.text), exact.value_items(candidate)
    if len(g_items) < 2 and len(p_items) < 2:
        return None
    if len(g_items) != len(p_items):
        return RuleResult(Status.INCORRECT, count_mismatch(len(g_items), len(p_items)))
    values = []
    for items in (g_items, p_items):
        row = []
        for item in items:
            expr = next((p for p in mv_parse(item) if not isinstance(p, str)), None)
            if expr is None:
                return RuleResult(Status.INCORRECT, "math-verify could not read the answer")
            row.append(sets.unwrap_value(expr))
        values.append(Tuple(*row))
    ok = sets.numbers_equal(values[0], values[1], gold.float_round)
    if ok is None:
        return None
    return RuleResult(Status.CORRECT if ok else Status.INCORRECT)
