"""Exact comparisons without sympy, and intervals: the rule grader's fast path.

Numbers (read by reader.py) are rounded here. `interval_text` is the interval shape's
reading of a candidate (a comma always separates endpoints), `plain_intervals` the union of
plain-endpoint intervals it states as canonical `Span`s; None sends it to math-verify.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from . import words
from .reader import maybe_fraction, split_top_level
from .surface import Unreadable, clean

MAX_FAST_LEN = 480


def round_half_up(q: Fraction, k: int) -> Fraction:
    """`q` rounded to k decimal places, halves away from zero (2.675 -> 2.68, -2.675 ->
    -2.68): the rounding a person does by hand, done on the exact value."""
    half = Fraction(1, 2 * 10 ** k)
    return truncate(q + half if q >= 0 else q - half, k)


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


def truncate(q: Fraction, k: int) -> Fraction:
    """`q` cut to k decimal places, toward zero (0.6666... -> 0.666)."""
    n = int(abs(q) * 10 ** k)
    return Fraction(n if q >= 0 else -n, 10 ** k)


def decimals(text: str | None) -> int | None:
    """The decimal places a plain number is written with (`3.46`: 2), or None when it is
    not a plain decimal (a fraction, an expression)."""
    m = re.fullmatch(r"\s*[+-]?\d*(?:\.(\d*))?\s*", text or "")
    return None if m is None else len(m.group(1) or "")


def percent_match(g: Fraction, g_pct: bool, p: Fraction, p_pct: bool, k: int,
                  exponent: int = 0, written: bool | None = True) -> bool:
    """The number rule with percent signs (docs/grading.md). On one side only, that side's
    written number or its hundredth counts, a gold percentage read as a fraction keeping its
    precision (`12.5\\%` at k=1 is 0.125 at 3 places); on both sides the written numbers.
    An answer's percent sign means its hundredth only on a gold below 1 when `written` is
    False, and on any gold when it is None (the question asks for a count or an amount)."""
    if p_pct and not g_pct and (written is None or (not written and abs(g) < 1)):
        return numbers_match(g, p / 100, k, exponent)
    if numbers_match(g, p, k, exponent):
        return True
    if g_pct and not p_pct:
        return numbers_match(g / 100, p, k + 2 if k > 0 else 0, exponent)
    if p_pct and not g_pct:
        return numbers_match(g, p / 100, k, exponent)
    return False


@dataclass(frozen=True, order=True)
class Span:
    """One interval; lo/hi None mean -inf/+inf (always open)."""

    lo: Fraction | None
    lo_closed: bool
    hi: Fraction | None
    hi_closed: bool


_INTERVAL_RE = re.compile(r"^([\[(])\s*([^,\[\]()]+?)\s*,\s*([^,\[\]()]+?)\s*([\])])$")
_UNION_SPLIT = re.compile(r"\s*(?:\\cup|\\bigcup|\bU\b)\s*")
_INFINITIES = {sign + name: "-inf" if sign == "-" else "+inf"
               for name in ("\\infty", "\\infin", "oo", "\\inf") for sign in ("", "+", "-")}


def _endpoint(text: str):
    """An endpoint or bound: a plain number, "+inf", "-inf", or None."""
    t = text.replace(" ", "")
    return _INFINITIES.get(t) or maybe_fraction(t)


_LEAD = re.compile(r"^(?:[A-Za-z](?:_\{?\w{1,8}\}?)?|[A-Z]{1,3})\s*(?:\\in(?![A-Za-z])|=)\s*")
_REALS = r"(?:\\mathbb\s*\{?R\}?|\\R(?![A-Za-z])|\\mathbf\s*\{?R\}?)"
_IN_REALS = re.compile(rf"^[A-Za-z]\s*\\in\s*{_REALS}\s*(?:,|;| and | such that |\\mid|:|\|)\s*")
_COMPLEMENT = re.compile(rf"^{_REALS}\s*(?:\\setminus|\\backslash|\\smallsetminus|-)\s*(.+)$")
_NEQ = re.compile(r"^([A-Za-z])\s*(?:\\neq|\\ne(?![A-Za-z])|!=)\s*([^,;]+)$")
_WORD_INF = re.compile(r"(?<![A-Za-z\\])(?:infinity|inf|oo)(?![A-Za-z])", re.IGNORECASE)
_DISJUNCTS = re.compile(r" or |\\lor(?![A-Za-z])|\\vee(?![A-Za-z])|,|;")
_SET_BUILDER = re.compile(r"^\\\{\s*[A-Za-z]\s*(?:\\in\s*" + _REALS + r"\s*)?"
                          r"(?:\\mid(?![A-Za-z])|\||:)\s*(.+)\\\}$")
# What an interval answer may hold beyond numbers and brackets (for math-verify's path).
_INTERVAL_MACROS = frozenset("""
frac sqrt pi infty cup cap in notin le ge lt gt neq ne mathbb R emptyset varnothing setminus
backslash mid cdot times ln log exp lor land vee wedge bigcup
""".split())
_INTERVAL_TOKEN = re.compile(r"\\[{}|]|\\[A-Za-z]+|[A-Za-z]+|\d+|[+\-*/^_(){}\[\],;.<>=|:!\s]|.", re.DOTALL)


def interval_text(text: str) -> str:
    """An interval answer as the interval shape reads it (`x \\in` dropped, `[2;5]` and
    `]a,b[` as `[2,5]` and `(a,b)`, set-builder sets as their condition, `or` as a union);
    `Unreadable` for anything but numbers, one variable, brackets, relations and sets."""
    if len(text) > MAX_FAST_LEN * 4:
        raise Unreadable("the answer is too long to be an interval")
    s = clean(text, numeric=False)
    s = _SET_WORDS.get(s.strip().lower(), s)   # `\\text{no solution}`, `all real numbers`
    s = s.replace("\\lbrack", "[").replace("\\rbrack", "]")
    s = re.sub(r"^(?:\\mathbb\s*\{?R\}?|\\R)\s*\\cap\s*", "", s)   # `\\mathbb{R} \\cap [2,5)`
    s = _DEGREES.sub("", s)            # `[0°, 360°)`: the unit of every endpoint
    s = _GREEK_VAR.sub("x", s)         # `0 \\le \\theta < 360`: the variable's name
    s = _UNIT_AFTER.sub(_units_only, s)   # `[2, 5) \\text{ seconds}`
    s = _WORD_INF.sub(r"\\infty ", s)
    s = re.sub(r"(?<![A-Za-z\\])U(?![A-Za-z])", r"\\cup ", s)
    if m := _SET_BUILDER.match(s):
        s = m.group(1).strip()
    s = _IN_REALS.sub("", s)
    s = _points(s)
    parts = split_top_level(s, _DISJUNCTS)
    if len(parts) > 1 and all(_LEAD.match(p) or p[:1] in "[(" for p in parts):
        stripped = [_LEAD.sub("", p) for p in parts]
        if all(p[:1] in "[(]" and p[-1:] in "])[" for p in stripped):
            s = " \\cup ".join(stripped)   # `x \\in (..) or x \\in (..)`, `(..) or (..)`
    if not _RELATION_CHAIN.match(s):
        s = _LEAD.sub("", s)
    s = _both_bounds(s)
    if m := _NOT_IN.match(s):   # `x \\notin [3,4]`
        s = "\\mathbb{R} \\setminus " + m.group(1)
    if ";" in s and "," not in s:
        s = s.replace(";", ",")
    if s.startswith("]"):  # ISO 31-11: `]a,b[` is (a,b), `[a,b[` is [a,b)
        s = "(" + s[1:]
    if s.endswith("[") and "," in s:
        s = s[:-1] + ")"
    s = re.sub(r"(\\cup\s*)\]", r"\1(", s)
    s = re.sub(r"\[(\s*\\cup)", r")\1", s)
    _gate_interval(s)
    return s.strip()


_SET_WORDS = {"no solution": "\\emptyset", "no solutions": "\\emptyset", "none": "\\emptyset",
              "the empty set": "\\emptyset", "empty set": "\\emptyset", "\u00f8": "\\emptyset",
              "\\o": "\\emptyset", "\u00d8": "\\emptyset", "all real numbers": "\\mathbb{R}",
              "all reals": "\\mathbb{R}", "every real number": "\\mathbb{R}"}
_DEGREES = re.compile(r"\s*(?:\u00b0|\^\s*\{?\s*\\circ\s*\}?)")
_GREEK_VAR = re.compile(r"\\(?:theta|alpha|beta|gamma|phi|varphi|varepsilon|lambda|omega|tau|"
                        r"mu|sigma|rho|psi|eta|xi|zeta|kappa)(?![A-Za-z])")
_UNIT_AFTER = re.compile(r"(?<=[\])])\s+[A-Za-z]{2,}(?:\s+[A-Za-z]{2,})?$")
_NOT_IN = re.compile(r"^[A-Za-z]\s*\\notin\s*(.+)$")
_TWO = re.compile(r"^([^,;]+?)\s*[,;]\s*([^,;]+)$")
_RELATION_CHAIN = re.compile(r"^[A-Za-z]\s*(?:<|>|\\l|\\g|\\n)")


def _units_only(m: re.Match) -> str:
    return "" if all(words.kind(w) == "unit" for w in m.group(0).split()) else m.group(0)


def _both_bounds(s: str) -> str:
    """`x \\ge 2, x < 5`: a lower and an upper bound joined by a comma read as both
    (`[2,5)`); bounds that cross (`x < 3, x > 4`) stay a union."""
    m = _TWO.match(s)
    if not m or "[" in s or "(" in s:
        return s
    a, b = _one_relation(m.group(1).strip()), _one_relation(m.group(2).strip())
    if a is None or b is None or a[0] != b[0]:
        return s
    (_, sa), (_, sb) = a, b
    lows = [x for x in (sa, sb) if x[0] is not None and x[2] is None]
    highs = [x for x in (sa, sb) if x[2] is not None and x[0] is None]
    if len(lows) == 1 and len(highs) == 1 and lows[0][0] < highs[0][2]:
        return f"{m.group(1).strip()} and {m.group(2).strip()}"
    return s


def _points(s: str) -> str:
    """`x = 1 \\text{ or } x = 2`: the finite set `\\{1, 2\\}`."""
    if "=" not in s:
        return s
    parts = split_top_level(s, re.compile(r",| or |\\lor(?![A-Za-z])"))
    values = []
    for p in parts:
        m = re.match(r"^[A-Za-z]\s*=\s*(.+)$", p.strip())
        if not m or "=" in m.group(1):
            return s
        values.append(m.group(1).strip())
    return "\\{" + ", ".join(values) + "\\}"


def _gate_interval(s: str) -> None:
    variables = set()
    for m in _INTERVAL_TOKEN.finditer(s):
        tok = m.group(0)
        if tok.startswith("\\"):
            if tok[1:] not in _INTERVAL_MACROS and tok not in ("\\{", "\\}", "\\|"):
                raise Unreadable(f"{tok} is not something the grader reads in an interval")
        elif tok[0].isalpha():
            if tok in ("or", "and", "e", "R"):
                continue
            if len(tok) == 1:
                variables.add(tok)
                if len(variables) > 1:
                    raise Unreadable("an interval answer in two variables")
                continue
            raise Unreadable(f"{tok!r} does not belong in an interval answer")
        elif not (tok.isdigit() or tok in "+-*/^_(){}[],;.<>=|:! " or tok.isspace()):
            raise Unreadable(f"{tok!r} does not belong in an interval answer")


def plain_intervals(text: str) -> tuple[Span, ...] | None:
    """A union of intervals with plain endpoints, merged into canonical form, or None
    (then math-verify reads `interval_text(text)`). `Unreadable` propagates."""
    return _plain_spans(interval_text(text))


def _plain_spans(s: str) -> tuple[Span, ...] | None:
    if s in ("\\emptyset", "\\varnothing", "\\{\\}", "\\{ \\}"):
        return ()
    if re.fullmatch(_REALS, s):
        return (Span(None, False, None, False),)
    if m := _COMPLEMENT.match(s):
        inner = m.group(1).strip()
        removed = _finite_set(inner) or _plain_spans(inner)   # a finite set is never empty
        return None if removed is None else complement(removed)
    if m := _NEQ.match(s):
        q = maybe_fraction(m.group(2).replace(" ", ""))
        return None if q is None else complement((Span(q, True, q, True),))
    if "<" in s or ">" in s or "\\l" in s or "\\g" in s:
        return plain_inequalities(s)
    spans = []
    for part in _UNION_SPLIT.split(s):
        if (finite := _finite_set(part)) is not None:
            spans.extend((sp.lo, True, sp.hi, True) for sp in finite)
            continue
        if not (m := _INTERVAL_RE.match(part)):
            return None
        lo, hi = _endpoint(m.group(2)), _endpoint(m.group(3))
        if lo is None or hi is None or lo == "+inf" or hi == "-inf":
            return None
        lo_closed, hi_closed = m.group(1) == "[", m.group(4) == "]"
        if lo == "-inf":
            lo, lo_closed = None, False
        if hi == "+inf":
            hi, hi_closed = None, False
        spans.append((lo, lo_closed, hi, hi_closed))
    return canonical_spans(spans)


def _finite_set(s: str) -> tuple[Span, ...] | None:
    """`\\{2\\}`, `\\{1, 3\\}` as degenerate spans, or None."""
    s = s.strip()
    if not (s.startswith("\\{") and s.endswith("\\}")):
        return None
    qs = [maybe_fraction(item.replace(" ", "")) for item in s[2:-2].split(",")]
    return None if None in qs else tuple(Span(q, True, q, True) for q in qs)


def complement(spans: tuple[Span, ...]) -> tuple[Span, ...]:
    """The real line minus a canonical union."""
    out, lo, lo_closed = [], None, False
    for sp in spans:
        if sp.lo is not None:   # a union starting at -inf leaves nothing before it
            out.append((lo, lo_closed, sp.lo, not sp.lo_closed))
        if sp.hi is None:
            return canonical_spans(out)
        lo, lo_closed = sp.hi, not sp.hi_closed
    out.append((lo, lo_closed, None, False))
    return canonical_spans(out)


_OPS = {"<": ("<", False), "\\lt": ("<", False), "\\le": ("<", True),
        ">": (">", False), "\\gt": (">", False), "\\ge": (">", True)}
_OP = r"(<|>|(?:\\lt|\\gt|\\le|\\ge)(?![A-Za-z]))"
_BOUND = r"([+-]?[\d.]+(?:/\d+)?|[+-]?\\frac\s*\{[^{}]*\}\s*\{[^{}]*\}|[+-]?\\infty)"
_CHAIN_RE = re.compile(rf"^{_BOUND}\s*{_OP}\s*([A-Za-z])\s*{_OP}\s*{_BOUND}$")
_LEFT_RE = re.compile(rf"^([A-Za-z])\s*{_OP}\s*{_BOUND}$")
_RIGHT_RE = re.compile(rf"^{_BOUND}\s*{_OP}\s*([A-Za-z])$")
_OR_SPLIT = re.compile(r"\s*(?:\bor\b|\\lor|\\vee|;|,)\s*")
_AND_SPLIT = re.compile(r"\s*(?:\band\b|\\land|\\wedge)\s*")


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
    if m := _CHAIN_RE.match(part):
        lo, op1, v, op2, hi = m.groups()
        (d1, c1), (d2, c2) = _OPS[op1], _OPS[op2]
        a, b = _endpoint(lo), _endpoint(hi)
        if d1 != d2 or a is None or b is None or {a, b} & {"+inf", "-inf"}:
            return None
        if d1 == ">":  # b > x > a
            a, b, c1, c2 = b, a, c2, c1
        return v, (a, c1, b, c2)
    if m := _LEFT_RE.match(part):
        v, op, bound = m.groups()
    elif m := _RIGHT_RE.match(part):
        bound, op, v = m.groups()
    else:
        return None
    b = _endpoint(bound)
    if b is None or b in ("+inf", "-inf"):
        return None
    direction, closed = _OPS[op]
    if (direction == "<") == (m.re is _LEFT_RE):   # `x < b` or `b > x`
        return v, (None, False, b, closed)
    return v, (b, closed, None, False)


def canonical_spans(spans) -> tuple[Span, ...]:
    """Drop empty intervals, sort, and merge overlapping or touching ones, so that two
    unions of the same set compare equal whatever their order or split."""
    keep = [(lo, lc, hi, hc) for lo, lc, hi, hc in spans
            if lo is None or hi is None or lo < hi or (lo == hi and lc and hc)]

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
