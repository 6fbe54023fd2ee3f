"""The rule grader for `number` and `interval` answers (../../docs GRADING.md steps 3-4).

Two paths with the same verdicts:

- the fast path (`exact.py`): plain numbers and interval unions compared as `Fraction`s,
  run in the parent process, microseconds per answer;
- the math-verify path: everything else is parsed by math-verify (`parse`), then compared
  by this module where the contract fixes the rule (the problem's `float_round`, percent
  signs, sets of intervals) and by math-verify's `verify(gold, pred)` (gold first) for the
  rest. This path runs in a worker of `pool.py` that is killed past its time limit, so
  math-verify's own SIGALRM timeouts are switched off (they break outside the main thread).

Gold answers are parsed once per problem: `parse_gold` in the parent (which also validates
the dataset), and `sympy_gold` once per worker process (a cache keyed by the gold).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..schema import AnswerType, Status
from . import exact
from .exact import PlainNumber, Span
from .notation import split_top_level

# math-verify warns once that its timeout is off; the pool enforces time, so that is intended.
logging.getLogger("math_verify").setLevel(logging.ERROR)


@dataclass(frozen=True)
class GoldAnswer:
    """A problem's gold answer, parsed once. `number`/`spans` are set when the gold takes
    the fast path; the math-verify form is built on demand in the worker."""

    text: str
    answer_type: AnswerType
    float_round: int = 0
    number: PlainNumber | None = None
    spans: tuple[Span, ...] | None = None
    numbers: tuple[PlainNumber, ...] | None = None  # a list gold (`1,2,2`): a multiset
    exponent: int = 0  # a gold in scientific notation: float_round applies to its mantissa

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.text, self.answer_type.value, self.float_round)


@dataclass(frozen=True)
class RuleResult:
    status: Status
    detail: str | None = None


def parse_gold(answer: str, answer_type: AnswerType, float_round: int = 0) -> GoldAnswer:
    """Parse a number or interval gold; `ValueError(reason)` when it does not parse."""
    answer_type = AnswerType(answer_type)
    if not isinstance(answer, str) or not answer.strip():
        raise ValueError("the gold answer is empty")
    if not isinstance(float_round, int) or isinstance(float_round, bool) or float_round < 0:
        raise ValueError(f"float_round must be a non-negative integer, got {float_round!r}")
    if not answer_type.is_rule_graded:
        return GoldAnswer(answer, answer_type, float_round)
    if answer_type is AnswerType.NUMBER:
        exponent = exact.sci_exponent(answer) or 0
        values = exact.plain_values(answer)
        if values is not None and len(values) == 1:
            return GoldAnswer(answer, answer_type, float_round, number=values[0], exponent=exponent)
        if values is not None:
            return GoldAnswer(answer, answer_type, float_round, numbers=values)
    else:
        spans = exact.plain_intervals(answer)
        if spans is not None:
            return GoldAnswer(answer, answer_type, float_round, spans=spans)
    gold = GoldAnswer(answer, answer_type, float_round)
    sympy_gold(gold)  # raises ValueError when math-verify cannot read it either
    return gold


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

_GOLD_CACHE: dict[tuple, Any] = {}
_GOLD_CACHE_MAX = 4096


def _mv_parse(latex: str) -> list:
    from math_verify import parse

    # A bare `[2,5)` or `\{1,2\}` parses to nothing and a bare `1,2,3` to 1.2: math-verify
    # reads them only inside math delimiters.
    return parse(f"${latex}$", parsing_timeout=None)


def sympy_gold(gold: GoldAnswer):
    """The gold as a sympy object, parsed once per process."""
    built = gold.number is not None or gold.spans is not None or gold.numbers is not None
    ck = (*gold.key, built)  # parsed vs built
    hit = _GOLD_CACHE.get(ck)
    if hit is not None:
        return hit
    from . import symbolic as sets

    if len(_GOLD_CACHE) >= _GOLD_CACHE_MAX:
        _GOLD_CACHE.clear()
    if built:
        # Already read exactly by the fast path: build the sympy form, no LaTeX parse.
        if gold.number is not None:
            value = sets.from_number(gold.number)
        elif gold.numbers is not None:
            value = sets.from_numbers(gold.numbers)
        else:
            value = sets.from_spans(gold.spans)
        _GOLD_CACHE[ck] = (value, [value])
        return value, [value]
    if gold.answer_type is AnswerType.INTERVAL:
        joined = _joined_relations(gold.text)  # "and" intersects in a gold too
        if joined is not None:
            _GOLD_CACHE[ck] = (joined, [joined])
            return joined, [joined]
    parsed = _mv_parse(exact.normalize(gold.text))
    expr = next((p for p in parsed if not isinstance(p, str)), None)
    if expr is None:
        raise ValueError(f"math-verify cannot read the gold {gold.text!r} as {gold.answer_type}")
    if gold.answer_type is AnswerType.INTERVAL:
        value = sets.to_set(expr)
        if value is None:
            raise ValueError(f"the gold {gold.text!r} is not an interval or set")
    else:
        value = sets.unwrap_value(expr)
        if value.free_symbols:
            raise ValueError(f"the gold {gold.text!r} is not a number")
    _GOLD_CACHE[ck] = (value, parsed)
    return value, parsed


def grade_slow(gold: GoldAnswer, candidate: str, *, fast: bool = True) -> RuleResult:
    """The verdict through math-verify (call in a worker: it may take long). `fast=False`
    skips the fast path (the tests use it to check that both paths agree)."""
    if fast:
        quick = grade_fast(gold, candidate)
        if quick is not None:
            return quick
    from math_verify import verify

    from . import symbolic as sets

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
        joined = _joined_relations(candidate)
        if joined is not None:
            ok = sets.sets_equal(gold_value, joined, k)
            return RuleResult(Status.CORRECT if ok else Status.INCORRECT)
    parsed = _mv_parse(exact.normalize(candidate))
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


_OR = re.compile(r" or |\\lor(?![A-Za-z])|\\vee(?![A-Za-z])|[,;]")
_AND = re.compile(r" and |\\land(?![A-Za-z])|\\wedge(?![A-Za-z])")


def _joined_relations(candidate: str):
    """`x \\ge \\sqrt{2} \\text{ and } x < 5` as the set it describes: "and" intersects,
    "or" unites, as on the fast path (math-verify alone reads "and" like "or"). None when
    the answer has no top-level "and" or a part is not a relation or set."""
    from . import symbolic as sets

    s = exact.normalize(candidate)
    if not _AND.search(s):
        return None
    union = None
    for disjunct in split_top_level(s, _OR):
        both = None
        for part in split_top_level(disjunct, _AND):
            expr = next((p for p in _mv_parse(part) if not isinstance(p, str)), None)
            one = sets.to_set(expr) if expr is not None else None
            if one is None:
                return None
            both = one if both is None else both.intersect(one)
        union = both if union is None else union.union(both)
    return union


def _list_verdict(gold: GoldAnswer, gold_value, candidate: str) -> RuleResult | None:
    """Lists as multisets on the math-verify path too: math-verify reads `1,2,2` as the set
    {1, 2}, so each item is parsed on its own. None when neither side is a list."""
    from sympy import Tuple

    from . import symbolic as sets

    g_items, p_items = exact.value_items(gold.text), exact.value_items(candidate)
    if len(g_items) < 2 and len(p_items) < 2:
        return None
    if len(g_items) != len(p_items):
        return RuleResult(Status.INCORRECT, count_mismatch(len(g_items), len(p_items)))
    values = []
    for items in (g_items, p_items):
        row = []
        for item in items:
            expr = next((p for p in _mv_parse(item) if not isinstance(p, str)), None)
            if expr is None:
                return RuleResult(Status.INCORRECT, "math-verify could not read the answer")
            row.append(sets.unwrap_value(expr))
        values.append(Tuple(*row))
    ok = sets.numbers_equal(values[0], values[1], gold.float_round)
    if ok is None:
        return None
    return RuleResult(Status.CORRECT if ok else Status.INCORRECT)
