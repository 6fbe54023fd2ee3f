"""The contract's rules (docs/grading.md) on math-verify's sympy objects: numbers with the
problem's `float_round` (round half-up on the exact value), percent signs, and sets of
intervals. Imported only in worker processes (and by `parse_gold` for golds not plain)."""

from __future__ import annotations

from fractions import Fraction

import sympy
from sympy import (And, Eq, Float, FiniteSet, Interval, Mul, Or, Rational, S, Set, Tuple,
                   UnevaluatedExpr, Union)
from sympy.core.relational import Relational

from . import exact
from .reader import mv_value, plain_latex

_PCT = UnevaluatedExpr(Rational(1, 100))


def exactify(expr):
    """Floats replaced by the exact rationals they were written as (`420.755` ->
    84151/200), so that no comparison rounds on binary floating point."""
    floats = expr.atoms(Float) if isinstance(expr, sympy.Basic) else None
    return expr.xreplace({f: Rational(str(f)) for f in floats}) if floats else expr


def piece_value(piece, *, parse_plain: bool = False):
    """A reader.Piece as a sympy number (a percent sign a factor of 1/100 kept apart), or
    None. `parse_plain`: a plain number is parsed too (the tests check both paths agree)."""
    latex = piece.latex
    if piece.exact is not None and parse_plain and piece.text:
        latex = plain_latex(piece.text)   # None where math-verify would misread it
    if piece.exact is not None and not (parse_plain and latex):
        value = Rational(piece.exact.numerator, piece.exact.denominator)
    else:
        expr = mv_value(latex) if latex else None
        if expr is None:
            return None
        value = unwrap_value(expr)
    return Mul(value, _PCT, evaluate=False) if piece.percent else value


def from_spans(spans) -> Set:
    def end(v, default):
        return default if v is None else Rational(v.numerator, v.denominator)

    return Union(*[Interval(end(s.lo, S.NegativeInfinity), end(s.hi, S.Infinity),
                            not s.lo_closed, not s.hi_closed) for s in spans])


def _is_relation(expr) -> bool:
    return isinstance(expr, (Relational, And, Or))


def unwrap_value(expr):
    """`x = 30` -> 30 (the value of an assignment: a label does not matter)."""
    while isinstance(expr, Eq) and not isinstance(expr.rhs, Set):
        expr = expr.rhs
    return exactify(expr)


def _split_percent(expr) -> tuple[object, bool]:
    if isinstance(expr, Mul) and len(expr.args) == 2 and _PCT in expr.args:
        other = expr.args[0] if expr.args[1] == _PCT else expr.args[1]
        return other, True
    return expr, False


def _exact_real(expr, k: int) -> Fraction | None:
    """A real constant as a Fraction: exact when rational; for irrationals (pi, sqrt 2)
    enough digits past k that rounding to k places is decided."""
    try:
        expr = expr.doit() if hasattr(expr, "doit") else expr
        if not isinstance(expr, sympy.Expr) or expr.free_symbols or expr.is_real is False:
            return None
        if expr.is_Rational:
            return Fraction(int(expr.p), int(expr.q))
        if k <= 0 or expr.is_number is not True:
            return None
        value = expr.evalf(k + 40)
        return Fraction(str(value)) if value.is_Float else None
    except Exception:
        return None


def numbers_equal(gold, pred, k: int, exponent: int = 0, written: bool = True) -> bool | None:
    """Number rule of step 3; None when either side is not a real number (or a finite set
    of them), leaving the decision to math-verify."""
    g_vals, p_vals = _values(gold), _values(pred)
    if g_vals is None or p_vals is None:
        return None
    if len(g_vals) != len(p_vals):
        return False
    if len(g_vals) == 1:
        return _one_equal(*g_vals[0], *p_vals[0], k, exponent, written)
    # A set of numbers: matched as multisets, each element by the same rule.
    rest = list(p_vals)
    for g, g_pct in g_vals:
        for i, (p, p_pct) in enumerate(rest):
            res = _one_equal(g, g_pct, p, p_pct, k, 0, written)
            if res is None:
                return None
            if res:
                del rest[i]
                break
        else:
            return False
    return True


def _values(expr):
    items = expr.args if isinstance(expr, (FiniteSet, Tuple)) else [expr]
    out = []
    for item in items:
        item, pct = _split_percent(unwrap_value(item))
        if not isinstance(item, sympy.Expr) or item.free_symbols or isinstance(item, Set):
            return None
        out.append((item, pct))
    return out


def truncated_equal(gold, piece, k: int) -> bool:
    """The digits an answer shows before an ellipsis are the gold's, cut to k places."""
    g = _exact_real(gold, max(k, 1))
    return g is not None and piece.exact is not None and exact.truncate(g, k) == piece.exact


def percent_readings(g, g_pct: bool, p, p_pct: bool, written: bool = True) -> tuple[list, list]:
    """The values each side may mean, as exact.percent_match reads percent signs."""
    if g_pct and p_pct:
        return [g], [p]
    if p_pct and (written is None or (not written and _below_one(g))):
        return [g], [p / 100]
    return ([g, g / 100] if g_pct else [g]), ([p, p / 100] if p_pct else [p])


def _below_one(g) -> bool:
    try:
        return bool(abs(g) < 1)
    except Exception:
        return False


def _one_equal(g, g_pct, p, p_pct, k, exponent=0, written=True):
    gq, pq = _exact_real(g, k), _exact_real(p, k)
    if gq is not None and pq is not None:
        return exact.percent_match(gq, g_pct, pq, p_pct, k, exponent, written)
    if k > 0:
        return None
    # Exact equivalence of irrational constants (k = 0): sqrt(8) = 2 sqrt(2).
    golds, preds = percent_readings(g, g_pct, p, p_pct, written)
    return any(_same_constant(a, b) for a in golds for b in preds)


def _same_constant(a, b) -> bool | None:
    """Whether two closed forms are the same number. Each side is evaluated on its own (their
    difference makes sympy chase precision through the cancellation); values that agree
    are confirmed symbolically, cheapest rewrite first (`\\pi - 10^{-40}` is not `\\pi`)."""
    try:
        if not isinstance(a, sympy.Expr) or not isinstance(b, sympy.Expr) \
                or a.free_symbols or b.free_symbols:
            return None
        diff = a - b
        if diff == 0:
            return True
        if diff.is_Rational:
            return False
        if sympy.radsimp(diff) == 0:   # radicals and constants: the common equal case, cheap
            return True
        av, bv = a.evalf(20), b.evalf(20)
        if av.is_Number and bv.is_Number:
            if abs(av - bv) > sympy.Float("1e-12", 20) * max(1, abs(av)):
                return False
        for rewrite in (sympy.cancel, sympy.simplify):
            if rewrite(diff) == 0:
                return True
        return None
    except Exception:
        return None


def to_set(expr):
    """An interval answer as a sympy Set: `[2,5)`, `x\\in[2,5)`, `2\\le x<5`,
    `x<3 or x>4` (math-verify gives a FiniteSet of relations), unions; else None."""
    expr = exactify(expr)
    if isinstance(expr, Eq) and isinstance(expr.rhs, Set):
        expr = expr.rhs
    if isinstance(expr, Set):
        if isinstance(expr, FiniteSet) and expr.args and all(_is_relation(a) for a in expr.args):
            parts = [_relation_set(a) for a in expr.args]
            return None if any(p is None for p in parts) else Union(*parts)
        return expr
    if _is_relation(expr):
        return _relation_set(expr)
    return None


_OPEN_ENDS = {"<": (True, True), "<=": (True, False), ">": (False, True), ">=": (False, False)}


def _relation_set(rel):
    if len(rel.free_symbols) != 1:
        return None
    if (simple := _simple_relation(rel)) is not None:
        return simple
    try:
        return rel.as_set()
    except Exception:
        return None


def _simple_relation(rel):
    """`x >= \\sqrt{2}`, `5 > x`: the interval built directly (sympy's inequality solver
    takes a hundred milliseconds for what is read off the relation). None otherwise."""
    op = getattr(rel, "rel_op", None)
    if op not in _OPEN_ENDS:
        return None
    lhs, rhs = rel.lhs, rel.rhs
    below, open_end = _OPEN_ENDS[op]   # `x < b`: x is below b
    if lhs.is_Symbol and rhs.is_number and rhs.is_extended_real:
        bound = rhs
    elif rhs.is_Symbol and lhs.is_number and lhs.is_extended_real:
        bound, below = lhs, not below
    else:
        return None
    if below:
        return Interval(S.NegativeInfinity, bound, True, open_end)
    return Interval(bound, S.Infinity, open_end, True)


def _round_set(s, k: int):
    if k <= 0:
        return s

    def r(v):
        q = _exact_real(v, k) if v.is_finite else None
        return v if q is None else Rational(exact.round_half_up(q, k))

    if isinstance(s, Interval):
        return Interval(r(s.start), r(s.end), s.left_open, s.right_open)
    if isinstance(s, Union):
        return Union(*[_round_set(a, k) for a in s.args])
    if isinstance(s, FiniteSet):
        return FiniteSet(*[r(a) if isinstance(a, sympy.Expr) else a for a in s.args])
    return s


def sets_equal(gold, pred, k: int) -> bool:
    gold, pred = _round_set(gold, k), _round_set(pred, k)
    if gold == pred:
        return True
    try:
        return gold.symmetric_difference(pred) == S.EmptySet
    except Exception:
        return False
