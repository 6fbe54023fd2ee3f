"""The surface of an answer: what a reader sees once typesetting is gone. `clean` undoes only
what never changes a value (delimiters, Markdown emphasis, spacing, unicode spellings of
LaTeX, wrappers that only style their content); what a reader cannot see (an invisible
character, `\\phantom`) is `Unreadable`. Every regex is linear, the wrapper scan bounded.
"""

from __future__ import annotations

import re


class Unreadable(ValueError):
    """The answer cannot be read as the gold's shape; the message says why."""


# Format and invisible characters: a number with one inside does not read as it shows.
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f"
                        "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]")
_HIDDEN = re.compile(r"\\(?:[hv]?phantom|hidden)(?![A-Za-z])")

_CHARS = {
    "\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2010": "-", "\u2011": "-", "\uff0d": "-",
    "\ufe63": "-", "\uff0b": "+", "\u00d7": "\\times ", "\u22c5": "\\cdot ",
    "\u00b7": "\\cdot ", "\u2219": "\\cdot ", "\u00f7": "\\div ", "\u221e": "\\infty ",
    "\u222a": "\\cup ", "\u2229": "\\cap ", "\u2264": "\\le ", "\u2265": "\\ge ",
    "\u2a7d": "\\le ", "\u2a7e": "\\ge ", "\u2260": "\\neq ", "\u2208": "\\in ",
    "\u2248": "\\approx ", "\u03c0": "\\pi ", "\u221a": "\\sqrt", "\u2205": "\\emptyset ",
    "\u211d": "\\mathbb{R}", "\u03bc": "\u00b5", "\u2126": "\u03a9", "\u2044": "/",
    "\u2215": "/", "\uff0e": ".", "\uff0c": ",", "\uff08": "(", "\uff09": ")",
    "\u00a2": " cents ", "\uff1a": ":", "\uff05": "%", "\uff04": "\ue000", "\u3001": ",",
    "\u2026": "\\ldots ", "\u2236": ":", "\u00b1": "\\pm ", "\u2213": "\\mp ", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'",
}
_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\t\r\n]")
_FULLWIDTH_DIGITS = {chr(0xFF10 + d): str(d) for d in range(10)}
_FULLWIDTH_DIGITS.update({chr(0xFF21 + i): chr(65 + i) for i in range(26)})
_SUPERSCRIPTS = str.maketrans("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
                              "\u207b\u207a", "0123456789-+")
_SUPER_RUN = re.compile("[\u2070\u00b9\u00b2\u00b3\u2074-\u2079\u207b\u207a]+")
_SUBSCRIPTS = str.maketrans("\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089",
                            "0123456789")
_SUB_RUN = re.compile("[\u2080-\u2089]+")
_VULGAR = {"\u00bd": (1, 2), "\u2153": (1, 3), "\u2154": (2, 3), "\u00bc": (1, 4),
           "\u00be": (3, 4), "\u2155": (1, 5), "\u2156": (2, 5), "\u2157": (3, 5),
           "\u2158": (4, 5), "\u2159": (1, 6), "\u215a": (5, 6), "\u2150": (1, 7),
           "\u215b": (1, 8), "\u215c": (3, 8), "\u215d": (5, 8), "\u215e": (7, 8),
           "\u2151": (1, 9), "\u2152": (1, 10)}
_VULGAR_RE = re.compile("[" + "".join(_VULGAR) + "]")

_COMMANDS = (
    ("\\dfrac", "\\frac"), ("\\tfrac", "\\frac"), ("\\cfrac", "\\frac"),
    ("\\displaystyle", " "), ("\\textstyle", " "), ("\\limits", ""),
    ("\\leqslant", "\\le "), ("\\geqslant", "\\ge "), ("\\leq", "\\le "), ("\\geq", "\\ge "),
    ("\\ne ", "\\neq "), ("\\lt", "<"), ("\\gt", ">"), ("\\infin", "\\infty"),
    ("^{\\circ}", "\u00b0 "), ("^\\circ", "\u00b0 "), ("\\degree", "\u00b0 "),
    ("\\%", "%"), ("\\$", "\ue000"), ("\\euro", "\u20ac"), ("\\pounds", "\u00a3"),
    ("\\yen", "\u00a5"), ("\\colon", ":"), ("\\Omega", "\u03a9 "), ("\\mu", "\u00b5 "),
    ("\\ast", "*"), ("{:}", ":"), ("\\nicefrac", "\\frac"), ("\\sfrac", "\\frac"),
    ("\\textdollar", "\ue000"), ("per cent", "percent"), ("\\lbrace", "\\{"), ("\\rbrace", "\\}"), ("\\{,\\}", "{,}"),
)
_SIZING = re.compile(r"\\(?:left|right|[Bb]igg?[lr]?|middle)(?![A-Za-z])\s*(\\[{}|]|[()\[\]|.])?"
                     r"|\\(?:tiny|scriptsize|footnotesize|small|normalsize|large|Large|LARGE|huge|Huge|"
                     r"scriptscriptstyle|scriptstyle|ignorespaces)(?![A-Za-z])")
# `{24 \over 2}`: TeX's primitive fraction.
_OVER = re.compile(r"\{([^{}]*)\\over(?![A-Za-z])([^{}]*)\}")
# Wrappers whose content is what they show. Text-like ones hold words or a symbol.
_STYLE = ("boxed", "fbox", "underline", "mathbf", "textbf", "bm", "boldsymbol", "mathit",
          "textit", "emph", "textup", "textsl", "mathsf", "textsf", "mathtt", "texttt",
          "mathrm", "text", "textrm", "textnormal", "mbox", "hbox", "operatorname",
          "mathnormal", "pmb", "mathbfit", "bf", "it", "rm", "num", "SI")
_WRAPPER = re.compile(r"\\(textcolor|colorbox|color|" + "|".join(_STYLE) + r")(?![A-Za-z])\s*")
_SPACING = re.compile(r"\\[,;:!> ]|\\(?:quad|qquad|enspace|thinspace|medspace|thickspace|"
                      r"negthinspace|space)(?![A-Za-z])|~")
_DELIMS = re.compile(r"\$+|\\[()\[\]]|\*\*|__|`")
_MAX_WRAPPERS = 64


def group_close(text: str, start: int, stop: str = "") -> int:
    """The index of the `}` that closes the brace group holding position `start`, or of a
    `stop` character met outside any inner group; -1 when neither comes. `\\{` and `\\}`
    are literal braces, not groups."""
    depth = 0
    i, n = start, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and c in stop:
            return i
        i += 1
    return -1


def group_end(text: str, start: int) -> int:
    """The index just past the brace group opening at text[start] == '{', or -1 when it is
    never closed."""
    end = group_close(text, start + 1)
    return -1 if end < 0 else end + 1


def _unwrap(s: str) -> str:
    """Style wrappers replaced by their content, the last (innermost) first."""
    for _ in range(4):
        changed = False
        for m in reversed(list(_WRAPPER.finditer(s))[-_MAX_WRAPPERS:]):
            name, at = m.group(1), m.end()
            if s[at:at + 1] != "{":
                if name in ("bf", "it", "rm"):  # `{\bf 12}`: the switch goes
                    s = s[:m.start()] + " " + s[at:]
                    changed = True
                continue
            end = group_end(s, at)
            if end < 0:
                continue
            if name == "color":  # `\color{red} 12` and `\color{red}{12}`: the colour goes
                s = s[:m.start()] + " " + s[end:]
            elif name in ("textcolor", "colorbox"):  # `\textcolor{red}{12}`: the colour goes
                s = s[:m.start()] + s[end:].lstrip()
                at = m.start()
                end = group_end(s, at) if s[at:at + 1] == "{" else -1
                if end < 0:
                    continue
                s = s[:at] + s[at + 1:end - 1] + s[end:]
            else:
                shown = _spaced(s[at + 1:end - 1])
                if shown[:1].isalpha() and m.start() > 0 and s[m.start() - 1].isalpha():
                    shown = " " + shown  # `\pi\mathrm{m}`: the macro's name ends here
                s = s[:m.start()] + shown + s[end:]
            changed = True
        if not changed:
            return s
    return s


def _spaced(inner: str) -> str:
    """A wrapper's content in place: words keep a space either side (`7\\text{cm}` is
    `7 cm`); a symbol or a number joins its neighbours (`\\mathrm{e}^{2}` is `e^{2}`)."""
    core = inner.strip()
    if sum(c.isalpha() for c in core) >= 2 or " " in core:
        return f" {inner} "
    # `9\pi\text{ m}`, `C\text{ (42)}`: a space written inside stays a space
    return (" " if inner[:1].isspace() else "") + core + (" " if inner[-1:].isspace() else "")


# Thousands separators: groups of exactly three digits after a comma, `{,}`, `,\!` or a
# space (`12,000`, `12{,}000`, `12\,000`, `12 000`), never after a decimal point.
_GROUP_COMMA = re.compile(r"(?<![\d.])([1-9]\d{0,2})((?:,\d{3})+)(?![\d])(?!,\d)")
_GROUP_SPACE = re.compile(r"(?<![\d.,])([1-9]\d{0,2})((?: \d{3})+)(?![\d,/])(?!\.\d+ \d)")
_GROUP_LATEX = re.compile(r"(?<=\d)(?<!(?<!\d)0)(?:\{,\}|,\\!|\\,|\\!)\s*(?=\d{3}(?!\d))")


def clean(text: str, *, numeric: bool = True, groups: bool = True) -> str:
    """The answer as a reader sees it. A wrapper's content stays as it is (`\\mathrm{e}` is
    e, `\\text{ cm}` the word cm). Thousands separators are joined only when `numeric` (a
    scalar or list gold) and `groups` (False reads `100,200,300` as a list)."""
    if _INVISIBLE.search(text):
        raise Unreadable("the answer holds invisible characters, so it does not read as shown")
    if _HIDDEN.search(text):
        raise Unreadable("the answer hides part of itself (\\phantom, white text, a redefined "
                         "macro)")
    s = _SPACES.sub(" ", text)
    if any(c in s for c in _CHARS) or any("\uff10" <= c <= "\uff3a" for c in s):
        s = "".join(_CHARS.get(c) or _FULLWIDTH_DIGITS.get(c) or c for c in s)
    s = _SUPER_RUN.sub(lambda m: "^{" + m.group(0).translate(_SUPERSCRIPTS) + "}", s)
    s = _SUB_RUN.sub(lambda m: "_{" + m.group(0).translate(_SUBSCRIPTS) + "}", s)
    s = _VULGAR_RE.sub(lambda m: "\\frac{%d}{%d}" % _VULGAR[m.group(0)], s)
    for a, b in _COMMANDS:
        if a in s:
            s = s.replace(a, b)
    s = _SIZING.sub(lambda m: m.group(1) or "", s) if "\\" in s else s
    if "\\over" in s:
        s = _OVER.sub(r"\\frac{\1}{\2}", s)
    if "\\" in s:
        s = _unwrap(s)
    s = _DELIMS.sub(" ", s).replace("\ue000", "$")  # an escaped `\$` is money, not math
    if "\u00b5" in s or "\u03a9" in s:  # `\mu\text{m}`: the prefix and its unit are one word
        s = re.sub("([\u00b5])\\s+(?=[A-Za-z])", r"\1", s)
    if numeric:
        s = _GROUP_LATEX.sub("", s)
    s = _SPACING.sub(" ", s)
    s = " ".join(s.split())
    if numeric and groups:
        s = _GROUP_COMMA.sub(lambda m: m.group(1) + m.group(2).replace(",", ""), s)
        s = _GROUP_SPACE.sub(lambda m: m.group(1) + m.group(2).replace(" ", ""), s)
    s = s.strip().rstrip(" .;,")
    s = re.sub(r"\s*\^\s*", "^", s)  # `\text{ cm}^2`: the exponent belongs to the unit
    return s.strip()
