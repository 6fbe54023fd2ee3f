"""A problem's gold answer, read once into its shape (reader.py), and its sympy form (built
once per process) for math-verify's path. The dataset layer parses every gold when it loads
(a gold that does not parse is a data error naming the row); the grader compares with it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from typing import Any

from ..schema import AnswerType
from . import exact, reader, words
from .exact import Span
from .reader import Clock, Piece, Shape, Unreadable, mv_value

# math-verify warns once that its timeout is off; the grader's pool enforces time, so that is
# intended.
logging.getLogger("math_verify").setLevel(logging.ERROR)


@dataclass(frozen=True)
class GoldAnswer:
    """A problem's gold answer, parsed once: one piece per value of a number gold (a list
    gold's are a multiset), a `clock`, a `ratio`, or an interval gold's `spans` when its
    endpoints are plain (else math-verify reads its `interval` text)."""

    text: str
    answer_type: AnswerType
    float_round: int = 0
    shape: Shape = Shape.SCALAR
    values: tuple[Piece, ...] | None = None
    spans: tuple[Span, ...] | None = None
    clock: Clock | None = None
    ratio: tuple | None = None
    interval: str | None = None
    exponent: int = 0  # a gold in scientific notation: float_round applies to its mantissa
    labels: frozenset[str] = frozenset()  # the question's words an answer may carry
    subunit: Any = None   # the money subunit the question counts in (`How many cents?`)
    # the question asks for a percentage: an answer's percent sign may always be its
    # written number (else only where the gold is 1 or more: exact.percent_match)
    percent_written: bool | None = False

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.text, self.answer_type.value, self.float_round)

    @property
    def exact(self) -> bool:
        """Every value is a plain number: answers that are plain too need no math-verify."""
        if self.values is not None:
            return all(v.exact is not None for v in self.values)
        return self.spans is not None or self.clock is not None or self.ratio is not None


def parse_gold(answer: str, answer_type: AnswerType, float_round: int = 0,
               question: str | None = None) -> GoldAnswer:
    """Parse a gold into its shape; `ValueError(reason)` when it does not parse. The
    question, when given, lends its words as labels an answer may carry (`12 handshakes`)."""
    answer_type = AnswerType(answer_type)
    if not isinstance(answer, str) or not answer.strip():
        raise ValueError("the gold answer is empty")
    if not isinstance(float_round, int) or isinstance(float_round, bool) or float_round < 0:
        raise ValueError(f"float_round must be a non-negative integer, got {float_round!r}")
    if not answer_type.is_rule_graded:
        return GoldAnswer(answer, answer_type, float_round)
    try:
        gold = _read_gold(answer, answer_type, float_round)
        if question and answer_type is AnswerType.NUMBER:
            labels = words.question_labels(question)
            gold = replace(gold, labels=labels, subunit=words.counted_subunit(labels),
                           percent_written=_percent_reading(question))
    except Unreadable as exc:
        kind = "an interval" if answer_type is AnswerType.INTERVAL else "a number"
        raise ValueError(f"the gold {answer!r} is not {kind} answer: {exc}") from None
    if not gold.exact:
        try:
            sympy_gold(gold)  # raises ValueError when math-verify cannot read it either
        except (TypeError, OverflowError, RecursionError) as exc:
            # sympy's own limits: a 5,000-digit decimal (int() refuses it inside Rational)
            raise ValueError(f"math-verify cannot read the gold ({type(exc).__name__})") from None
    return gold


def _read_gold(answer: str, answer_type: AnswerType, k: int) -> GoldAnswer:
    if answer_type is AnswerType.INTERVAL:
        text = exact.interval_text(answer)
        spans = exact.plain_intervals(answer)
        return GoldAnswer(answer, answer_type, k, Shape.INTERVAL, spans=spans, interval=text)
    shape = reader.gold_shape(answer)
    if shape is Shape.CLOCK:
        return GoldAnswer(answer, answer_type, k, shape, clock=reader.read_clock(answer))
    if shape is Shape.RATIO:
        return GoldAnswer(answer, answer_type, k, shape, ratio=reader.read_ratio(answer))
    values = reader.read_values(answer)
    pieces = []
    for value in values:
        firm = [p for p in value.pieces if not p.approx] or list(value.pieces)
        if len(firm) != 1:
            raise Unreadable("a gold value must be stated once")
        pieces.append(firm[0])
    shape = Shape.LIST if len(pieces) > 1 else Shape.SCALAR
    return GoldAnswer(answer, answer_type, k, shape, values=tuple(pieces),
                      exponent=reader.sci_exponent(answer) if len(pieces) == 1 else 0)


# A question that asks for a percentage, or for a count or an amount in other terms.
_ASKS_PERCENT = re.compile(
    r"\b(?:what|which|how\s+many)\s+(?:per\s*cent(?:age)?|%)|\b(?:as|in)\s+(?:a\s+)?"
    r"(?:per\s*cent(?:age)?|%)|\bpercentage\b|\bpercent\s+(?:of|is|was|change|increase|"
    r"decrease|chance|probability)|\bper\s*cent\b\s*\?", re.IGNORECASE)
_NOT_PERCENT = re.compile(r"\b(?:not|rather\s+than|instead\s+of)\s+(?:as\s+)?(?:a\s+)?"
                          r"(?:per\s*cent(?:age)?|%)", re.IGNORECASE)
_ASKS_COUNT = re.compile(r"\bhow\s+(?:many|much|long|far|old|often)\b|\bnumber\s+of\b|"
                         r"\bhow\s+many\s+times\b", re.IGNORECASE)


def _percent_reading(question: str) -> bool | None:
    """Whether an answer's percent sign may be its written number (exact.percent_match):
    True when the question asks for a percentage, None when it asks for a count or an
    amount instead, False when it says neither (then only for a gold of 1 or more)."""
    if _ASKS_PERCENT.search(question) and not _NOT_PERCENT.search(question):
        return True
    if _ASKS_COUNT.search(question) or _NOT_PERCENT.search(question):
        return None
    return False


_GOLD_CACHE: dict[tuple, Any] = {}
_GOLD_CACHE_MAX = 4096


def sympy_gold(gold: GoldAnswer):
    """The gold as a sympy object (a number, a Tuple of numbers for a list, a Set for an
    interval), built once per process."""
    if (hit := _GOLD_CACHE.get(gold.key)) is not None:
        return hit
    from . import symbolic as sets

    if len(_GOLD_CACHE) >= _GOLD_CACHE_MAX:
        _GOLD_CACHE.clear()
    if gold.answer_type is AnswerType.INTERVAL:
        if gold.spans is not None:
            value = sets.from_spans(gold.spans)
        else:
            value = joined_relations(gold.interval or gold.text)
            if value is None:
                expr = mv_value(gold.interval or gold.text)
                value = sets.to_set(expr) if expr is not None else None
            if value is None:
                raise ValueError(f"math-verify cannot read the gold {gold.text!r} as an "
                                 "interval or set: it is not an interval")
    elif gold.values is not None:
        items = [sets.piece_value(p) for p in gold.values]
        if any(v is None for v in items):
            raise ValueError(f"math-verify cannot read the gold {gold.text!r} as a number")
        if any(getattr(v, "free_symbols", None) for v in items):
            raise ValueError(f"the gold {gold.text!r} is not a number")
        from sympy import Tuple

        value = items[0] if len(items) == 1 else Tuple(*items)
        if _not_finite(value):
            # `inf`, `\infty`: the rule grader finds no answer equal to it, ever
            raise ValueError(f"the gold {gold.text!r} is not a finite number")
    else:
        raise ValueError(f"the gold {gold.text!r} has no sympy form")
    _GOLD_CACHE[gold.key] = value
    return value


def _not_finite(value) -> bool:
    from sympy import S

    has = getattr(value, "has", None)
    return bool(has is not None and has(S.Infinity, S.NegativeInfinity, S.ComplexInfinity,
                                        S.NaN))


_OR = re.compile(r" or |\\lor(?![A-Za-z])|\\vee(?![A-Za-z])|[,;]")
_AND = re.compile(r" and |\\land(?![A-Za-z])|\\wedge(?![A-Za-z])")


def joined_relations(text: str):
    """An interval reading `x \\ge \\sqrt{2} \\text{ and } x < 5` as its set: "and" intersects,
    "or" unites (math-verify alone reads "and" like "or"). None without a top-level "and"
    or when a part is not a relation or set."""
    from . import symbolic as sets

    if not _AND.search(text):
        return None
    union = None
    for disjunct in reader.split_top_level(text, _OR):
        both = None
        for part in reader.split_top_level(disjunct, _AND):
            expr = mv_value(part)
            one = sets.to_set(expr) if expr is not None else None
            if one is None:
                return None
            both = one if both is None else both.intersect(one)
        union = both if union is None else union.union(both)
    return union
