"""The rule grader for `number` and `interval` answers (docs/grading.md, steps 3-4). The
answer reader (answers/reader.py) reads the candidate for the gold's shape; plain values are
then compared exactly in the parent (`grade_fast`), the rest by math-verify in a pool worker
killed past its time limit (`grade_slow`). Both paths give the same verdicts."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..answers import exact, reader
from ..answers.exact import Span
from ..answers.gold import (GoldAnswer, joined_relations, mv_value, parse_gold,  # noqa: F401
                            sympy_gold)  # (parse_gold: the grader's entry for callers)
from ..answers.reader import Piece, Shape, Unreadable, Value
from ..schema import AnswerType, Status


@dataclass(frozen=True)
class RuleResult:
    status: Status
    detail: str | None = None
    # what a task's own `grade_in_worker` hands back besides a verdict (picklable)
    data: Any = field(default=None, compare=False)


_CORRECT = RuleResult(Status.CORRECT)
_INCORRECT = RuleResult(Status.INCORRECT)


def _verdict(ok: bool, detail: str | None = None) -> RuleResult:
    if ok:
        return _CORRECT
    return RuleResult(Status.INCORRECT, detail) if detail else _INCORRECT


def grade_fast(gold: GoldAnswer, candidate: str) -> RuleResult | None:
    """The verdict when the reader settles it, else None (then the worker decides)."""
    try:
        return _fast(gold, candidate)
    except Unreadable as exc:
        return RuleResult(Status.INCORRECT, str(exc))


def _fast(gold: GoldAnswer, candidate: str) -> RuleResult | None:
    if gold.shape is Shape.CLOCK:
        return _verdict(reader.clocks_agree(gold.clock, reader.read_clock(candidate)))
    if gold.shape is Shape.RATIO:
        return _verdict(reader.ratios_agree(gold.ratio, reader.read_ratio(candidate)))
    if gold.shape is Shape.INTERVAL:
        spans = exact.plain_intervals(candidate)
        if spans is None or gold.spans is None:
            return None
        k = gold.float_round
        return _verdict(_round_spans(gold.spans, k) == _round_spans(spans, k))
    values = _read_values(gold, candidate)
    if isinstance(values, RuleResult):
        return values
    if not gold.exact or not all(v.exact for v in values):
        return None
    def agree(g: Piece, p: Piece, k: int, exponent: int, cut: bool) -> bool:
        if cut and p.exact == exact.truncate(g.exact, k):
            return True
        return exact.percent_match(g.exact, g.percent, p.exact, p.percent, k, exponent,
                                   gold.percent_written)

    return _verdict(_multisets_agree(gold.values, values, gold.float_round, gold.exponent,
                                     agree))


def _read_values(gold: GoldAnswer, candidate: str) -> tuple[Value, ...] | RuleResult:
    """The candidate's values for a number gold, or the verdict when their count or their
    currency already decides."""
    values = reader.read_values(candidate, expect=len(gold.values), labels=gold.labels)
    values = _in_counted_subunits(gold, values)
    n = len(values)
    if n != len(gold.values):   # a list answer wrong by its length alone
        return RuleResult(Status.INCORRECT, f"the answer gives {n} value{'s' if n != 1 else ''} "
                                            f"where the gold has {len(gold.values)}")
    clash = _currency_clash(gold.values, values)
    return RuleResult(Status.INCORRECT, clash) if clash else values


def _in_counted_subunits(gold: GoldAnswer, values: tuple[Value, ...]) -> tuple[Value, ...]:
    """A question that counts cents: an amount in dollars is read in cents (`\\$25` is 2500)."""
    unit = gold.subunit
    if unit is None or any(g.currency for g in gold.values):
        return values
    return tuple(Value(tuple(replace(p, exact=p.exact / unit, currency=None)
                             if p.currency and p.exact is not None else p for p in v.pieces))
                 for v in values)


def _currency_clash(golds: tuple[Piece, ...], values: tuple[Value, ...]) -> str | None:
    want = {g.currency for g in golds} - {None}
    if want and any(p.percent for v in values for p in v.pieces):
        return "the gold is an amount of money; the answer is a percentage"
    for v in values:
        for p in v.pieces:
            if p.currency is not None and want and p.currency not in want:
                return f"the answer is in {p.currency}, the gold in {'/'.join(sorted(want))}"
    return None


def _checks(value: Value, k: int) -> list[tuple[Piece, int, bool]]:
    """(piece, places, truncated) for each piece of a value that must agree with the gold:
    at k places against a rounded gold; against an exact one, an approximation after an exact
    piece at the places it shows, a lone one exactly (but `0.333\\ldots` for 1/3)."""
    firm = [p for p in value.pieces if not p.approx]
    out = []
    for p in value.pieces:
        if not p.approx or k > 0:
            out.append((p, k, False))
            continue
        d = exact.decimals(p.text)
        if firm:   # a fraction shows every place: it agrees exactly (`4 \approx \frac{9}{2}`)
            out.append((p, 0 if d is None else d, p.truncated))
        elif p.truncated and d is not None and d >= 3:
            out.append((p, d, True))
        else:
            out.append((p, k, False))
    return out


def _multisets_agree(golds, values, k: int, exponent: int, agree) -> bool:
    """Lists compare as multisets, any order, every piece of a value agreeing (`_checks`).
    Greedy matching is exact: rounding both sides to k places is an equivalence."""
    rest = list(values)
    for g in golds:
        for i, v in enumerate(rest):
            if all(agree(g, p, places, exponent, cut) for p, places, cut in _checks(v, k)):
                del rest[i]
                break
        else:
            return False
    return True


def _round_spans(spans: tuple[Span, ...], k: int) -> tuple[Span, ...]:
    if k <= 0:
        return spans
    r = exact.round_half_up
    return exact.canonical_spans(
        (None if s.lo is None else r(s.lo, k), s.lo_closed,
         None if s.hi is None else r(s.hi, k), s.hi_closed) for s in spans)


def grade_slow(gold: GoldAnswer, candidate: str, *, fast: bool = True) -> RuleResult:
    """The verdict through math-verify (in a worker: it may take long). `fast=False` reads
    plain numbers through math-verify too (tests compare the paths; the warm-up)."""
    if fast:
        quick = grade_fast(gold, candidate)
        if quick is not None:
            return quick
    try:
        if gold.shape in (Shape.CLOCK, Shape.RATIO):
            return grade_fast(gold, candidate)
        if gold.shape is Shape.INTERVAL:
            return _slow_interval(gold, candidate)
        return _slow_values(gold, candidate, parse_plain=not fast)
    except Unreadable as exc:
        return RuleResult(Status.INCORRECT, str(exc))


def _slow_interval(gold: GoldAnswer, candidate: str) -> RuleResult:
    from ..answers import symbolic as sets

    gold_value = sympy_gold(gold)
    text = exact.interval_text(candidate)
    pred = joined_relations(text)
    if pred is None:
        expr = mv_value(text)
        pred = sets.to_set(expr) if expr is not None else None
    if pred is None:
        return RuleResult(Status.INCORRECT, "math-verify could not read the answer as an interval")
    return _verdict(sets.sets_equal(gold_value, pred, gold.float_round))


def _slow_values(gold: GoldAnswer, candidate: str, *, parse_plain: bool) -> RuleResult:
    from ..answers import symbolic as sets

    values = _read_values(gold, candidate)
    if isinstance(values, RuleResult):
        return values
    gold_value = sympy_gold(gold)
    gold_items = list(gold_value.args) if len(gold.values) > 1 else [gold_value]
    read: dict[int, object] = {}

    def sympy_of(p: Piece):
        key = id(p)
        if key not in read:
            read[key] = sets.piece_value(p, parse_plain=parse_plain)
        return read[key]

    undecided = []

    def agree(g_index_piece, p: Piece, k: int, exponent: int, cut: bool) -> bool:
        g_expr = gold_items[g_index_piece]
        pv = sympy_of(p)
        if pv is None:
            raise Unreadable("math-verify could not read the answer")
        if cut and sets.truncated_equal(g_expr, p, k):
            return True
        res = sets.numbers_equal(g_expr, pv, k, exponent, gold.percent_written)
        if res is None:
            undecided.append(1)
            return False
        return res

    ok = _multisets_agree(range(len(gold_items)), values, gold.float_round, gold.exponent, agree)
    if not ok and undecided:
        return RuleResult(Status.INCORRECT, "the answer is not a number the grader can compare")
    return _verdict(ok)

