"""What a response's final-answer region states for each variable: its `name = value`
lines, else its boxes (docs/cfe-bench.md, "Reading the values"); and plain text from the
LaTeX and Markdown that answers are dressed in (`$\\mathbf{6.25\\times 10^{3}}\\,\\text{kbp}$`
-> `6.25×10^3 kbp`): only presentation goes; what carries meaning (`\\frac`, `\\sqrt`, `^`,
Greek letters) stays for the readers.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from ...answers.surface import group_end
from ...grading.extract import braced  # one brace matcher for the grader and CFE

_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
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
        m = _BOX.search(text)
        if m is None:
            break
        inner = braced(text, m.end() - 1)
        if inner is None:
            break
        text = text[:m.start()] + inner + text[m.end() + len(inner) + 1:]
    return " ".join(text.split()).strip().rstrip(".,;").strip()


_GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon",
          "ϵ": "epsilon", "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota",
          "κ": "kappa", "λ": "lambda", "μ": "mu", "µ": "mu", "ν": "nu", "ξ": "xi",
          "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi",
          "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "gamma", "Δ": "delta",
          "Θ": "theta", "Λ": "lambda", "Ξ": "xi", "Π": "pi", "Σ": "sigma", "Φ": "phi",
          "Ψ": "psi", "Ω": "omega"}
_VARIANTS = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "varrho": "rho",
             "varsigma": "sigma", "ell": "l"}
_DROP = re.compile(r"[\s_\-{}\\$*`'\"]+")
_BULLET = re.compile(r"^\s*(?:[-*•>]+|\d{1,2}[.)]|\(?[a-z]\))\s+", re.I)
MAX_LINE = 4000        # a longer line is not an answer line (and not worth scanning)


def name_key(name: str) -> str:
    """A variable name as matched: `Genome_Size`, `genome size`, `$genome\\_size$` and
    `**genome-size**` all give `genomesize`; `G(jω)` and `G(j\\omega)` give `g(jomega)`."""
    s = plain(name)
    s = "".join(" " + _GREEK[c] + " " if c in _GREEK else c for c in s)
    s = re.sub(r"\\([A-Za-z]+)", lambda m: _VARIANTS.get(m.group(1), m.group(1)), s)
    s = re.sub(r"\b(" + "|".join(_VARIANTS) + r")\b", lambda m: _VARIANTS[m.group(1)], s)
    return _DROP.sub("", s).lower().strip(":.")


@dataclass(frozen=True)
class Stated:
    text: str
    source: str            # "line" or "box"


def clean_value(text: str) -> str:
    s = text.strip()
    for _ in range(3):
        before = s
        s = s.strip().rstrip(".,;").strip()
        if s.count("$") % 2:   # the line's opening `$` was before the name
            s = s[1:] if s.startswith("$") else s[:-1] if s.endswith("$") else s
        for o, c in (("\\[", "\\]"), ("\\(", "\\)")):
            if s.startswith(o) and s.count(o) > s.count(c):
                s = s[2:]
            elif s.endswith(c) and s.count(c) > s.count(o):
                s = s[:-2]
        if s.startswith("**") and s.endswith("**") and len(s) > 4:
            s = s[2:-2]
        if len(s) >= 2 and s[0] == s[-1] == "$":
            s = s.strip("$")
        for o, c in (("\\(", "\\)"), ("\\[", "\\]")):
            if s.startswith(o) and s.endswith(c):
                s = s[2:-2]
        m = _BOX.match(s)
        if m:
            inner = braced(s, m.end() - 1)
            if inner is not None and m.end() + len(inner) + 1 >= len(s.rstrip("$ ")):
                s = inner
        if s == before:
            break
    return s.strip()


def _boxes(text: str) -> list[str]:
    inners = (braced(text, m.end() - 1) for m in _BOX.finditer(text))
    return [i.strip() for i in inners if i is not None and i.strip()]


def top_level_split(text: str, seps: str) -> list[str]:
    parts, depth, cur = [], 0, []
    escaped = False
    for c in text:
        if escaped:   # `\;` and `\,` are spacing, not separators
            cur.append(c)
            escaped = False
            continue
        if c == "\\":
            escaped = True
        elif c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
        if c in seps and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def exact_key(name: str) -> str:
    """A name as written, presentation aside (`**Abab**`, `$Abab$`): case kept."""
    return plain(name).strip(" :.")


def _assignment(segment: str, keys: dict[str, str], key=name_key) -> tuple[str, str] | None:
    """(variable, value) when the segment is `NAME = VALUE` (or `NAME: VALUE`) for a known
    name; each `=` is tried in turn, since a name may hold one (`p_t (for t = 1,3)`)."""
    seg = _BULLET.sub("", segment).strip()
    seg = re.sub(r"^(?:\$+|\\[(\[])\s*|\s*(?:\$+|\\[)\]])$", "", seg).strip()
    m = _BOX.match(seg)
    if m:   # \boxed{name = value}
        inner = braced(seg, m.end() - 1)
        if inner is not None:
            seg = inner
    for sep in ("=", ":"):
        for pos in [i for i, c in enumerate(seg) if c == sep]:
            if sep == "=" and pos + 1 < len(seg) and seg[pos + 1] == "=":
                continue
            lhs = seg[:pos]
            # `Final answer: x = 5`: the name may follow a label.
            for k in {key(lhs), key(lhs.rsplit(":", 1)[-1])}:
                if k in keys:
                    return keys[k], seg[pos + 1:]
        if sep == "=" and "=" in seg:
            break   # an `=` line that names no variable: its `:` is not read either
    return None


def _unclosed(text: str) -> bool:
    return (text.count("\\[") > text.count("\\]") or text.count("$$") % 2 == 1
            or text.count("\\begin{") > text.count("\\end{"))


def _whole_display(lines: list[str], i: int, limit: int = 30) -> str:
    """A line that opens a display (`x = \\[`, `$$`, `\\begin{cases}`) and its following
    lines up to where the display closes (at most `limit`): one value over several lines."""
    text = lines[i]
    j = i + 1
    while _unclosed(text) and j < len(lines) and j - i <= limit:
        text += " " + lines[j]
        j += 1
    return text


def read_answers(region: str, names: Sequence[str]) -> dict[str, Stated]:
    """The stated value of each variable found in `region` (the final-answer text)."""
    # Exact names first; then normalized ones, except where two names normalize alike
    # (`Abab` and `aBab`): those are matched only as written.
    exact = {exact_key(n): n for n in names}
    normalized = [(name_key(n), n) for n in names]
    counts = Counter(k for k, _ in normalized)
    keys = {k: n for k, n in normalized if counts[k] == 1}

    def match(segment: str) -> tuple[str, str] | None:
        return _assignment(segment, exact, exact_key) or _assignment(segment, keys)

    found: dict[str, Stated] = {}
    lines = region.splitlines()
    for i, line in enumerate(lines):
        if len(line) > MAX_LINE or ("=" not in line and ":" not in line):
            continue
        line = _whole_display(lines, i)
        for segment in top_level_split(line, ";"):
            hit = match(segment)
            if hit is None:
                continue
            name, value = hit
            # `a = 1, b = 2` on one line: cut the value where the next variable starts.
            while True:
                parts = top_level_split(value, ",")
                cut = next(((k, nxt) for k, part in enumerate(parts[1:], start=1)
                            for nxt in [match(part)]
                            if nxt is not None), None)
                if cut is None:
                    break
                k, (following, rest) = cut
                head = clean_value(", ".join(parts[:k]))
                if head:
                    found[name] = Stated(head, "line")
                name, value = following, rest
            value = clean_value(value)
            if value:
                found[name] = Stated(value, "line")
    missing = [n for n in names if n not in found]
    if missing:
        boxes = [b for b in _boxes(region) if match(b) is None]
        if len(boxes) >= len(missing):
            for n, b in zip(missing, boxes[-len(missing):]):
                found[n] = Stated(clean_value(b), "box")
        elif len(boxes) == 1 and len(missing) > 1:
            parts = top_level_split(boxes[0], ";")
            if len(parts) != len(missing):
                parts = top_level_split(boxes[0], ",")
            if len(parts) == len(missing) and all(parts):
                for n, part in zip(missing, parts):
                    found[n] = Stated(clean_value(part), "box")
    return found
