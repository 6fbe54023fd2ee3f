"""The answer reader: a candidate is read for the shape its gold calls for (`Shape`), and
nothing else. When the whole candidate cannot be read as that shape it is not correct
(`Unreadable(reason)`): the reader never falls back to a number found inside it.

A scalar is `[label =] [hedge] [sign] [currency] core [%] [units]`: the units are words
words.kind() accepts, the core a plain number (an exact `Fraction`) or an expression of
numbers, operators, known functions, e and pi (math-verify reads its cleaned `Piece.latex`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from itertools import accumulate

from . import words
from .surface import Unreadable, clean

MAX_LEN = 1000        # longer candidates are not read (a final answer is short)
MAX_EXPONENT = 400    # 10^400 and beyond: not a plain number (bounded work)
MAX_DIGITS = 4000


class Shape(str, Enum):
    SCALAR = "scalar"
    LIST = "list"
    CLOCK = "clock"
    RATIO = "ratio"
    INTERVAL = "interval"


@dataclass(frozen=True)
class Piece:
    """One reading of a value: `exact` when it is a plain number, else `latex`, the
    cleaned expression for math-verify. `approx`: stated after `\\approx`."""

    exact: Fraction | None
    latex: str | None = None
    percent: bool = False
    currency: str | None = None
    approx: bool = False
    text: str | None = None      # a plain number as written (`plain_latex` reads it)
    truncated: bool = False      # `0.333\ldots`: the digits shown of a longer value


@dataclass(frozen=True)
class Value:
    """One value: the pieces of its equality chain (`x = \\frac{12}{4} = 3` has two)."""

    pieces: tuple[Piece, ...]

    @property
    def exact(self) -> bool:
        return all(p.exact is not None for p in self.pieces)


def split_top_level(s: str, separator: re.Pattern) -> list[str]:
    """`s` cut at the matches of `separator` outside any bracket, each piece stripped."""
    matches = list(separator.finditer(s))
    if not matches:
        return [s.strip()]
    depths = list(accumulate((c in "([{") - (c in ")]}") for c in s))
    items, start = [], 0
    for m in matches:
        if depths[m.start()] == 0:
            items.append(s[start:m.start()].strip())
            start = m.end()
    items.append(s[start:].strip())
    return items


# Words that make a number a bound or an operation, not a value: `7 or more`, `at most 7`.
_QUALIFIER = re.compile(
    r"\b(?:or\s+(?:more|fewer|less|greater|higher|lower|above|below|so)|at\s+(?:most|least)"
    r"|up\s+to|(?:more|less|fewer|greater|higher|lower)\s+than|no\s+(?:more|less|fewer)"
    r"|squared|cubed|to\s+the\s+power)\b", re.IGNORECASE)


def qualifier(text: str) -> str | None:
    """The qualifying words of a number answer (`or more`, `at most`...), or None."""
    if len(text) > MAX_LEN:
        return None
    m = _QUALIFIER.search(text)
    return m.group(0) if m else None


_NUM = r"(?:\d+(?:\.\d*)?|\.\d+)"
_EXP = r"(?:\{\s*([+-]?\d+)\s*\}|([+-]?\d+))"
_PLAIN = re.compile(rf"^([+-]?)({_NUM})$")
_REPEATING = re.compile(r"^([+-]?)(\d*)\.(\d*)\\(?:overline|dot)\s*(?:\{(\d{1,12})\}|(\d))$")
_E_NOTATION = re.compile(rf"^([+-]?)({_NUM})[eE]([+-]?\d+)$")
_SCI = re.compile(rf"^([+-]?)({_NUM})\s*(?:\\times|\\cdot|x|X|\*)\s*10\s*\^\s*{_EXP}$")
_POWER10 = re.compile(rf"^([+-]?)10\s*\^\s*{_EXP}$")
_FRAC = re.compile(rf"^([+-]?)\\frac\s*(?:\{{\s*([+-]?{_NUM})\s*\}}|(\d))\s*(?:\{{\s*([+-]?{_NUM})\s*\}}|(\d))$")
_SLASH = re.compile(rf"^([+-]?)({_NUM})\s*/\s*({_NUM})$")
_MIXED = re.compile(r"^([+-]?)(\d+)\s*(?:\\frac\s*(?:\{\s*(\d+)\s*\}|(\d))\s*(?:\{\s*(\d+)\s*\}|(\d))|\s(\d+)\s*/\s*(\d+))$")


def _divide(num: Fraction, den: Fraction) -> Fraction:
    if den == 0:
        raise Unreadable("the fraction divides by zero")
    return num / den


def _power10(exponent: str) -> Fraction:
    e = int(exponent)
    if abs(e) > MAX_EXPONENT:
        raise Unreadable(f"the exponent {e} is out of range")
    return Fraction(10) ** e


def plain_fraction(core: str) -> Fraction | None:
    """The exact value of a plain number (`12`, `-3.75`, `.5`, `0.\\overline{3}`, `1.2e4`,
    `1.2\\times10^{4}`, `10^{-5}`, `\\frac{15}{4}`, `15/4`, `3\\frac{1}{4}`, `3 1/4`), or
    None for anything else."""
    s = core.strip()
    if not s or len(s) > MAX_DIGITS:
        return None
    if m := _PLAIN.match(s):
        q = Fraction(m.group(2))
    elif not any(c in s for c in "\\/^eEx*"):
        return None
    elif m := _FRAC.match(s):
        q = _divide(Fraction(m.group(2) or m.group(3)), Fraction(m.group(4) or m.group(5)))
    elif m := _SLASH.match(s):
        q = _divide(Fraction(m.group(2)), Fraction(m.group(3)))
    elif m := _MIXED.match(s):
        num = int(m.group(3) or m.group(4) or m.group(7))
        den = int(m.group(5) or m.group(6) or m.group(8))
        if den == 0 or num >= den:
            return None  # `2\frac{3}{2}` is not a mixed number: math-verify reads it
        q = int(m.group(2)) + Fraction(num, den)
    elif m := _E_NOTATION.match(s):
        q = Fraction(m.group(2)) * _power10(m.group(3))
    elif m := _SCI.match(s):
        q = Fraction(m.group(2)) * _power10(m.group(3) or m.group(4))
    elif m := _POWER10.match(s):
        q = _power10(m.group(2) or m.group(3))
    elif m := _REPEATING.match(s):
        whole, fixed, rep = m.group(2) or "0", m.group(3), m.group(4) or m.group(5)
        q = (Fraction(int(whole + fixed + rep) - int(whole + fixed or "0"))
             / (10 ** len(fixed) * (10 ** len(rep) - 1)))
    else:
        return None
    return -q if m.group(1) == "-" else q


def maybe_fraction(text: str) -> Fraction | None:
    """plain_fraction, with None where it raises `Unreadable`."""
    try:
        return plain_fraction(text)
    except Unreadable:
        return None


def sci_exponent(text: str) -> int:
    """The power of ten of a gold written in scientific notation (`6.02\\times10^{23}`,
    `1.6e-19`), else 0: float_round then counts the mantissa's places."""
    try:
        s = clean(text)
    except Unreadable:
        return 0
    if m := _SCI.match(s):
        return int(m.group(3) or m.group(4))
    m = _E_NOTATION.match(s)
    return int(m.group(3)) if m else 0


_TAIL_TOKEN = re.compile(
    r"\\[A-Za-z]+|[A-Za-z\u00b0\u00b5\u03a9][A-Za-z\u00b0\u00b5\u03a9'\-]*(?:\^-?\d)?"
    r"|\d+|%|\S")
_UNIT_EXP = re.compile(r"([A-Za-z\u00b0\u00b5\u03a9]+)\^\{(-?\d)\}")


def _unit_exponent(m: re.Match) -> str:
    """`m^{2}` as `m^2` (one token for the tail), for units only: `e^{-1}` stays math."""
    if words.kind(m.group(1)) == "unit":
        return f"{m.group(1)}^{m.group(2)}"
    return m.group(0)


_TAIL_MARKS = frozenset("/().%\u00b0")


@dataclass(frozen=True)
class _Tail:
    core: str
    percent: bool
    scale: Fraction
    units: tuple[str, ...]


def _split_tail(s: str, labels: frozenset[str] = frozenset()) -> _Tail:
    """The core of a scalar and what follows it: a percent sign, a scale word (`7.5
    million`), a fraction word (`3 halves`), units and labels. A word that is not a unit is
    Unreadable (`12 is wrong`); mathematics (`3 pi`, `3e`) stays in the core."""
    t = _UNIT_EXP.sub(_unit_exponent, s) if "^{" in s else s
    tokens = list(_TAIL_TOKEN.finditer(t))
    i = len(tokens)
    while i > 0:
        tok = tokens[i - 1].group(0)
        if tok not in _TAIL_MARKS:
            if not (tok[0].isalpha() or tok[0] in "\u00b0\u00b5\u03a9"):
                break
            k = words.kind(tok, labels)
            if k == "stop":
                raise Unreadable(f"{tok!r} after the value is not a unit or a label the "
                                 "reader knows: the answer says something other than a value")
            if k in ("math", "number"):
                break
        i -= 1
    tail_tokens = [x.group(0) for x in tokens[i:]]
    # Marks alone (a closing bracket, a period) are not a tail: they belong to the core.
    if not any(x[0].isalpha() or x in ("%", "\u00b0") for x in tail_tokens):
        return _Tail(t.strip(), False, Fraction(1), ())
    # A tail opening a bracket it does not close (`(cm`) or closing one the core opened.
    while tail_tokens and tail_tokens[0] == ")":
        i += 1
        tail_tokens.pop(0)
    if tail_tokens.count("(") != tail_tokens.count(")"):
        raise Unreadable("the words after the value do not read as a unit")
    if "(" in tail_tokens:   # `7 (cm)`: a bracket holds a unit, never a remark
        inside = tail_tokens[tail_tokens.index("("):]
        if any(x[0].isalpha() and x.split("^")[0] not in words.UNITS for x in inside):
            raise Unreadable("a remark in brackets after the value is not a unit")
    core = t[: tokens[i].start()].strip() if i < len(tokens) else t.strip()
    percent, scale, units = False, Fraction(1), []
    rest = [x for x in tail_tokens if x not in "()"]
    if rest and (rest[0] == "%" or words.kind(rest[0]) == "percent"):
        percent = True
        rest = rest[1:]
    if rest and rest[0][0].isalpha():
        k = words.kind(rest[0], labels)
        low = rest[0].lower().split("^")[0]
        if k == "scale":
            scale = Fraction(words.SCALES[low if low in words.SCALES else low[:-1]])
        elif k == "fraction":
            scale = Fraction(1, words.FRACTION_WORDS[low])
        elif k == "subunit":
            scale = words.SUBUNITS[low]
        if scale != 1:   # no scale, fraction or subunit word is 1
            rest = rest[1:]
    named = [x for x in rest if x[0].isalpha()]
    if named and (named[-1].lower() in words.DANGLING
                  or all(words.kind(x, labels) == "connector" for x in named)):
        raise Unreadable("the words after the value name no unit or thing (`12 a`, `12 pairs of`)")
    for x in rest:
        if x == "%" or (x[0].isalpha() and words.kind(x, labels) in ("percent", "scale",
                                                                      "fraction", "subunit")):
            raise Unreadable(f"{x!r} after the units does not read as part of the value")
        if x[0].isalpha():
            units.append(x)
    if not core:
        raise Unreadable("there is no value before the words")
    return _Tail(core, percent, scale, tuple(units))


_MACROS = frozenset("""
frac sqrt pi cdot times div ln log lg exp sin cos tan cot sec csc arcsin arccos arctan
sinh cosh tanh infty binom dbinom tbinom overline dot
""".split())
_PLAIN_MATH = {"sqrt": "\\sqrt", "pi": "\\pi ", "Pi": "\\pi ", "PI": "\\pi ", "ln": "\\ln ",
               "log": "\\log ", "sin": "\\sin ", "cos": "\\cos ", "tan": "\\tan ",
               "exp": "\\exp ", "e": "e"}
_GATE_TOKEN = re.compile(r"\\[A-Za-z]+|[A-Za-z]+|\d+|[+\-*/^_(){}\[\]!.|\s']|.", re.DOTALL)


def expression(core: str) -> str:
    """The core as LaTeX math-verify may read: numbers, operators, brackets, the known
    functions, e and pi; anything else (a variable, a word, a relation) is `Unreadable`."""
    if _EMPTY_POWER.search(core):
        raise Unreadable("an exponent without a number (`12^{+}`) is not a value")
    if _TRAILING_OPERATOR.search(core):
        raise Unreadable("an expression that ends in an operator (`12+`) is not a value")
    out = []
    for m in _GATE_TOKEN.finditer(core):
        tok = m.group(0)
        if tok.startswith("\\"):
            if tok[1:] not in _MACROS:
                raise Unreadable(f"{tok} is not something the grader reads as a number")
            out.append(tok + " ")
        elif tok[0].isalpha():
            if tok in _PLAIN_MATH:
                out.append(_PLAIN_MATH[tok])
            elif tok.lower() == "sqrt":
                out.append("\\sqrt")
            else:
                raise Unreadable(f"{tok!r} is not a number (the answer has a variable or a word)")
        elif tok.isdigit() or tok in "+-/^_(){}[]!.|' " or tok.isspace():
            out.append(tok)
        elif tok == "*":
            out.append("\\cdot ")
        else:
            raise Unreadable(f"{tok!r} does not belong in a number")
    latex = "".join(out).strip()
    latex = _LOG_E.sub(r"\\ln ", latex)
    if _EMPTY_POWER.search(latex):
        raise Unreadable("an exponent without a number (`12^{+}`) is not a value")
    if "\\overline" in latex or "\\dot" in latex:
        raise Unreadable("a repeating decimal is read only as a plain number (`0.\\overline{3}`)")
    if _NUMBER_SUBSCRIPT.search(latex):
        raise Unreadable("a subscript on a number (another base?) is not read")
    if _BARE_FUNCTION.search(latex):
        raise Unreadable("a function name without its argument is not a value")
    if not any(c.isdigit() for c in latex) and "\\pi" not in latex and "e" not in latex:
        raise Unreadable("the answer holds no value")
    if latex.count("{") != latex.count("}") or latex.count("(") != latex.count(")"):
        raise Unreadable("the answer's brackets do not match")
    return _SQRT_BARE.sub(r"\\sqrt{\1\2}", latex)   # `sqrt2`, `sqrt(2)` as plain text


_FUNCTIONS = r"\\(?:ln|log|lg|exp|sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan|sinh|cosh|tanh|sqrt|frac|binom)"
# A function followed by nothing it could apply to: `4 \log`, `\sin +`.
_BARE_FUNCTION = re.compile(_FUNCTIONS + r"\s*(?:$|[+\-*/=)\]}!,])")
_TRAILING_OPERATOR = re.compile(r"(?:[+\-*/^_=]|\\(?:cdot|times|div|pm|mp))\s*$")
_EMPTY_POWER = re.compile(r"\^\s*(?:\{\s*[+\-*'\s]*\}|[+\-*']\s*(?:$|[^\w\\{(]))")
_NUMBER_SUBSCRIPT = re.compile(r"(?<!\\log)(?<!\\log )(?:[\d})]|^)\s*_")
_LOG_E = re.compile(r"\\log\s*_\s*(?:\{\s*e\s*\}|e)\s*")
_SQRT_BARE = re.compile(r"\\sqrt\s*(?:(\d+)|\(([^()]*)\))")


_HEDGE = re.compile(r"^(?:(?:approximately|approx\.?|about|around|roughly|nearly|almost|"
                    r"circa|ca\.)\s+|\\approx(?![A-Za-z])\s*|~\s*)", re.IGNORECASE)
_CURRENCY = re.compile(r"^([+-]?)\s*(US\$|\$|\u20ac|\u00a3|\u00a5|\u20b9|\uffe5|USD|EUR|GBP|JPY"
                       r"|CNY|RMB|INR|Rs\.?|AUD|CAD|CHF)\s*")
_CURRENCY_AFTER = re.compile(r"(?<=[\d.])\s*(\$|\u20ac|\u00a3|\u00a5|\u20b9|\uffe5)$")
_CURRENCY_SYMBOL = {"US$": "$", "USD": "$", "EUR": "\u20ac", "GBP": "\u00a3", "JPY": "\u00a5",
                    "CNY": "\u00a5", "RMB": "\u00a5", "\uffe5": "\u00a5", "INR": "\u20b9",
                    "Rs": "\u20b9", "Rs.": "\u20b9"}
_CURRENCY_WORDS = {"dollar": "$", "dollars": "$", "usd": "$", "euro": "\u20ac",
                   "euros": "\u20ac", "eur": "\u20ac", "gbp": "\u00a3", "yen": "\u00a5",
                   "yuan": "\u00a5", "rupee": "\u20b9", "rupees": "\u20b9", "inr": "\u20b9",
                   "rs": "\u20b9", "jpy": "\u00a5", "cny": "\u00a5", "rmb": "\u00a5",
                   "cad": "CAD", "aud": "AUD", "chf": "CHF", "hkd": "HKD", "sgd": "SGD",
                   "nzd": "NZD", "krw": "KRW", "pounds_sterling": "\u00a3"}
_EQUALS = re.compile(r":=|=|\\approx(?![A-Za-z])|\\equiv(?![A-Za-z])")
# A name on the left of `=`: `x`, `x_1`, `N_{max}`, `\theta`, `P(A)`, `f(3)`, `AB`,
# `\angle ABC`, `|AB|`, a few words (`Total cost`). No digit outside its subscript or
# brackets and no operator: `13 = 12`, `x+1 = 12` and `2x = 12` are not names.
_LABEL = re.compile(
    r"^(?:\\angle\s*|m\s*\\angle\s*)?(?:\\[A-Za-z]+|[A-Za-z][A-Za-z' ]{0,40}?|\|[A-Z]{1,3}\|)"
    r"(?:\s*_\s*(?:\{[^{}=]{1,20}\}|[A-Za-z0-9]))?(?:\s*\([^()=]{0,30}\))?\s*(?:'|\^\{?\*\}?)?$")
_ELLIPSIS = re.compile(r"(?<=\d)\s*(?:\\[lc]?dots|\.\.\.+)\s*$")
_ORDINAL = re.compile(r"(?<=\d)\s*(?:st|nd|rd|th)\b")
_PHRASE_SPLIT = re.compile(r"[\s-]+")
_CONSTANTS = ("e", "\\pi", "pi", "i")


def _number_phrase(s: str) -> tuple[Fraction, bool] | None:
    """A number in words (`twenty-five percent`, `a dozen`, `two thousand twenty-four`) and
    whether a percent follows; None unless every word is a number word."""
    if not s[:1].isalpha() or len(s) > 120:
        return None
    parts = [w for w in _PHRASE_SPLIT.split(s.lower()) if w and w != "and"]
    percent = bool(parts) and parts[-1] in words.PERCENT_WORDS
    if percent:
        parts = parts[:-1]
    if not parts:
        return None
    total, current, seen = 0, 0, False
    for n, w in enumerate(parts):
        if w in ("a", "an") and n == 0 and len(parts) > 1:
            current = 1
        elif w in words.NUMBER_WORDS:
            current += words.NUMBER_WORDS[w]
            seen = True
        elif w in ("hundred", "dozen"):
            current = (current or 1) * words.SCALES[w]
            seen = True
        elif w in ("thousand", "million", "billion", "trillion"):
            total += (current or 1) * words.SCALES[w]
            current, seen = 0, True
        else:
            return None
    return (Fraction(total + current), percent) if seen else None


_NUMBER_WORD_RE = re.compile(r"^([a-z]+)(?:[- ]([a-z]+))?$")


def _number_word(core: str) -> Fraction | None:
    m = _NUMBER_WORD_RE.match(core.lower())
    if not m:
        return None
    a = words.NUMBER_WORDS.get(m.group(1))
    if a is None:
        return None
    if m.group(2) is None:
        return Fraction(a)
    b = words.NUMBER_WORDS.get(m.group(2))
    if b is None or a < 20 or a % 10 or b >= 10:
        return None
    return Fraction(a + b)


def _piece(text: str, approx: bool = False, labels: frozenset[str] = frozenset()) -> Piece:
    s = _HEDGE.sub("", text.strip(), count=1).strip()
    truncated = bool(m := _ELLIPSIS.search(s))
    if m:   # `3.14159\ldots`: the digits shown, an approximation of the value
        s, approx = s[:m.start()].rstrip(), True
    s = _ORDINAL.sub("", s)
    if (q := _number_phrase(s)) is not None:
        return Piece(q[0], None, q[1], None, approx)
    sign, currency = "", None
    if m := _CURRENCY.match(s):
        sign, currency = m.group(1), _CURRENCY_SYMBOL.get(m.group(2), m.group(2))
        s = s[m.end():]
    if (m := _CURRENCY_AFTER.search(s)) and currency is None:   # `1,000.99\$`, `12€`
        currency = _CURRENCY_SYMBOL.get(m.group(1), m.group(1))
        s = s[:m.start()]
    if not s:
        raise Unreadable("there is no value")
    tail = _split_tail(s, labels)
    for sym in filter(None, (_CURRENCY_WORDS.get(u.lower()) for u in tail.units)):
        if currency is not None and currency != sym:
            raise Unreadable("the answer names two currencies")
        currency = sym
    core = sign + tail.core.lstrip("+") if sign else tail.core
    q = plain_fraction(core)
    if q is None and tail.scale == 1 and not tail.units and not tail.percent:
        q = _number_word(core)
    if q is not None:
        text = core if tail.scale == 1 else f"{core}\\cdot {tail.scale}"
        return Piece(q * tail.scale, None, tail.percent, currency, approx, text, truncated)
    if tail.scale != 1:
        raise Unreadable("a scale word follows something other than a plain number")
    return Piece(None, expression(core), tail.percent, currency, approx)


_MV_MISREADS = re.compile(r"[eExX*]|\\overline|\\dot|\d\s*\\frac|\d\s+\d|\{,\}|,")


def plain_latex(core: str) -> str | None:
    """A plain number's text for math-verify (the tests' both-paths check), or None for the
    notations it misreads (`1.2e4` as 1.2·e·4, `0.\\overline{3}`, `3\\frac{1}{4}`, `1,000`)."""
    if _MV_MISREADS.search(core):
        return None
    try:
        return expression(core)
    except Unreadable:
        return None


def mv_value(latex: str):
    """The first sympy object math-verify reads from `latex` , or None."""
    from math_verify import parse

    # A bare `[2,5)` or `\{1,2\}` parses to nothing and a bare `1,2,3` to 1.2: math-verify
    # reads them only inside math delimiters.
    parsed = parse(f"${latex}$", parsing_timeout=None)
    return next((p for p in parsed if not isinstance(p, str)), None)


def _chain(item: str, labels: frozenset[str] = frozenset()) -> Value:
    """One value: `x = 12`, `\\frac{24}{2} = 12`, `x \\approx 3.14`: every piece but a
    leading name."""
    parts = split_top_level(item, _EQUALS)
    seps = [m.group(0) for m in _EQUALS.finditer(item)]
    if len(parts) > 1 and not parts[0] and seps and seps[0].startswith("\\approx"):
        parts, seps = parts[1:], seps[1:]   # `\approx 0.2286`: a hedge, not an equation
    pieces = []
    # `e = ...` or `pi = ...`: a constant on the left is a value, not a name
    if len(parts) > 1 and _LABEL.match(parts[0]) and parts[0].strip() not in _CONSTANTS:
        parts, seps = parts[1:], seps[1:]
    for n, part in enumerate(parts):
        if not part:
            raise Unreadable("an equation has an empty side")
        is_approx = n > 0 and n - 1 < len(seps) and seps[n - 1].startswith("\\approx")
        pieces.append(_piece(part, is_approx, labels))
    return Value(tuple(pieces))


_LIST_SEP = re.compile(r"[,;]| (?:or|and) |\\lor(?![A-Za-z])|\\vee(?![A-Za-z])|\\text\{\s*(?:or|and)\s*\}")
_SET_HEAD = re.compile(r"^(?:[A-Za-z](?:_\{?\w{1,8}\}?)?|[A-Z]{1,3})\s*(?:=|\\in(?![A-Za-z]))\s*(?=\\?\{|\[|\()")
_PLUS_MINUS = re.compile(r"\\(?:pm|mp)(?![A-Za-z])\s*")
_LEADING_JOIN = re.compile(r"^(?:and|or)\s+", re.IGNORECASE)
_COMMA_JOIN = re.compile(r",\s*(?:and|or)\s+", re.IGNORECASE)


def _items(s: str) -> list[str]:
    s = _COMMA_JOIN.sub(", ", _SET_HEAD.sub("", s))  # `7, 21, and 40`
    for left, right in (("\\{", "\\}"), ("{", "}")):
        if s.startswith(left) and s.endswith(right):
            inner = s[len(left):len(s) - len(right)]
            if left not in inner and right not in inner:
                s = inner.strip()
                break
    items = split_top_level(s, _LIST_SEP)
    if len(items) == 1 and s[:1] in "[(" and s[-1:] in "])":
        # `[3, 5, 8]` lists three values; two in brackets would be an interval
        inner = split_top_level(s[1:-1], _LIST_SEP)
        if len(inner) >= 3 and not any(c in s[1:-1] for c in "[]()"):
            items = inner
    if _LEADING_JOIN.match(items[0]):   # `or 12`: an alternative to something unsaid
        raise Unreadable("the answer opens with a conjunction: it offers an alternative")
    out = []
    for item in items:
        item = _LEADING_JOIN.sub("", item).strip()
        if not item:
            raise Unreadable("the list has an empty item")
        signs = _PLUS_MINUS.findall(item)
        if len(signs) == 1:  # `a \pm b` is the two values a-b and a+b
            signs = "-+" if signs[0].startswith("\\pm") else "+-"
            out += [_PLUS_MINUS.sub(sign, item).strip() for sign in signs]
        elif len(signs) > 1:
            raise Unreadable("two \\pm signs in one value")
        else:
            out.append(item)
    return out


def read_values(text: str, expect: int | None = None,
                labels: frozenset[str] = frozenset()) -> tuple[Value, ...]:
    """The values a number answer states, in order (`1,2,2`, `x = -1 or x = 3`, `\\pm 3`).
    `expect`: the gold's count, which decides whether `100,200,300` is a list or one
    number. `labels`: the question's words that may follow a value (words.question_labels)."""
    if len(text) > MAX_LEN:
        raise Unreadable("the answer is too long to be a final value")
    return _read_values(text, expect, labels)


@functools.lru_cache(maxsize=8192)   # the runs of a problem mostly give the same answers
def _read_values(text: str, expect: int | None, labels: frozenset[str]) -> tuple[Value, ...]:
    s = clean(text)
    if not s:
        raise Unreadable("the answer is empty")
    if "\\not" in s or "\\neg" in s:
        raise Unreadable("the answer negates itself (\\not)")
    if (bound := qualifier(s)) is not None:
        raise Unreadable(f"{bound!r} makes the answer a bound or an operation, not a value")
    items = _items(s)
    if expect is not None and len(items) != expect and "," in text:
        alt = _items(clean(text, groups=False))
        if len(alt) == expect:
            items = alt
    return tuple(_chain(item, labels) for item in items)


_CLOCK = re.compile(
    r"^(\d{1,2})\s*(?::|h(?=\d))\s*([0-5]\d)(?:\s*:\s*([0-5]\d))?\s*"
    r"(?:(a\.?\s?m\.?|p\.?\s?m\.?|noon|midnight)|(h|hrs?|hours?|o'clock))?$"
    r"|^(\d{1,2})\.([0-5]\d)\s*(a\.?\s?m\.?|p\.?\s?m\.?)$", re.IGNORECASE)
# A duration in words: `1 hour 20 minutes`, `80 minutes`, `1 h 20 min`.
_DURATION = re.compile(
    r"^(?:(\d+|an?|one)\s*(?:h|hrs?|hours?)(?![a-z])[\s,]*(?:and\s*)?)?"
    r"(?:(\d+)\s*(?:m|mins?|minutes?)?(?![a-z]))?$", re.IGNORECASE)
_CLOCK_HOUR = re.compile(r"^(\d{1,2})\s*(a\.?\s?m\.?|p\.?\s?m\.?|noon|midnight|o'clock)$",
                         re.IGNORECASE)
_CLOCK_WORD = re.compile(r"^(noon|midday|midnight)$", re.IGNORECASE)
_CLOCK_LEAD = re.compile(r"^(?:at\s+|[A-Za-z](?:_\{?\w{1,8}\}?)?\s*=\s*)", re.IGNORECASE)


@dataclass(frozen=True)
class Clock:
    """A time as written, with its marker (`am`, `pm`, `noon`, `midnight`, `duration`) or
    None."""

    hour: int
    minute: int
    second: int
    marker: str | None
    twelve_hour: bool = True   # written without a leading zero: `7:15` may be 19:15

    @property
    def absolute(self) -> int | None:
        """Seconds since midnight when the time is unambiguous, else None (`7:15` could
        be morning or evening)."""
        h = self.hour
        if self.marker in ("am", "midnight"):
            h = 0 if h == 12 else h
        elif self.marker in ("pm", "noon"):
            h = h if h == 12 else h + 12
        elif 1 <= h <= 11 and self.twelve_hour:
            return None   # `7:15`: morning or evening (`07:15` and `12:30` are fixed)
        return ((h % 24) * 60 + self.minute) * 60 + self.second

    @property
    def face(self) -> int:
        """The time on a 12-hour face, in seconds."""
        return ((self.hour % 12) * 60 + self.minute) * 60 + self.second


_MARKERS = {"am": "am", "pm": "pm", "noon": "noon", "midnight": "midnight", "midday": "noon"}


def _marker(text: str | None) -> str | None:
    return _MARKERS.get(text.lower().replace(".", "").replace(" ", "")) if text else None


def read_clock(text: str) -> Clock:
    """A time of day or a duration: `7:15`, `07:15:30`, `9:05 AM`, `7:15 \\text{ p.m.}`,
    `12:00 midnight`, `7 pm`, `noon`."""
    if len(text) > MAX_LEN:
        raise Unreadable("the answer is too long to be a time")
    s = _CLOCK_LEAD.sub("", clean(text, numeric=False)).strip()
    m = _CLOCK.match(s)
    if m and m.group(6):   # `5.30 pm`: a point for the colon, with its marker
        return Clock(int(m.group(6)), int(m.group(7)), 0, _marker(m.group(8)), True)
    if m:
        h, mi, sec = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
        marker = _marker(m.group(4))
        if h > 24 or (h == 24 and (mi or sec)):
            if marker:
                raise Unreadable(f"{s!r} is not a valid time")
            return Clock(h, mi, sec, "duration")   # `31:15` is no time of day
        if marker and not 1 <= h <= 12 and not (h == 0 and marker == "am"):
            raise Unreadable(f"{s!r} is not a valid time")
        return Clock(h, mi, sec, marker, len(m.group(1)) == 1)
    if m := _CLOCK_HOUR.match(s):
        return Clock(int(m.group(1)), 0, 0, _marker(m.group(2)))
    if m := _CLOCK_WORD.match(s):
        return Clock(12, 0, 0, _marker(m.group(1)))
    m = _DURATION.match(s)
    if m and m.group(1) and not m.group(1).isdigit():
        m = _DURATION.match("1 " + s[len(m.group(1)):].lstrip())   # `an hour and 20 minutes`
    if m and (m.group(1) or m.group(2)) and (m.group(1) or re.search(r"[a-z]\s*$", s, re.I)):
        minutes = int(m.group(1) or 0) * 60 + int(m.group(2) or 0)
        return Clock(minutes // 60, minutes % 60, 0, "duration")
    raise Unreadable("the answer is not a time (expected a form such as 7:15 or 7:15 pm)")


def clocks_agree(gold: Clock, pred: Clock) -> bool:
    """Same time. A marker on one side only is compared on the 12-hour face when the other
    side is a 12-hour time without one (gold `7:15`, answer `7:15 pm`); a 24-hour time
    without a marker never matches an ambiguous answer (gold `19:15`, answer `7:15`)."""
    same = (gold.hour, gold.minute, gold.second) == (pred.hour, pred.minute, pred.second)
    if "duration" in (gold.marker, pred.marker):   # `80 minutes` for `1:20`
        return gold.marker in (None, "duration") and same
    ga, pa = gold.absolute, pred.absolute
    if ga is not None and pa is not None:
        return ga % 86400 == pa % 86400
    if ga is None and pa is None:
        return same
    if ga is None:  # the gold is `7:15` on a 12-hour face
        return gold.face == pred.face
    # the gold is fixed, the answer is not: read as written on a 24-hour clock (`5:55` for
    # `05:55` or `5:55 am`), never as the evening (`7:15` is not `19:15`)
    return ga % 86400 == ((pred.hour % 24) * 60 + pred.minute) * 60 + pred.second


_RATIO = re.compile(r"^[^:]+(?::[^:]+)+$")
_RATIO_TO = re.compile(r"(?<=\d)\s+to\s+(?=\d)")


def read_ratio(text: str) -> tuple[Fraction, ...]:
    """`3:2`, `2 : 3 : 5`: the parts, each a plain number."""
    if len(text) > MAX_LEN:
        raise Unreadable("the answer is too long to be a ratio")
    s = _RATIO_TO.sub(":", clean(text)).replace("\\div", "/")
    if s.count("%") == s.count(":") + 1:
        s = s.replace("%", "")   # `60\\%:40\\%`
    if not _RATIO.match(s):
        if (q := maybe_fraction(s)) is not None:   # `\\frac{3}{2}`, `1.5` for `3:2`
            return (q, Fraction(1))
        raise Unreadable("the answer is not a ratio (expected a form such as 3:2)")
    parts = []
    for part in s.split(":"):
        q = plain_fraction(part)
        if q is None:
            raise Unreadable(f"{part.strip()!r} is not a plain number in a ratio")
        parts.append(q)
    return tuple(parts)


def ratios_agree(gold: tuple[Fraction, ...], pred: tuple[Fraction, ...]) -> bool:
    """The same parts up to one positive factor; a zero part only where the other has one."""
    if len(gold) != len(pred) or any((g == 0) != (p == 0) for g, p in zip(gold, pred)):
        return False
    scales = {p / g for g, p in zip(gold, pred) if g != 0}
    return len(scales) <= 1 and all(r > 0 for r in scales)


def gold_shape(text: str) -> Shape:
    """The shape of a number gold: a time (`7:15`, `9:05 AM`: minutes in two digits), a
    ratio (`3:2`), a list (`1, 2, 2`, `\\pm 3`), else a scalar."""
    if ":" not in clean(text, numeric=False):
        return Shape.SCALAR
    try:
        read_clock(text)
    except Unreadable:
        return Shape.RATIO
    return Shape.CLOCK
