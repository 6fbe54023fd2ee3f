"""The final-answer region and the candidate answer (docs/grading.md, steps 1 and 2): after
the last reasoning close marker, the last `\\boxed{...}` as a reader sees it, else the last
usable final-answer statement, else a bare answer. A hedge or a retraction right after the
answer stays with it, so the reader sees an answer that is not one value."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..answers.surface import group_end
from ..markers import final_part
from .hedges import hedge_after, negated_before
from .shown import visible

NO_REGION = "the reasoning block was opened and never closed (cut off): no final answer"
NO_CANDIDATE = "no \\boxed{} answer and no final-answer statement"
EMPTY_BOX = "the final \\boxed{} is empty: no answer is stated"
OPEN_BOX = "the final \\boxed{ is never closed: no answer is stated"


@dataclass(frozen=True)
class Extraction:
    """`region` None: the reasoning block never closed; `candidate` None: no answer stated."""

    region: str | None
    candidate: str | None
    source: str | None = None  # "boxed", "statement" or "bare"; "empty_box"/"open_box" when none

    @property
    def detail(self) -> str | None:
        if self.region is None:
            return NO_REGION
        if self.candidate is None:
            return {"open_box": OPEN_BOX, "empty_box": EMPTY_BOX}.get(self.source, NO_CANDIDATE)
        return None


final_region = final_part


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
    end = group_end(text, start)
    return None if end < 0 else text[start + 1: end - 1]


def last_boxed(region: str) -> str | None:
    """The content of the last `\\boxed{...}`, or None when there is none or it is empty or
    unclosed (an earlier box does not stand in for it)."""
    found = _last_box(region)
    return (found[0] or None) if found is not None else None


def _last_box(region: str) -> tuple[str | None, int, int] | None:
    """(content, start, end) of the last box (content None: unclosed, "": blank), or None.
    A box inside another is part of the outer one's content."""
    matches = list(_BOX_RE.finditer(region))[-MAX_BOX_TRIES:]
    for n in range(len(matches) - 1, -1, -1):
        m = matches[n]
        found = _box_at(region, m)
        if found is None:
            continue
        if region.count("{", 0, m.start()) <= region.count("}", 0, m.start()):
            return found   # no brace is open here: no box can hold this one (two C scans)
        for outer in matches[:n]:   # the outermost box that holds this one
            got = _box_at(region, outer)
            if got is not None and got[0] is not None and got[2] > m.start():
                return got
        return found
    return None


def _box_at(region: str, m: re.Match) -> tuple[str | None, int, int] | None:
    end = m.end()
    rest = region[end:]
    stripped = rest.lstrip()
    if stripped.startswith("{"):
        start = end + (len(rest) - len(stripped))
        content = braced(region, start)
        if content is None:
            return None, m.start(), len(region)
        return ("" if is_blank(content) else content.strip()), m.start(), start + len(content) + 2
    if rest[:1] in (" ", "\t"):
        # `\boxed 5`: TeX takes the next token as the argument.
        t = re.match(r"\s+([^\s$\\{}]+|\\[A-Za-z]+)", rest)
        if t:
            return t.group(1).strip(), m.start(), end + t.end()
    return None   # `\boxed` followed by nothing it can take: not a box


_DIGITS = re.compile(r"\d+")


def _another_answer(region: str, end: int, content: str) -> str:
    """Another answer stated after the last box (`\\boxed{12}. So 13.`): the response gives
    two. Numbers are compared as written; option letters as letters."""
    from .choice import letters

    after = region[end:end + TRAILING]
    if not after.strip(" \t\n.$*_"):
        return ""   # the box ends the response: the common case, nothing to read
    later = statement_candidates(after) + _VALUE_LINE.findall(after)
    mine = set(_DIGITS.findall(content))
    my_letters = letters(content) if not mine else None
    for x in later:
        theirs = set(_DIGITS.findall(x))
        if theirs and theirs != mine:
            return f"or {x}"
        if not theirs and my_letters:
            other = letters(x)
            if other and other != my_letters:
                return f"or {x}"
    return ""


# A later line that states a value outright: `So 13.`, `Therefore 13`, `= 13`, `x = 13`.
_VALUE_LINE = re.compile(
    r"(?:^|[.!?]\s|\n)[ \t*_#>]*(?:so|therefore|thus|hence|total|ans|answer|result|=|"
    r"[A-Za-z]\s*=)[ \t]*:?[ \t$]*(-?\d[\d.,/]*)", re.IGNORECASE)


TRAILING = 400
_REDEFINES = re.compile(r"\\(?:(?:re)?newcommand|providecommand|def|edef|gdef|xdef|let|catcode|"
                        r"DeclareMathOperator|DeclareRobustCommand|renewenvironment)(?![A-Za-z])")


# Explicit final-answer statements; only the statement is matched (nothing can backtrack),
# the candidate is read after it by plain string scanning (`_candidate_after`).
_B = r"(?:\*\*|__)?"
_VERB = r"(?:is|are|will\s+be|would\s+be|should\s+be|must\s+be)"
_STATEMENT_RE = re.compile(
    r"\b(?:final|correct|best|right)\s+answer" + _B + r"(?:\s+" + _VERB + r")?" + _B
    + r"[ \t]*[:\uff1a]?" + _B +
    r"|\b(?:the|my|our)\s+answers?\s+" + _VERB + _B + r"[ \t]*[:\uff1a]?" + _B +
    r"|\b(?:the\s+)?correct\s+(?:options?|choices?)" + _B + r"(?:\s+" + _VERB + r")?" + _B
    + r"[ \t]*[:\uff1a]?" + _B +
    r"|(?:^|\n)[ \t>#*_]*(?:final\s+)?(?:answer|result|solution)" + _B + r"[ \t]*(?:[:\uff1a]|"
    r"[\u2014\u2013]|--)" + _B +
    r"|\b(?:the|my|our)\s+(?:final\s+)?answer" + _B + r"[ \t]*[:\uff1a]" + _B +
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
    """The candidate of the last statement usable for the answer type; when none is, the
    last one (so the grader says why it is wrong rather than "no answer")."""
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
    r"(?<!\bRs)(?<!\bvs)(?<!\bca)(?<!approx)(?<!\b[ap]\.m)(?<!\bNo)\.(?:\s|$)|;(?=\s*(?:[a-z]|[A-Z][a-z]))|\s+\((?=[a-z]|[A-Z][a-z])"
    r"|,?\s+(?:because|since|as|which|so|where|hence|thus|therefore|given|meaning)\b"
    r"|,?\s+(?:i\.e\.|e\.g\.)|,\s*(?:that|and\s+so|this)\b|,?\s+or,?\s+equivalently\b"
    r"|\s+[\u2014\u2013]\s+|\s+-\s+(?=[a-z])")
# "The minimum value is 7": the sentence's lead-in is not the answer.
_LEAD_IN_RE = re.compile(
    r"^(?:the|its|it|this|that|our|we\s+get|so)\b(?:[^$\\\d=\n]|\$[A-Za-z](?:_\{?\w{1,6}\}?)?\$)"
    r"{0,80}?\s(?:is|are|equals|was|=)\s+",
    re.IGNORECASE)


def _candidate_after(region: str, end: int, depth: int = 0) -> str:
    if depth > 3:  # `** ** ** ...`: wrapping that never ends is not an answer
        return ""
    rest = region[end: end + 4 * MAX_CANDIDATE + 1000]
    x = rest.lstrip(" \t:\uff1a}")   # `\textbf{Final Answer:} 12`: the wrapper closes here
    if x.startswith("\n"):  # the answer sits below the statement (a heading)
        x = x.lstrip()
    for left, right in _MATH_SPANS:
        if x.startswith(left):
            close = _find_closing(x, right, len(left))
            if close > len(left):
                inner = x[len(left): close].strip()
                after = close + len(right)
                if left in ("**", "__"):  # bold: the answer may still be math inside it
                    inner = _candidate_after(inner, 0, depth + 1) if inner else ""
                return _with_hedge(inner, x, after)
    if x[:2] in ("**", "__"):  # an unpaired bold mark
        return _candidate_after(x[2:], 0, depth + 1)
    line = x.split("\n", 1)[0][:MAX_CANDIDATE]
    cut = len(line)
    m = _CUT_RE.search(line)
    if m:
        cut = m.start()
    head = line[:cut].strip().strip("*_").strip()
    m = _LEAD_IN_RE.match(head)
    if m and m.end() < len(head):
        head = head[m.end():]
        if head[:1] in ("$", "\\", "*"):
            inner = _candidate_after(head, 0, depth + 1)
            return _with_hedge(inner, x, cut)
    return _with_hedge(head.strip().rstrip(".").strip(), x, cut)


def _find_closing(text: str, right: str, start: int) -> int:
    """The index of `right` closing a span at or after `start`; an escaped `\\$` (money
    inside math, `$\\$124$`) does not close a `$` span."""
    i = text.find(right, start)
    while right.startswith("$") and i > 0 and text[i - 1] == "\\":
        i = text.find(right, i + 1)
    return i


def _with_hedge(candidate: str, text: str, end: int) -> str:
    """The candidate with the hedge or retraction that follows it, if one does (hedges.py)."""
    if not candidate:
        return candidate
    hedge = hedge_after(text, end, candidate)
    return f"{candidate} {hedge}" if hedge else candidate


def extract(text: str, usable: Callable[[str], bool] | None = None,
            labels: frozenset[str] = frozenset()) -> Extraction:
    """Steps 1 and 2. `usable`: see `usable_for` (boxes are taken as they are). `labels`:
    the question's words, which may follow a box (`\\boxed{12} hexominoes`)."""
    region = final_region(text)
    if region is None:
        return Extraction(None, None)
    if "\\" in region and _REDEFINES.search(region):
        # `\\renewcommand{\\boxed}[1]{13}\\boxed{12}` shows 13: unreadable, never the box's text
        return Extraction(region, "\\hidden (the response redefines macros)", "boxed")
    shown = visible(region)
    box = _last_box(shown)
    if box is not None:
        content, start, end = box
        if content is None:
            return Extraction(region, None, "open_box")
        if not content:
            return Extraction(region, None, "empty_box")
        before = negated_before(shown, start)
        after = hedge_after(shown, end, content, box=True, labels=labels) \
            or _another_answer(shown, end, content)
        candidate = " ".join(x for x in (before, content, after) if x)
        return Extraction(region, candidate, "boxed")
    stated = last_statement(shown, usable)
    if stated:
        return Extraction(region, stated, "statement")
    bare = _bare_answer(shown, usable)
    if bare:
        return Extraction(region, bare, "bare")
    return Extraction(region, None)


MAX_BARE = 80
_SIGN_OFF = re.compile(r"^(?:(?:so|therefore|thus|hence|ans)\b|\u2234|=)[ \t:,=]*", re.IGNORECASE)


def _bare_answer(region: str, usable: Callable[[str], bool] | None) -> str | None:
    """A final part that is nothing but the answer (`$12$`): one short usable line, never
    for text answers (any line would do)."""
    s = region.strip()
    if usable is None or not s or "\n" in s or len(s) > MAX_BARE:
        return None
    s = _SIGN_OFF.sub("", s)   # `Therefore 12.`, `So $12$.`, `\u2234 12`, `= 12`
    for left, right in _MATH_SPANS:
        if s.startswith(left) and s.endswith(right) and len(s) > len(left) + len(right):
            s = s[len(left):len(s) - len(right)].strip()
            break
    s = s.rstrip(".").strip()
    return s if s and usable(s) else None


_VALUE_START = set("0123456789+-.\\$([{]\u2212\u221e\u03c0\u221a\u2205\uff0d\u00b1")
_HEDGES = ("approximately ", "approx", "about ", "around ", "roughly ", "nearly ", "almost ")
_VAR_RE = re.compile(
    r"^[A-Za-z](?:_\{?\w{1,8}\}?)?\s*(?:=|<|>|\\in|\\le|\\ge|\\lt|\\gt|\u2264|\u2265|\\approx)")


def _looks_like_value(x: str) -> bool:
    """A number or interval candidate starts like one (a digit, a sign, math, `x = ...`, a
    hedge before a value); prose that mentions a number later does not."""
    x = x.lstrip()
    if not x:
        return False
    if x[0] in _VALUE_START or _VAR_RE.match(x):
        return True
    low = x.lower()
    return any(low.startswith(h) for h in _HEDGES) and any(c.isdigit() for c in x)


def usable_for(answer_type) -> Callable[[str], bool] | None:
    """Whether a statement's candidate could answer a problem of this type (None: any
    non-empty text, for text problems). Cheap and linear: it runs in the parent."""
    from ..schema import AnswerType
    from .choice import letters

    t = AnswerType(answer_type)
    if t.is_rule_graded:
        return _looks_like_value
    if t.is_choice:
        return lambda x: letters(x) is not None
    return None
