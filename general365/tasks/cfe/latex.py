"""Plain text from the LaTeX and Markdown that answers are dressed in
(`$\\mathbf{6.25\\times 10^{3}}\\,\\text{kbp}$` -> `6.25×10^3 kbp`): only presentation goes;
what carries meaning (`\\frac`, `\\sqrt`, `^`, Greek letters) stays for the readers.
"""

from __future__ import annotations

import re

from ...answers.surface import group_end
from ...grading.extract import braced  # one brace matcher for the grader and CFE

# Wrappers whose argument is kept: `\text{kbp}` -> `kbp`.
_WRAPPERS = ("boxed", "fbox", "text", "textrm", "textbf", "textit", "texttt", "mathrm",
             "mathbf", "mathit", "mathsf", "mathtt", "mbox", "operatorname", "boldsymbol",
             "bm", "emph", "textnormal", "displaystyle")
_WRAP_RE = re.compile(r"\\(?:" + "|".join(_WRAPPERS) + r")\s*\{")
_SPACES = re.compile(r"\\[,;:! ]|\\q?quad(?![A-Za-z])|~|\\(?:left|right|big|Big|bigg|Bigg)"
                     r"(?![A-Za-z])|\\(?:displaystyle|textstyle)(?![A-Za-z])")
_DELIMS = re.compile(r"\$+|\\\(|\\\)|\\\[|\\\]")
_MARKDOWN = re.compile(r"\*\*|__|`+")
_DEGREE = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\\circ(?![A-Za-z])|\\degree(?![A-Za-z])")
_SYMBOLS = {r"\times": "×", r"\cdot": "·", r"\%": "%", r"\mu": "µ", r"\Omega": "Ω",
            r"\AA": "Å", r"\approx": "≈", r"\sim": "~", r"\pm": "±", r"\minus": "-"}
_SYMBOL_RE = re.compile("|".join(re.escape(k) + r"(?![A-Za-z])" for k in _SYMBOLS))
_UNICODE = str.maketrans({"−": "-", "–": "-", "‒": "-", "μ": "µ", "⋅": "·", "∙": "·",
                          "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2002": " "})


def unwrap(text: str) -> str:
    """`\\text{a}` -> `a` for the wrappers above, at any depth (braces balanced)."""
    for _ in range(50):   # each pass removes at least one wrapper; 50 bounds hostile input
        m = _WRAP_RE.search(text)
        if m is None:
            return text
        end = group_end(text, m.end() - 1)
        if end < 0:                  # unbalanced: drop the command word only
            text = text[:m.start()] + text[m.end() - 1:]
        else:
            text = text[:m.start()] + text[m.end():end - 1] + text[end:]
    return text


def plain(text: str) -> str:
    """The text without math delimiters, Markdown emphasis, wrappers and spacing commands;
    `\\times`, `\\cdot`, `\\%`, `^\\circ` as `×`, `·`, `%`, `°`; whitespace collapsed."""
    text = text.translate(_UNICODE)
    text = _DELIMS.sub(" ", text)
    text = _MARKDOWN.sub("", text)
    text = unwrap(text)
    text = _DEGREE.sub("°", text)
    text = _SPACES.sub(" ", text)
    text = _SYMBOL_RE.sub(lambda m: _SYMBOLS[m.group(0)], text)
    text = re.sub(r"µ\s+(?=[A-Za-zΩ])", "µ", text)   # `\mu A` is the unit µA
    return " ".join(text.split())


def strip_math(text: str) -> str:
    """A formula as LaTeX for the formula reader: delimiters, `\\boxed`, Markdown and the
    presentation-only commands removed, the mathematics left alone."""
    text = text.translate(_UNICODE)
    text = _DELIMS.sub(" ", text)
    text = _MARKDOWN.sub("", text)
    text = re.sub(r"\\(?:displaystyle|textstyle)(?![A-Za-z])", " ", text)
    for _ in range(10):
        m = re.search(r"\\(?:boxed|fbox)\s*\{", text)
        if m is None:
            break
        inner = braced(text, m.end() - 1)
        if inner is None:
            break
        text = text[:m.start()] + inner + text[m.end() + len(inner) + 1:]
    return " ".join(text.split()).strip().rstrip(".,;").strip()
