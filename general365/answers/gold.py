"""A problem's gold answer, read once: its exact form where it is plain, its math-verify
(sympy) form otherwise.

Below both the dataset layer (which parses every number/interval gold when it loads, so a
gold that does not parse is a data error naming the row) and the grader (which compares
answers with it). The sympy form is built once per process and cached by the gold.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from ..schema import AnswerType
from . import exact
from .exact import PlainNumber, Span
from .notation import split_top_level

# math-verify warns once that its timeout is off; the grader's pool enforces time, so that is
# intended.
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
    try:
        sympy_gold(gold)  # raises ValueError when math-verify cannot read it either
    except (TypeError, OverflowError, RecursionError) as exc:
        # sympy's own limits: a 5,000-digit decimal (int() refuses it inside Rational)
        raise ValueError(f"math-verify cannot read the gold ({type(exc).__name__})") from None
    return gold


_GOLD_CACHE: dict[tuple, Any] = {}
_GOLD_CACHE_MAX = 4096


def mv_parse(latex: str) -> list:
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
        joined = joined_relations(gold.text)  # "and" intersects in a gold too
        if joined is not None:
            _GOLD_CACHE[ck] = (joined, [joined])
            return joined, [joined]
    parsed = mv_parse(exact.normalize(gold.text))
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
        if _not_finite(value):
            # `inf`, `\infty`: the rule grader finds no answer equal to it, ever
            raise ValueError(f"the gold {gold.text!r} is not a finite number")
    _GOLD_CACHE[ck] = (value, parsed)
    return value, parsed


def _not_finite(value) -> bool:
    from sympy import S

    has = getattr(value, "has", None)
    return bool(has is not None and has(S.Infinity, S.NegativeInfinity, S.ComplexInfinity,
                                        S.NaN))


_OR = re.compile(r" or |\\lor(?![A-Za-z])|\\vee(?![A-Za-z])|[,;]")
_AND = re.compile(r" and |\\land(?![A-Za-z])|\\wedge(?![A-Za-z])")


def joined_relations(candidate: str):
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
            expr = next((p for p in mv_parse(part) if not isinstance(p, str)), None)
            one = sets.to_set(expr) if expr is not None else None
            if one is None:
                return None
            both = one if both is None else both.intersect(one)
        union = both if union is None else union.union(both)
    return union
