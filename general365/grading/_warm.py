"""Imported once in the pool's fork server: builds math-verify's LaTeX parser (and what
number answers need of sympy) before the forks, so every worker starts warm. Interval
machinery, as costly again, is built on request (`warm_intervals`)."""

from __future__ import annotations

from .rule import grade_slow, parse_gold
from ..schema import AnswerType

# Each form's first use costs sympy tens of milliseconds (a product of powers 90 ms, pi
# 100 ms), then about 1 ms: paid here once, before the forks, instead of by every
# worker on its first such answer (and again by every replacement).
_NUMBER_FORMS = (("2", "\\sqrt{4}"), ("24", "2^{3}\\cdot 3"), ("7", "\\frac{14}{2}"),
                 ("1500", "1.5\\times 10^{3}"), ("0.5", "50\\%"), ("-3.14", "-\\pi"),
                 ("0.71", "\\frac{\\sqrt{2}}{2}"), ("8", "\\left(2\\right)^3"),
                 ("120", "5!"), ("10", "\\binom{5}{2}"))
for _gold, _answer in _NUMBER_FORMS:
    grade_slow(parse_gold(_gold, AnswerType.NUMBER, 2 if "." in _gold else 0), _answer,
               fast=False)


def warm_intervals() -> None:
    # (further interval forms were tried: their cost is each input's own inequality
    # solving, not a first use, so warming them saved nothing)
    grade_slow(parse_gold("[2,5)", AnswerType.INTERVAL, 0), "x \\ge \\sqrt{4} \\text{ and } x<5",
               fast=False)


WARMERS = {"interval": warm_intervals}
