"""The rule path for one variable: a verdict now (numbers with units, quantity.py), a
formula task for the pool (`FormulaTask`), or "cannot decide" (the judge's case: an `other`
gold that is not a number with a unit). A formula gold that is a plain number is compared
as one. Formula equivalence (docs/cfe-bench.md, "Formulas") runs in the grading pool's
workers, which are killed past their time limit: sympy can hang on `9^{9^{9^{9}}}`. A side
the parser cannot read gives UNGRADED (the judge's case).

A response's reading (`ReadTask`: its stated values, stated.py, and each variable's plan)
runs in a pool worker under the `--timeout` limit: the reading sees the whole response,
and a hostile one (thousands of nested `\\boxed{`) must end as `timeout` for its
variables, never hang the grade.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass

from ...grading.rule import RuleResult
from ...schema import Status
from .data import Variable, VariableType
from .quantity import Quantity, close, compare, parse_quantity
from .stated import Stated, read_answers, strip_math, top_level_split

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


# --- formulas, in the pool ---------------------------------------------------------------

PROBES = 5
PROBE_TOLERANCE = 1e-9

_COMMANDS = re.compile(r"\\[A-Za-z]+|\\.")
_WRAPPED = re.compile(r"\\(?:text|mathrm|operatorname|textrm|mbox)\s*\{[^{}]*\}")
_LETTERS = re.compile(r"[A-Za-z]")


def letters(latex: str) -> set[str]:
    """The single-letter symbols a formula writes (commands and `\\text{}` left out)."""
    return set(_LETTERS.findall(_COMMANDS.sub(" ", _WRAPPED.sub(" ", latex))))


@functools.cache
def _config() -> list:
    # LaTeX only, with math-verify's unit stripping off: by default it deletes unit-like
    # letters (`p + m g t` -> `p +`, `E_{\mathrm{cm}}` -> `E_{`), which in a physics formula
    # are symbols. No plain-expression fallback either: it reads `3\pi a^2` as 3.
    from math_verify import LatexExtractionConfig, LatexNormalizationConfig

    return [LatexExtractionConfig(
        try_extract_without_anchor=True,
        normalization_config=LatexNormalizationConfig(basic_latex=True, units=False,
                                                 malformed_operators=True, nits=True,
                                                 boxed="all", equations=False))]


_SUB_WORD = re.compile(r"_\{?\\(?:mathrm|text|textrm|rm|mathit|operatorname)\s*\{([^{}]*)\}\}?")
_SUB_COMMAND = re.compile(r"_\{\\(max|min|perp|parallel|infty|star|ast)\}"
                          r"|_\\(max|min|perp|parallel|infty)(?![A-Za-z])")
_ACCENT = re.compile(r"\\(dot|ddot|hat|bar|tilde|vec|overline|widehat)\s*\{\s*([A-Za-z])\s*\}"
                     r"|\\(dot|ddot|hat|bar|tilde|vec)\s+([A-Za-z])")
_SIZES = re.compile(r"\\(?:big|Big|bigg|Bigg)[lr]?(?![A-Za-z])")


def formula_latex(latex: str) -> str:
    """Notation the parser stumbles on, rewritten the same way on both sides:
    `E_{\\mathrm{cm}}` -> `E_{cm}`, `F_{\\max}` -> `F_{max}`, `\\dot{m}` -> `m_{dot}`,
    `\\big(` -> `(`."""
    latex = _SUB_WORD.sub(lambda m: "_{" + re.sub(r"[^A-Za-z0-9]", "", m.group(1)) + "}",
                          latex)
    latex = _SUB_COMMAND.sub(lambda m: "_{" + (m.group(1) or m.group(2)) + "}", latex)
    latex = _ACCENT.sub(lambda m: f"{m.group(2) or m.group(4)}_{{{m.group(1) or m.group(3)}}}",
                        latex)
    latex = _SIZES.sub("", latex)
    latex = re.sub(r"_([A-Za-z0-9])", r"_{\1}", latex)          # `g_e g_f` -> braced
    return re.sub(r"(?<![A-Za-z\\])E_\{", r"\\mathit{E}_{", latex)   # `E_{A}`: not 1E5


def _parse(latex: str):
    import sympy
    from math_verify import parse

    found = parse(f"${formula_latex(latex)}$", extraction_config=_config(),
                  parsing_timeout=None)
    expr = next((p for p in found if isinstance(p, sympy.Basic)), None)
    return None if expr is None else _rhs(expr)


# Golds recur over responses and runs: parsed once per worker process.
_parse_gold = functools.lru_cache(maxsize=4096)(_parse)


def _rhs(expr):
    """`name = value` -> value, when the left side is a symbol or a function of symbols."""
    import sympy

    while isinstance(expr, sympy.Eq):
        lhs = expr.lhs
        if isinstance(lhs, sympy.Symbol) or (isinstance(lhs, sympy.Function)
                                             and all(isinstance(a, sympy.Symbol)
                                                     for a in lhs.args)):
            expr = expr.rhs
        else:
            break
    return expr


def _number(expr) -> complex | None:
    import sympy

    try:
        if not isinstance(expr, sympy.Expr) or expr.free_symbols:
            return None
        value = complex(sympy.N(expr, 30))
    except (TypeError, ValueError, ArithmeticError, AttributeError):
        return None
    return value if value == value else None   # NaN is not a number here


def _probe_equal(gold, answer) -> bool:
    """Equal at PROBES random points of the shared symbols (positive values, so that roots
    and logarithms stay real); False at the first point that differs or fails."""
    import sympy

    symbols = sorted(gold.free_symbols | answer.free_symbols, key=str)
    rng = random.Random(0)
    diff = sympy.lambdify(symbols, gold - answer, modules=["mpmath"])
    scale = sympy.lambdify(symbols, gold, modules=["mpmath"])
    for _ in range(PROBES):
        point = [rng.uniform(0.5, 2.5) for _ in symbols]
        try:
            d, g = complex(diff(*point)), complex(scale(*point))
        except Exception:
            return False
        if not abs(d) <= PROBE_TOLERANCE * max(1.0, abs(g)):
            return False
    return True


@dataclass(frozen=True)
class FormulaTask:
    """The gold side of one pool task: a formula (LaTeX) and the relative tolerance for
    golds that are numbers."""

    gold: str
    tolerance: float

    def grade_in_worker(self, candidate: str) -> RuleResult:
        return compare_formulas(self.gold, candidate, self.tolerance)


def compare_formulas(gold_text: str, answer_text: str, tolerance: float) -> RuleResult:
    import sympy
    from math_verify import verify

    gold = _parse_gold(gold_text)
    if gold is None:
        return RuleResult(Status.UNGRADED, "the rule path cannot read the gold formula")
    answer = _parse(answer_text)
    if answer is None:
        return RuleResult(Status.UNGRADED, "the rule path cannot read the answer as a formula")
    g_num = _number(gold)
    if g_num is not None:
        a_num = _number(answer)
        if a_num is None:
            return RuleResult(Status.INCORRECT, "the gold is a number; the answer is not")
        ok = close(a_num, g_num, tolerance)
        return RuleResult(Status.CORRECT if ok else Status.INCORRECT,
                          None if ok else f"{_show(a_num)} vs gold {_show(g_num)} "
                                          f"(relative tolerance {tolerance:g})")
    g_letters, a_letters = letters(gold_text), letters(answer_text)
    if g_letters != a_letters and {c.lower() for c in g_letters} == \
            {c.lower() for c in a_letters}:
        return RuleResult(Status.INCORRECT,
                          f"the answer writes {''.join(sorted(a_letters - g_letters))} where "
                          f"the gold has {''.join(sorted(g_letters - a_letters))} "
                          "(symbols differ in case)")
    if verify(gold, answer, timeout_seconds=None):
        return RuleResult(Status.CORRECT)
    if isinstance(gold, sympy.Expr) and isinstance(answer, sympy.Expr) \
            and gold.free_symbols == answer.free_symbols and _probe_equal(gold, answer):
        return RuleResult(Status.CORRECT, "equal at random points (not simplified)")
    return RuleResult(Status.INCORRECT, "not equivalent to the gold formula")


def _show(z: complex) -> str:
    return f"{z.real:.6g}" if abs(z.imag) < 1e-12 else f"{z:.6g}"
