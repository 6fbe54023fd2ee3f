"""Exact values of plain answers, without sympy: the rule grader's fast path.

Most answers are a plain integer, decimal or fraction (`12`, `-3.75`, `\\frac{15}{4}`,
`1.2\\times10^{4}`, `3,600 seconds`, `25\\%`) or an interval union with plain endpoints
(`(-\\infty,3)\\cup(4,+\\infty)`). These are read here into `Fraction`s and compared
exactly. Anything else returns None and goes to math-verify in a worker process. The fast
path must never claim a verdict math-verify would not give, so it accepts only shapes
whose meaning is unambiguous; when in doubt it declines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from .notation import normalize, qualifier, value_items  # noqa: F401  (the shared entries)

# Candidates longer than this never take the fast path (and exponents are bounded), so
# that nothing here can be slow: a 10^(10^6) literal is math-verify's problem, in a worker
# with a time limit.
MAX_FAST_LEN = 120
MAX_EXPONENT = 400
MAX_RAW_LEN = 8 * MAX_FAST_LEN  # before normalisation (`\\text{}` and spacing take room)

_ASSIGN = re.compile(r"^\s*[A-Za-z](?:_\{?\w+\}?)?\s*(?:=|:=|\\approx(?![A-Za-z]))\s*")


# --- numbers ------------------------------------------------------------------------

_DEC = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"
_NUM_RE = re.compile(rf"^({_DEC})(?:[eE]([+-]?\d+))?$")
_SLASH_RE = re.compile(r"^([+-]?\d+)\s*/\s*(\d+)$")
_FRAC_RE = re.compile(r"^([+-]?)\s*\\frac\s*(?:\{\s*([+-]?\d+)\s*\}|(\d))\s*(?:\{\s*(\d+)\s*\}|(\d))$")
_SCI_RE = re.compile(rf"^({_DEC})\s*\\times\s*10\s*\^\s*(?:\{{\s*([+-]?\d+)\s*\}}|(\d))$")
_PCT_RE = re.compile(r"\s*(?:\\%|%|\\text\{\s*%\s*\}|percent)$")
# A unit is one or more plain words after the number. Single letters that are usually
# mathematics rather than units (e, i, x, n, ...) are not taken as units.
# Words joined by exactly one space or slash (normalize() has collapsed whitespace): each
# repetition starts with a separator, so the regex cannot backtrack exponentially.
_UNIT_WORD = r"[A-Za-z\u00b0\u00b5\u03a9]+(?:\^\{?-?[123]\}?|[23\u00b2\u00b3])?"
# The unit may be wrapped in parentheses (`7 (cm)`); the number may carry a percent sign
# (`70% chance`).
_UNIT_RE = re.compile(rf"^(.*?(?:\d\.?|%)) ?(\(?{_UNIT_WORD}(?:(?: ?/ ?| ){_UNIT_WORD})*\)?)$")
_NOT_UNITS = {"e", "i", "j", "x", "y", "z", "n", "k", "pi", "E", "I"}


@dataclass(frozen=True)
class PlainNumber:
    value: Fraction
    percent: bool  # written with a percent sign; value is the number before the sign


def _fraction(text: str) -> Fraction | None:
    m = _NUM_RE.match(text)
    if m:
        exp = int(m.group(2) or 0)
        if abs(exp) > MAX_EXPONENT:
            return None
        return Fraction(m.group(1)) * Fraction(10) ** exp
    m = _SLASH_RE.match(text)
    if m:
        return None if int(m.group(2)) == 0 else Fraction(int(m.group(1)), int(m.group(2)))
    m = _FRAC_RE.match(text)
    if m:
        num, den = int(m.group(2) or m.group(3)), int(m.group(4) or m.group(5))
        if den == 0:
            return None
        q = Fraction(num, den)
        return -q if m.group(1) == "-" else q
    m = _SCI_RE.match(text)
    if m:
        exp = int(m.group(2) or m.group(3))
        if abs(exp) > MAX_EXPONENT:
            return None
        return Fraction(m.group(1)) * Fraction(10) ** exp
    return None


def plain_number(text: str, *, allow_units: bool = True) -> PlainNumber | None:
    """The exact value of a plain number answer, or None when it is anything else."""
    if len(text) > MAX_RAW_LEN:  # normalize() itself stays on short text in the parent
        return None
    s = normalize(text)
    if len(s) > MAX_FAST_LEN:
        return None
    s = _ASSIGN.sub("", s)
    percent = False
    m = _PCT_RE.search(s)
    if m:
        percent, s = True, s[: m.start()].strip()
    q = _fraction(s)
    if q is None and allow_units and not percent:
        m = _UNIT_RE.match(s)
        if m and m.group(2).startswith("(") != m.group(2).endswith(")"):
            m = None
        if m and not set(m.group(2).strip("()").split()) & _NOT_UNITS:
            head = m.group(1).strip()
            pm = _PCT_RE.search(head)
            if pm:
                percent, head = True, head[: pm.start()].strip()
            q = _fraction(head.rstrip("."))
    if q is None:
        return None
    return PlainNumber(q, percent)


def sci_exponent(text: str) -> int | None:
    """The power of ten of a number written in scientific notation (`6.02\\times10^{23}`,
    `1.6e-19`), else None."""
    if len(text) > MAX_RAW_LEN:
        return None
    s = normalize(text)
    if len(s) > MAX_FAST_LEN:
        return None
    m = _SCI_RE.match(s)
    if m:
        return int(m.group(2) or m.group(3))
    m = _NUM_RE.match(s)
    if m and m.group(2):
        return int(m.group(2))
    return None


def plain_values(text: str) -> tuple[PlainNumber, ...] | None:
    """A plain number as a 1-tuple; the plain values an answer lists (`1,2,2`,
    `\\{-1, 3\\}`, `-1 \\text{ or } 3`, `\\pm 3`: notation.value_items) as a tuple in
    order; else None."""
    one = plain_number(text)
    if one is not None:
        return (one,)
    if len(text) > MAX_RAW_LEN:
        return None
    items = value_items(text)
    if len(items) == 1 and "\\{" not in text:
        return None  # nothing was unwrapped (only set braces can be): plain_number said no
    out = []
    for item in items:
        v = plain_number(item)
        if v is None:
            return None
        out.append(v)
    return tuple(out)


def round_half_up(q: Fraction, k: int) -> Fraction:
    """`q` rounded to k decimal places, halves away from zero (2.675 -> 2.68, -2.675 ->
    -2.68): the rounding a person does by hand, done on the exact value."""
    scale = 10 ** k
    scaled = abs(q) * scale
    n = scaled.numerator // scaled.denominator
    if (scaled - n) * 2 >= 1:
        n += 1
    return Fraction(n if q >= 0 else -n, scale)


def numbers_match(gold: Fraction, pred: Fraction, float_round: int, exponent: int = 0) -> bool:
    """Equal, or equal once rounded to `float_round` places; for a gold written in
    scientific notation (`exponent`), the places are the mantissa's (6.02e23, k=2: 6.0221e23
    is 6.02e23)."""
    if float_round <= 0:
        return gold == pred
    if exponent:
        scale = Fraction(10) ** exponent
        gold, pred = gold / scale, pred / scale
    return round_half_up(gold, float_round) == round_half_up(pred, float_round)


# --- intervals ----------------------------------------------------------------------

INF = None  # an unbounded end is None in a Span


@dataclass(frozen=True, order=True)
class Span:
    """One interval; lo/hi None mean -inf/+inf (always open)."""

    lo: Fraction | None
    lo_closed: bool
    hi: Fraction | None
    hi_closed: bool


_INTERVAL_RE = re.compile(r"^([\[(])\s*([^,\[\]()]+?)\s*,\s*([^,\[\]()]+?)\s*([\])])$")
_UNION_SPLIT = re.compile(r"\s*(?:\\cup|\\bigcup|\bU\b)\s*")


def _endpoint(text: str, lower: bool):
    t = text.replace(" ", "")
    if t in ("\\infty", "+\\infty", "\\infin", "+\\infin", "oo", "+oo", "\\inf", "+\\inf"):
        return "+inf"
    if t in ("-\\infty", "-\\infin", "-oo", "-\\inf"):
        return "-inf"
    return _fraction(t)


def plain_intervals(text: str) -> tuple[Span, ...] | None:
    """A union of intervals with plain endpoints, merged into canonical form, or None."""
    if len(text) > MAX_FAST_LEN * 4:
        return None
    s = normalize(text)
    if len(s) > MAX_FAST_LEN * 4:
        return None
    s = re.sub(r"^[A-Za-z]\s*\\in\s*", "", s)
    if s in ("\\emptyset", "\\varnothing", "\\{\\}"):
        return ()
    if s in ("\\mathbb{R}", "\\mathbb R", "\\R"):
        return (Span(None, False, None, False),)
    if "<" in s or ">" in s or "\\l" in s or "\\g" in s:
        return plain_inequalities(s)
    spans = []
    for part in _UNION_SPLIT.split(s):
        m = _INTERVAL_RE.match(part)
        if not m:
            return None
        lo, hi = _endpoint(m.group(2), True), _endpoint(m.group(3), False)
        if lo is None or hi is None or lo == "+inf" or hi == "-inf":
            return None
        lo_closed, hi_closed = m.group(1) == "[", m.group(4) == "]"
        if lo == "-inf":
            lo, lo_closed = INF, False
        if hi == "+inf":
            hi, hi_closed = INF, False
        spans.append((lo, lo_closed, hi, hi_closed))
    return canonical_spans(spans)


_OPS = {"<": ("<", False), "\\lt": ("<", False), "\\le": ("<", True),
        ">": (">", False), "\\gt": (">", False), "\\ge": (">", True)}
_OP = r"(<|>|(?:\\lt|\\gt|\\le|\\ge)(?![A-Za-z]))"
_BOUND = r"([+-]?[\d.]+(?:/\d+)?|[+-]?\\frac\s*\{[^{}]*\}\s*\{[^{}]*\}|[+-]?\\infty)"
_CHAIN_RE = re.compile(rf"^{_BOUND}\s*{_OP}\s*([A-Za-z])\s*{_OP}\s*{_BOUND}$")
_LEFT_RE = re.compile(rf"^([A-Za-z])\s*{_OP}\s*{_BOUND}$")
_RIGHT_RE = re.compile(rf"^{_BOUND}\s*{_OP}\s*([A-Za-z])$")
_OR_SPLIT = re.compile(r"\s*(?:\bor\b|\\lor|\\vee|;|,)\s*")
_AND_SPLIT = re.compile(r"\s*(?:\band\b|\\land|\\wedge)\s*")


def _bound(text: str):
    t = text.replace(" ", "")
    if t in ("\\infty", "+\\infty"):
        return "+inf"
    if t == "-\\infty":
        return "-inf"
    return _fraction(t)


def _half(var_on_left: bool, op: str, value) -> tuple | None:
    """x op v (var_on_left) or v op x, as (lo, lo_closed, hi, hi_closed) with None = inf."""
    direction, closed = _OPS[op]
    if not var_on_left:  # v < x  is  x > v
        direction = ">" if direction == "<" else "<"
    if value in ("+inf", "-inf"):
        return None
    if direction == "<":
        return (None, False, value, closed)
    return (value, closed, None, False)


def plain_inequalities(s: str) -> tuple[Span, ...] | None:
    """`2\\le x<5`, `x > 4`, `x<3 or x>4` with plain bounds, as canonical spans, or None.
    Only a single variable, and only chains that go one way (`a < x < b`)."""
    spans, var = [], None
    for disjunct in _OR_SPLIT.split(s):
        # math-verify reads "x>2 and x<5" like "x>2 or x<5" (a set of relations); here
        # "and" intersects.
        both = None
        for part in _AND_SPLIT.split(disjunct):
            got = _one_relation(part)
            if got is None or (var is not None and got[0] != var):
                return None
            var, span = got
            both = span if both is None else _intersect(both, span)
        if both is not None:
            spans.append(both)
    return canonical_spans(spans)


def _intersect(a: tuple, b: tuple) -> tuple:
    lo, lc = a[0], a[1]
    if b[0] is not None and (lo is None or b[0] > lo or (b[0] == lo and not b[1])):
        lo, lc = b[0], b[1]
    hi, hc = a[2], a[3]
    if b[2] is not None and (hi is None or b[2] < hi or (b[2] == hi and not b[3])):
        hi, hc = b[2], b[3]
    return (lo, lc, hi, hc)  # possibly empty: canonical_spans drops it


def _one_relation(part: str):
    """(variable, span) for `a < x < b`, `x > a` or `a < x`, else None."""
    m = _CHAIN_RE.match(part)
    if m:
        lo, op1, v, op2, hi = m.groups()
        (d1, c1), (d2, c2) = _OPS[op1], _OPS[op2]
        a, b = _bound(lo), _bound(hi)
        if d1 != d2 or a is None or b is None or {a, b} & {"+inf", "-inf"}:
            return None
        if d1 == ">":  # b > x > a
            a, b, c1, c2 = b, a, c2, c1
        return v, (a, c1, b, c2)
    m = _LEFT_RE.match(part)
    if m:
        v, op, bound = m.groups()
        var_on_left = True
    else:
        m = _RIGHT_RE.match(part)
        if not m:
            return None
        bound, op, v = m.groups()
        var_on_left = False
    b = _bound(bound)
    span = None if b is None else _half(var_on_left, op, b)
    return None if span is None else (v, span)


def canonical_spans(spans) -> tuple[Span, ...]:
    """Drop empty intervals, sort, and merge overlapping or touching ones, so that two
    unions of the same set compare equal whatever their order or split."""
    keep = []
    for lo, lc, hi, hc in spans:
        if lo is not None and hi is not None and (lo > hi or (lo == hi and not (lc and hc))):
            continue
        keep.append((lo, lc, hi, hc))

    def lo_key(sp):  # -inf first; at an equal start a closed end comes first
        lo, lc = sp[0], sp[1]
        return (0, 0, 0) if lo is None else (1, lo, 0 if lc else 1)

    keep.sort(key=lo_key)
    merged: list[list] = []
    for lo, lc, hi, hc in keep:
        if merged:
            plo, plc, phi, phc = merged[-1]
            touches = phi is None or (lo is not None and (lo < phi or (lo == phi and (phc or lc))))
            if touches:
                if phi is None or (hi is not None and (hi < phi or (hi == phi and not hc))):
                    continue  # inside the previous one
                if hi is not None and hi == phi:
                    merged[-1][3] = phc or hc
                else:
                    merged[-1][2], merged[-1][3] = hi, hc
                continue
        merged.append([lo, lc, hi, hc])
    return tuple(Span(*m) for m in merged)
