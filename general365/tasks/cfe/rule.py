"""The rule path for one variable: a verdict now (numbers with units, quantity.py), a
formula task for the pool (symbolic.py), or "cannot decide" (the judge's case: an `other`
gold that is not a number with a unit). A formula gold that is a plain number is compared
as one.

A response's reading (`ReadTask`: its stated values, stated.py, and each variable's plan)
runs in a pool worker under the `--timeout` limit: the reading sees the whole response,
and a hostile one (thousands of nested `\\boxed{`) must end as `timeout` for its
variables, never hang the grade.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ...grading.rule import RuleResult
from ...schema import Status
from .data import Variable, VariableType
from .quantity import Quantity, compare, parse_quantity
from .stated import Stated, read_answers, strip_math, top_level_split
from .symbolic import FormulaTask

INTEGER_TOLERANCE = 1e-12
OTHER_NEEDS_JUDGE = "an 'other' answer that is not a number with a unit needs the judge"


@dataclass(frozen=True)
class Plan:
    """What the rule path does with one variable: `result` now, or `task` in the pool."""

    result: RuleResult | None = None
    task: FormulaTask | None = None
    candidate: str | None = None


@functools.lru_cache(maxsize=20_000)
def gold_quantity(value: str, vtype: VariableType) -> Quantity | None:
    """A gold value read once per worker (it recurs over runs and responses)."""
    q = parse_quantity(value)
    if q is not None and vtype is VariableType.FORMULA and q.unit.text:
        return None   # `3 n` in a formula is a product of symbols, not 3 of a unit
    return q


def plan(v: Variable, stated: Stated | None, tolerance: float) -> Plan:
    if stated is None or not stated.text.strip():
        return Plan(RuleResult(Status.NO_ANSWER, "no line `name = value` and no box for it"))
    text = stated.text
    gold = gold_quantity(v.value, v.type)
    if gold is None:
        if v.type is VariableType.OTHER:
            return Plan(RuleResult(Status.UNGRADED, OTHER_NEEDS_JUDGE))
        gold_latex = without_parameters(strip_math(v.value))
        answer_latex = without_parameters(strip_math(text))
        if _same_text(gold_latex, answer_latex):
            # The gold's own text: equal whatever the parser makes of it (no pool needed).
            return Plan(RuleResult(Status.CORRECT, "the gold's own text"))
        return Plan(task=FormulaTask(gold_latex, tolerance), candidate=answer_latex)
    answer = parse_quantity(text)
    if gold.out_of_range is not None:   # its `value` means nothing: compare() says why
        return Plan(RuleResult(Status.UNGRADED, compare(gold, gold, tolerance).detail))
    if answer is None:
        if v.type is VariableType.OTHER or gold.unit.text:
            return Plan(RuleResult(Status.UNGRADED, "the rule path cannot read the answer as "
                                                    "a number with a unit"))
        # `2\sqrt{3}`, `\frac{\pi}{4}`: an expression that evaluates to the gold number.
        g = gold.value   # exact, as LaTeX: `6.25e+16` would read as 6.25 e + 16
        exact = str(g.numerator) if g.denominator == 1 else \
            f"\\frac{{{g.numerator}}}{{{g.denominator}}}"
        # An integer gold (a count, an index) is exact here too, as for a plain number:
        # `1+0.009` is not 1 (only float noise is forgiven, `(\sqrt{2})^2` for 2).
        tol = INTEGER_TOLERANCE if gold.integer else tolerance
        return Plan(task=FormulaTask(exact, tol), candidate=strip_math(text))
    c = compare(gold, answer, tolerance)
    if c.verdict is None:
        return Plan(RuleResult(Status.UNGRADED, c.detail))
    return Plan(RuleResult(Status.CORRECT if c.verdict else Status.INCORRECT, c.detail))


_PARAMETER = re.compile(r"^(?:\\q?quad(?![A-Za-z])|\\[,;:!]|\s)*\\?[A-Za-z]+"
                        r"(?:_\{?[A-Za-z0-9]+\}?)?\s*=[^=]")


def without_parameters(latex: str) -> str:
    """A formula followed by the values of its parameters (`G(z) = ..., \\quad \\Omega =
    10^{-1}, r = 0.98`, as one release gold is written) is the formula: the values are
    stated beside it, not part of it. Only where each name set is a symbol of the formula
    (`x = 1, y = 2` is two answers, not a formula and a parameter)."""
    parts = top_level_split(latex, ",")
    if len(parts) < 2 or not parts[0]:
        return latex
    for p in parts[1:]:
        m = _PARAMETER.match(p)
        lhs = re.sub(r"\\q?quad(?![A-Za-z])|\\[,;:!]", " ", p.split("=", 1)[0]).split()
        if m is None or not lhs or lhs[-1] not in parts[0]:
            return latex
    return parts[0]


def _same_text(a: str, b: str) -> bool:
    def squeeze(s: str) -> str:
        s = re.sub(r"\\[,;:! ]|\\q?quad(?![A-Za-z])|\\(?:left|right)(?![A-Za-z])", "", s)
        return re.sub(r"\\[dt]frac", r"\\frac", "".join(s.split()))
    return squeeze(a) == squeeze(b)


@dataclass(frozen=True)
class ReadTask:
    """The problem side of one response's reading; the pool's candidate is the response's
    final-answer region. `plans`: also the rule path's plans (not under `paper`, where the
    judge decides everything and only the stated values are kept)."""

    variables: tuple[Variable, ...]
    tolerances: tuple[float, ...]
    plans: bool

    def grade_in_worker(self, region: str) -> RuleResult:
        return RuleResult(Status.CORRECT, None, read(self, region))


def read(task: ReadTask, region: str) -> tuple[tuple[Stated | None, Plan | None], ...]:
    """(stated value, plan) per variable, in the task's order."""
    stated = read_answers(region, [v.name for v in task.variables])
    return tuple((stated.get(v.name), plan(v, stated.get(v.name), tol) if task.plans else None)
                 for v, tol in zip(task.variables, task.tolerances))
