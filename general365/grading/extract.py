"""The final-answer region and the candidate answer (GRADING.md steps 1 and 2).

Step 1: after the last reasoning close marker (markers.final_part: the one list the
runners use too); a reasoning block opened and never closed has no final answer.
Step 2: the last non-empty `\\boxed{...}` (or `\\fbox{...}`, `\\boxed 5`) with balanced
braces; else, of all explicit statements ("Final answer: X", "The answer is X", "**Answer:**
X"...), the last one whose X is usable for the answer type (docs/grading.md); else no answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..markers import final_part

NO_REGION = "the reasoning block was opened and never closed (cut off): no final answer"
NO_CANDIDATE = "no \\boxed{} answer and no final-answer statement"
EMPTY_BOX = "the final \\boxed{} is empty: no answer is stated"


@dataclass(frozen=True)
class Extraction:
    """What grading reads from one response. `region` is None when the reasoning block
    was never closed; `candidate` is None when the region states no answer."""

    region: str | None
    candidate: str | None
    source: str | None = None  # "boxed" or "statement"; "empty_box" when there is no candidate
    # because the only box (or the box a statement points at) is empty

    @property
    def detail(self) -> str | None:
        if self.region is None:
            return NO_REGION
        if self.candidate is None:
            return EMPTY_BOX if self.source == "empty_box" else NO_CANDIDATE
        return None


def final_region(text: str) -> str | None:
    return final_part(text)


MAX_BOX_TRIES = 16
_BOX_RE = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")
# What states nothing: `\boxed{}`, `\boxed{\text{ }}`, `$\boxed{}$`, `\boxed{\quad}`. Each
# alternative starts with a different character, so the match is linear.
_BLANK_RE = re.compile(
    r"(?:\s|[{}$*]|\\(?:boxed|fbox|text|textbf|textit|textrm|mathrm|mathbf|mbox|quad|qquad"
    r"|phantom|displaystyle)(?![A-Za-z])|\\[,;:! ])*")


def is_blank(text: str) -> bool:
    """True when `text` is only empty boxes, empty `\\text{}`, spacing and math delimiters."""
    return _BLANK_RE.fullmatch(text) is not None


def braced(text: str, start: int) -> str | None:
    """The content of the brace group opening at text[start] == '{', or None if unclosed."""
    depth = 0
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:  # \{ and \} are literal braces, not groups
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1: i]
        i += 1
    return None


def last_boxed(region: str) -> str | None:
    """The content of the last complete `\\boxed{...}` in `region`."""
    starts = [m.end() for m in _BOX_RE.finditer(region)]
    # Each try may scan to the end of the region: a bounded number of tries keeps a text of
    # thousands of unclosed boxes linear.
    for end in reversed(starts[-MAX_BOX_TRIES:]):
        rest = region[end:]
        stripped = rest.lstrip()
        if stripped.startswith("{"):
            content = braced(region, end + (len(rest) - len(stripped)))
            # `\boxed{}` states nothing (is_blank, inlined: this runs on every response)
            if content is not None and _BLANK_RE.fullmatch(content) is None:
                return content.strip()
        elif rest[:1] in (" ", "\t"):
            # `\boxed 5`: TeX takes the next token as the argument.
            m = re.match(r"\s+([^\s$\\{}]+|\\[A-Za-z]+)", rest)
            if m:
                return m.group(1).strip()
    return None


# Explicit final-answer statements, in the forms models actually write. Only the statement
# itself is matched here (no answer group, nothing that can backtrack): the candidate is
# read after it by plain string scanning (`_candidate_after`).
_B = r"(?:\*\*|__)?"
_VERB = r"(?:is|are|will\s+be|would\s+be|should\s+be|must\s+be)"
_STATEMENT_RE = re.compile(
    r"\b(?:final|correct|best|right)\s+answer" + _B + r"(?:\s+" + _VERB + r")?" + _B
    + r"[ \t]*[:\uff1a]?" + _B +
    r"|\b(?:the|my|our)\s+answer\s+" + _VERB + _B + r"[ \t]*[:\uff1a]?" + _B +
    r"|(?:^|\n)[ \t>#*_]*answer" + _B + r"[ \t]*[:\uff1a]" + _B +
    # a heading alone on its line ("**Answer**" then the answer below it)
    r"|(?:^|\n)[ \t>#*_]*answer[ \t*_]*(?=\n)"
    r"|\u7b54\u6848[ \t]*(?:\u662f|\u4e3a)?[ \t]*[:\uff1a]?",
    re.IGNORECASE,
)
MAX_STATEMENTS = 64  # candidates tried from the last one back: bounded work on any text
MAX_CANDIDATE = 300


def statement_candidates(region: str) -> list[str]:
    """The candidate after every final-answer statement of the region, in order."""
    ends = [m.end() for m in _STATEMENT_RE.finditer(region)][-MAX_STATEMENTS:]
    out = []
    for end in ends:
        x = _candidate_after(region, end)
        if x and not is_blank(x):  # "The final answer is $\boxed{}$" states nothing
            out.append(x)
    return out


def last_statement(region: str, usable: Callable[[str], bool] | None = None) -> str | None:
    """The candidate of the last statement that is usable for the answer type (`usable`,
    default: non-empty); when none is usable, the last one (so the grader says why it is
    wrong rather than "no answer")."""
    found = statement_candidates(region)
    if not found:
        return None
    if usable is not None:
        for x in reversed(found):
            if usable(x):
                return x
    return found[-1]


_MATH_SPANS = (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$"), ("**", "**"), ("__", "__"))
# Where a stated answer ends: the reason or remark that follows it. Applied to one line.
_CUT_RE = re.compile(
    r"\.(?:\s|$)|;(?=\s*(?:[a-z]|[A-Z][a-z]))|\s+\((?=[a-z]|[A-Z][a-z])"
    r"|,?\s+(?:because|since|as|which|so|where|hence|thus|therefore|given|meaning)\b"
    r"|,?\s+(?:i\.e\.|e\.g\.)|,\s*(?:that|and\s+so|this)\b"
    r"|\s+[\u2014\u2013]\s+|\s+-\s+(?=[a-z])")
# "The minimum value is 7": the sentence's lead-in is not the answer.
_LEAD_IN_RE = re.compile(
    r"^(?:the|its|it|this|that|our|we\s+get|so)\b[^$\\\d=\n]{0,80}?\s(?:is|are|equals|was|=)\s+",
    re.IGNORECASE)


def _candidate_after(region: str, end: int, depth: int = 0) -> str:
    if depth > 3:  # `** ** ** ...`: wrapping that never ends is not an answer
        return ""
    rest = region[end: end + 4 * MAX_CANDIDATE + 1000]
    x = rest.lstrip(" \t:\uff1a")
    if x.startswith("\n"):  # the answer sits below the statement (a heading)
        x = x.lstrip()
    for left, right in _MATH_SPANS:
        if x.startswith(left):
            close = x.find(right, len(left))
            if close > len(left):
                inner = x[len(left): close].strip()
                if left in ("**", "__"):  # bold: the answer may still be math inside it
                    return _candidate_after(inner, 0, depth + 1) if inner else ""
                return inner
    if x[:2] in ("**", "__"):  # an unpaired bold mark
        return _candidate_after(x[2:], 0, depth + 1)
    line = x.split("\n", 1)[0][:MAX_CANDIDATE]
    m = _CUT_RE.search(line)
    if m:
        line = line[: m.start()]
    line = line.strip().strip("*_").strip()
    m = _LEAD_IN_RE.match(line)
    if m and m.end() < len(line):
        line = line[m.end():]
        if line[:1] in ("$", "\\", "*"):
            return _candidate_after(line, 0, depth + 1)
    return line.strip().rstrip(".").strip()


def extract(text: str, usable: Callable[[str], bool] | None = None) -> Extraction:
    """Steps 1 and 2. `usable(candidate)` says whether a statement's candidate could be an
    answer of the problem's type (see `usable_for`); boxes are taken as they are."""
    region = final_region(text)
    if region is None:
        return Extraction(None, None)
    boxed = last_boxed(region)
    if boxed:
        return Extraction(region, boxed, "boxed")
    stated = last_statement(region, usable)
    if stated:
        return Extraction(region, stated, "statement")
    if _BOX_RE.search(region) and any(is_blank(c) for c in _box_contents(region)):
        return Extraction(region, None, "empty_box")
    return Extraction(region, None)


def _box_contents(region: str) -> list[str]:
    """The contents of the region's last complete boxes (only for the rare no-answer case)."""
    out = []
    for m in list(_BOX_RE.finditer(region))[-MAX_BOX_TRIES:]:
        rest = region[m.end():]
        stripped = rest.lstrip()
        if stripped.startswith("{"):
            content = braced(region, m.end() + (len(rest) - len(stripped)))
            if content is not None:
                out.append(content)
    return out


_VALUE_START = set("0123456789+-.\\$([{]\u2212\u221e\u03c0\u221a\u2205\uff0d\u00b1")
_HEDGES = ("approximately ", "approx", "about ", "around ", "roughly ", "nearly ", "almost ")
_VAR_RE = re.compile(
    r"^[A-Za-z](?:_\{?\w{1,8}\}?)?\s*(?:=|<|>|\\in|\\le|\\ge|\\lt|\\gt|\u2264|\u2265|\\approx)")


def _looks_like_value(x: str) -> bool:
    """A number or interval candidate starts like one: a digit, a sign, math (`$`, `\\`,
    brackets), `x = ...` / `x \\in ...` / `x < ...`, or a hedge before a value. Prose that
    mentions a number later ("consistent with step 3") does not."""
    x = x.lstrip()
    if not x:
        return False
    if x[0] in _VALUE_START or _VAR_RE.match(x):
        return True
    low = x.lower()
    return any(low.startswith(h) for h in _HEDGES) and any(c.isdigit() for c in x)


def usable_for(answer_type) -> Callable[[str], bool] | None:
    """Whether a statement's candidate could answer a problem of this type: a number or an
    interval starts like a value (`_looks_like_value`), a choice names option letters; any
    non-empty text answers a text problem. Cheap and linear, as it runs in the parent."""
    from ..schema import AnswerType
    from .choice import letters

    t = AnswerType(answer_type)
    if t.is_rule_graded:
        return _looks_like_value
    if t.is_choice:
        return lambda x: letters(x) is not None
    return None
