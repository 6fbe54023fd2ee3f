"""Notation: what an answer means once its wrapping is gone, shared by both paths of the
rule grader (the fast path in exact.py and the math-verify path read the same normalised
text, so they cannot disagree about notation).

- `normalize`: math delimiters, Markdown bold, `\\text{}`, spacing, unicode signs, thousands
  separators, hedges ("approximately 3.14"), scale words (`7.5 million`), repeating decimals
  (`0.\\overline{3}`), set-builder sets, ISO open brackets (`]a,b[`).
- `qualifier`: words that make a number a bound or an operation (`7 or more`, `7 squared`).
- `value_items`: the values a number answer lists (`1,2,2`, `\\{-1, 3\\}`, `x = -1 or x = 3`,
  `\\pm 3`), each item normalised, so both paths count and read the same values.

Every regex here is linear: no nested quantifiers over the same characters.
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal
from fractions import Fraction

_MAX_QUALIFIED_LEN = 480

# --- normalisation ------------------------------------------------------------------

_TEXT_CMD = re.compile(r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|mbox|operatorname)\s*\{([^{}]*)\}")
_SPACING = re.compile(r"\\[,;:!> ]|\\quad|\\qquad|~")
_THOUSANDS = re.compile(r"(?<![\d.])(\d{1,3})((?:,\d{3})+)(?![\d,])")
_THOUSANDS_SPACE = re.compile(r"(?<![\d.,])(\d{1,3})((?: \d{3})+)(?![\d.,])")
_THOUSANDS_LATEX = re.compile(r"(?<=\d)\{,\}(?=\d{3})")
# Plain characters and commands that mean the same as the LaTeX the parsers read.
_CHARS = (("\u2212", "-"), ("\u2013", "-"), ("\uff0d", "-"), ("\ufe63", "-"), ("\u00a0", " "),
          ("\u2009", " "), ("\u202f", " "), ("\u221e", "\\infty"), ("\u222a", "\\cup"),
          ("\u2264", "\\le "), ("\u2265", "\\ge "), ("\u2a7d", "\\le "), ("\u2a7e", "\\ge "),
          ("\u2208", "\\in "), ("\u2248", "\\approx "), ("\u03bc", "\u00b5"))
_COMMANDS = (("\\dfrac", "\\frac"), ("\\tfrac", "\\frac"), ("\\displaystyle", ""),
             ("\\left", ""), ("\\right", ""), ("\\$", ""), ("**", ""),
             ("\\leqslant", "\\le "), ("\\geqslant", "\\ge "), ("\\leq", "\\le"),
             ("\\geq", "\\ge"), ("\\cdot", "\\times"), ("^{\\circ}", "\u00b0 "),
             ("^\\circ", "\u00b0 "), ("\\degree", "\u00b0 "), ("\\Omega", "\u03a9 "),
             ("\\mu", "\u00b5 "))
# A hedge before the value ("approximately 3.14", "\approx 3.14") states the value.
_HEDGE = re.compile(r"^(?:(?:approximately|approx\.?|about|around|roughly|nearly|almost)\s+"
                    r"|\\approx(?![A-Za-z])\s*)", re.IGNORECASE)
# Scale words multiply: `7.5 million` is 7500000, `7 dozen` is 84.
_SCALE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?) ?(thousand|million|billion|trillion|dozen)s?\b",
                    re.IGNORECASE)
_SCALES = {"thousand": 10 ** 3, "million": 10 ** 6, "billion": 10 ** 9,
           "trillion": 10 ** 12, "dozen": 12}
# A repeating decimal: 0.\overline{3} is 1/3, 2.1\overline{6} is 13/6.
_REPEATING = re.compile(r"(?<![\d.])(\d*)\.(\d*)\\(?:overline|dot)\s*(?:\{(\d{1,12})\}|(\d))")
# Set-builder notation: `\{x \mid 2\le x<5\}` is the set its condition describes.
_SET_BUILDER = re.compile(r"^\\\{\s*[A-Za-z]\s*(?:\\in\s*(?:\\mathbb\s*\{?R\}?|\\R)\s*)?"
                          r"(?:\\mid(?![A-Za-z])|\||:)\s*(.+)\\\}$")


def _scaled(m: re.Match) -> str:
    value = Decimal(m.group(1)) * _SCALES[m.group(2).lower()]
    return format(value.normalize() if value == value.to_integral() else value, "f")


def _repeating(m: re.Match) -> str:
    whole, fixed, rep = m.group(1) or "0", m.group(2), m.group(3) or m.group(4)
    q = (Fraction(int(whole + fixed + rep) - int(whole + fixed or "0"))
         / (10 ** len(fixed) * (10 ** len(rep) - 1)))
    return str(q.numerator) if q.denominator == 1 else f"\\frac{{{q.numerator}}}{{{q.denominator}}}"


_CACHED_LEN = 1000  # longer texts are rare (a candidate past the fast path's limits)


def normalize(text: str) -> str:
    """`_normalize(text)`, remembered: one answer is normalised by several readers (the
    qualifier check, the value reader, the list splitter) and recurs across the runs of
    its problem."""
    if len(text) > _CACHED_LEN:
        return _normalize(text)
    return _normalize_cached(text)


def _normalize(text: str) -> str:
    """Strip the wrapping that carries no value: math delimiters, Markdown bold, `\\text{}`,
    spacing commands, `\\left`/`\\right`, a trailing period, a hedge ("approximately"),
    unicode signs, thousands separators (`12,000`, `12{,}000`, `12\\,000`, `12 000`); and
    rewrite notations the parsers do not read (scale words, repeating decimals, set-builder
    sets, ISO open brackets `]a,b[`)."""
    s = text.strip()
    for a, b in _CHARS:
        s = s.replace(a, b)
    for a, b in _COMMANDS:
        s = s.replace(a, b)
    s = re.sub(r"(?<=\d)\\,(?=\d{3}\b)", "", s)  # 12\,000 before spacing is dropped
    s = _SPACING.sub(" ", s)
    for _ in range(3):  # \text{\textbf{x}} nests a little
        s = _TEXT_CMD.sub(r" \1 ", s)
    s = s.strip()
    for left, right in (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")):
        if s.startswith(left) and s.endswith(right) and len(s) >= len(left) + len(right):
            s = s[len(left): len(s) - len(right)].strip()
    s = s.rstrip(" .;")
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r" ?\^", "^", s)  # `\text{ cm}^2`: the exponent belongs to the unit
    s = _HEDGE.sub("", s)
    s = _THOUSANDS_LATEX.sub("", s)
    s = _THOUSANDS.sub(lambda m: m.group(1) + m.group(2).replace(",", ""), s)
    s = _THOUSANDS_SPACE.sub(lambda m: m.group(1) + m.group(2).replace(" ", ""), s)
    s = _SCALE.sub(_scaled, s)
    s = _REPEATING.sub(_repeating, s)
    m = _SET_BUILDER.match(s)
    if m:
        s = m.group(1).strip()
    if s.startswith("]"):  # ISO 31-11: `]a,b[` is (a,b), `[a,b[` is [a,b)
        s = "(" + s[1:]
    if s.endswith("[") and "," in s:
        s = s[:-1] + ")"
    s = re.sub(r"(\\cup\s*)\]", r"\1(", s)
    s = re.sub(r"\[(\s*\\cup)", r")\1", s)
    return s


_normalize_cached = functools.lru_cache(maxsize=8192)(_normalize)


# Words that make a number a bound or an operation, not a value: `7 or more`, `at most 7`,
# `7 squared`. Such an answer does not state the value, whatever the number.
_QUALIFIER = re.compile(
    r"\b(?:or\s+(?:more|fewer|less|greater|higher|lower|above|below|so)|at\s+(?:most|least)"
    r"|up\s+to|(?:more|less|fewer|greater|higher|lower)\s+than|no\s+(?:more|less|fewer)"
    r"|squared|cubed|to\s+the\s+power)\b", re.IGNORECASE)


def qualifier(text: str) -> str | None:
    """The qualifying words of a number answer (`or more`, `at most`...), or None."""
    if len(text) > _MAX_QUALIFIED_LEN:
        return None
    m = _QUALIFIER.search(normalize(text))
    return m.group(0) if m else None


# --- the values of a number answer ----------------------------------------------------

# The label before a set of values: `x = \{-1, 3\}`, `x \in \{-1, 3\}`.
_SET_HEAD = re.compile(r"^[A-Za-z](?:_\{?\w{1,8}\}?)?\s*(?:=|\\in(?![A-Za-z]))\s*(?=\\\{)")
# `\pm`, `\mp` and the characters ± and ∓ (read here, not in normalize(): only lists need them).
_PLUS_MINUS = re.compile(r"(?:\\(?:pm|mp)(?![A-Za-z])|[\u00b1\u2213]) ?")
# What joins the values of a list at the top level: `,`, `;`, "or", "and"
# (`x = -1 \text{ or } x = 3`, `-1 and 3`; normalize() has made the spacing single).
_LIST_SEPARATOR = re.compile(r"[,;]| (?:or|and) |\\lor(?![A-Za-z])|\\vee(?![A-Za-z])")


def value_items(text: str) -> list[str]:
    """The values a number answer lists, each normalised, in order: `1,2,2` gives three;
    a set `\\{-1, 3\\}` (also `x \\in \\{-1, 3\\}`), `x = -1 \\text{ or } x = 3` and
    `-1 \\text{ and } 3` give two; `\\pm 3` (one plus-minus sign in an item) gives `-3` and
    `+3`. One value gives a list of one. A plain scan and linear regexes: safe on any text."""
    s = _SET_HEAD.sub("", normalize(text))
    if s.startswith("\\{") and s.endswith("\\}"):
        inner = s[2:-2]
        if "\\{" not in inner and "\\}" not in inner:  # one set, not `\{1\}\cup\{2\}`
            s = inner.strip()
    out: list[str] = []
    for item in _top_level_split(s):
        signs = _PLUS_MINUS.findall(item)
        if len(signs) == 1:  # `a \pm b` is the two values a-b and a+b
            first, second = (("-", "+") if signs[0].startswith(("\\pm", "\u00b1"))
                             else ("+", "-"))
            out.append(_PLUS_MINUS.sub(first, item).strip())
            out.append(_PLUS_MINUS.sub(second, item).strip())
        else:
            out.append(item)
    return out


def _top_level_split(s: str) -> list[str]:
    """`s` cut at `,`, `;` and the connectives that stand outside any bracket."""
    return split_top_level(s, _LIST_SEPARATOR)


def split_top_level(s: str, separator: re.Pattern) -> list[str]:
    """`s` cut at the matches of `separator` that stand outside any bracket, each piece
    stripped. One pass over `s` for the depths, one `finditer`: linear."""
    matches = list(separator.finditer(s))
    if not matches:
        return [s.strip()]
    depths, depth = [], 0
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        depths.append(depth)
    items, start = [], 0
    for m in matches:
        if depths[m.start()] == 0:
            items.append(s[start:m.start()].strip())
            start = m.end()
    items.append(s[start:].strip())
    return items
