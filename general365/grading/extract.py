"""The final-answer region and the candidate answer (docs/grading.md, steps 1 and 2): after
the last reasoning close marker, the last `\\boxed{...}` as a reader sees it, else the last
usable final-answer statement, else a bare answer. A hedge or a retraction right after the
answer stays with it, so the reader sees an answer that is not one value."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..answers.surface import group_close, group_end
from ..markers import final_part

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


TRAILING = 400   # characters read after an answer (a hedge, another answer): bounded work
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
    """The candidate with the hedge or retraction that follows it, if one does (hedge_after)."""
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


# --- the region as a reader sees it: what Markdown, HTML or LaTeX would hide or strike out
# (a comment, a code span, `\phantom`, a white `\textcolor`...) is removed before the last
# box is found (`\boxed{13}<!-- \boxed{12} -->` answers 13). Every pattern is linear or bounded.

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_FENCED = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
# (tags and bodies are bounded: `[^>]*` from every `<` of a text without `>` is quadratic)
_STRUCK = re.compile(r"~~(?=\S)[^\n~]{0,2000}?(?<=\S)~~|<(s|del|strike)\b[^>]{0,300}>"
                     r".{0,20000}?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE)
_HIDDEN_HTML = re.compile(
    r"<(\w+)\b[^>]{0,300}?(?:\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|"
    r"font-size\s*:\s*0)[^>]{0,300}>.{0,20000}?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE)
_IFFALSE = re.compile(r"\\iffalse\b.*?(?:\\fi\b|\Z)", re.DOTALL)
_COMMENT_ENV = re.compile(r"\\begin\{comment\}.*?(?:\\end\{comment\}|\Z)", re.DOTALL)
_MD_COMMENT = re.compile(r"(?m)^[ \t]*\[(?://|comment)\]:\s*(?:#|<>).*$")
_VERB_CMD = re.compile(r"\\verb\*?([^A-Za-z\s])(?:(?!\1).)*(?:\1|$)", re.MULTILINE)
_COMMENT_LINE = re.compile(r"(?m)^[ \t]*%.*$")
# A `%` not escaped and not right after a digit (`25%`), after a closed box on its line.
_LATEX_COMMENT = re.compile(r"(\\(?:boxed|fbox)\s*\{[^\n%]*\}[^\n%]*?)(?<![\\\d])%[^\n]*")
# Macros whose argument is not shown, or shown struck out.
_HIDING = re.compile(r"\\(?:[hv]?phantom|smash|footnote|marginpar|label|sout|st|xout|"
                     r"[bx]?cancel|cancelto\s*\{[^{}]*\}|hide|textcolor\s*\{\s*white\s*\}|"
                     r"colorbox\s*\{\s*white\s*\}\s*\{[^{}]*\}|textcolor\s*\{\s*#?f{3,6}\s*\})"
                     r"(?![A-Za-z])\s*(?=\{)", re.IGNORECASE)
_WHITE = re.compile(r"\\color\s*\{\s*(?:white|#?f{3,6})\s*\}", re.IGNORECASE)
# What can hide text: a region without one of these cues is shown as it is (plain `in`
# tests and one regex anchored on a backslash: a regex of all the cues cost 10 us).
_HIDING_COMMAND = re.compile(r"\\(?:iffalse|begin\s*\{comment|verb|[hv]?phantom|smash|footnote|"
                             r"marginpar|label|sout|st|xout|[bx]?cancel|hide|textcolor|colorbox|color)"
                             r"(?![A-Za-z])")


def _has_cue(region: str) -> bool:
    return ("<" in region or "`" in region or "~~" in region or "%" in region
            or "]:" in region or ("\\" in region and _HIDING_COMMAND.search(region) is not None))
MAX_HIDING = 64


def visible(region: str) -> str:
    """`region` without what a reader would not see (see above)."""
    if not _has_cue(region):
        return region
    for pattern in (_HTML_COMMENT, _STRUCK, _HIDDEN_HTML, _IFFALSE, _COMMENT_ENV,
                    _MD_COMMENT, _VERB_CMD):
        region = pattern.sub(" ", region)
    for pattern in (_FENCED, _INLINE_CODE):   # code shows a box as text, not as an answer
        region = pattern.sub(_code_without_boxes, region)
    if "%" in region and "box" in region:
        region = _COMMENT_LINE.sub("", region)
        region = _LATEX_COMMENT.sub(r"\1", region)
    return _without_hidden_arguments(region)


def _code_without_boxes(m: re.Match) -> str:
    code = m.group(0)
    return " " if ("\\boxed" in code or "\\fbox" in code) else code


def _without_hidden_arguments(region: str) -> str:
    """The argument of each hiding macro, and what a white `\\color` colours (to the end
    of its brace group or math span: `{\\color{white} \\boxed{12}}`), replaced by HIDDEN."""
    for m in reversed(list(_HIDING.finditer(region))[-MAX_HIDING:]):
        end = group_end(region, m.end())
        region = region[:m.start()] + HIDDEN + (region[end:] if end > 0 else "")
    for m in reversed(list(_WHITE.finditer(region))[-MAX_HIDING:]):
        end = group_close(region, m.end(), "$")
        region = region[:m.start()] + HIDDEN + (region[end:] if end >= 0 else "")
    return region


# What stands where hidden content was: a box around it is not read (surface.clean
# refuses it), while a box elsewhere is unaffected.
HIDDEN = " \\hidden "


# --- hedges and retractions around a stated answer (`not \boxed{12}`, `\boxed{12} (or maybe
# 13)`, `\boxed{12}. Actually, it is 13.`): that text is kept with the candidate, so the
# reader, which reads only whole answers, grades it incorrect.

# Right after the answer, on its line: a hedge, an alternative, a question, a negation...
_AFTER_SKIP = r"^[ \t$*_)\].,;:!\u2014\u2013\-\"'`\[{<]*"
_HEDGE_WORDS = (r"or(?!,?\s+(?:equivalently|simply|in\s+other\s+words|written|expressed|as\s+a\s+"
                r"(?:decimal|fraction|percent(?:age)?)))|maybe|perhaps|possibly|probably|"
                r"not\s+sure|unless|wait|hmm+|oops|correction|scratch\s+that|i\s+mean|either|"
                r"nope|nah|actually|on\s+second\s+thought|let\s+me\s+re(?:check|consider|do)|"
                r"just\s+kidding|jk|kidding|though|although|but|plus|versus|vs|wrong|incorrect|"
                r"false|invalid|guess\w*|hopefully|i\s+think|if|approx\w*|about|roughly|around|"
                r"at\s+(?:most|least)|and\s+up|ish|give\s+or\s+take|draft|preliminary|void|"
                r"superseded|unknown|close|ou|oder|o|albo|eller|vagy|veya|peut-[eê]tre|vielleicht|"
                r"quiz[aá]s|tal\s+vez|forse|или|может|возможно|and(?=\s*[-+$\\(\d]|\s+[A-J]\b)")
_RIGHT_AFTER = re.compile(
    _AFTER_SKIP + r"(?:\(\s*)?(?:(?:" + _HEDGE_WORDS + r")\b|no\s*[,:;!.]|no\s+wait\b|"
    r"[?\uff1f\u061f\u203d\u274c\u2717\u2718\u00b1|=\u2192\u2026]|!=|\.\.\.|[:;]-?[()/PDp]|\\(?:to|approx|neq|ne|lor|pm|mp|"
    r"sim|not)(?![A-Za-z])|(?:is|are|was|seems|looks)\s+(?:wrong|incorrect|not|false|invalid|"
    r"unlikely|a\s+guess|uncertain|doubtful)\b|/\s*[\d\\$]|,\s*[-+]?\$?\d|"
    "[\u6216\u4e5f\u8bb8\u5927\u7ea6\u5de6\u53f3\u5427\u3084\u307e\u305f\u306f\ub610\ub294]|"
    "\u4e0d\u786e\u5b9a)",
    re.IGNORECASE)
# A remark in brackets after the answer that doubts it: `(13?)`, `(wrong)`, `(tentative)`.
_DOUBT = re.compile(
    r"[?\uff1f\u00b1]|\b(?:x|wrong|incorrect|false|invalid|not|no|or|maybe|perhaps|possibly|"
    r"probably|guess|unsure|uncertain|unverified|doubt\w*|tentative|rough|ballpark|approx\w*|"
    r"estimate\w*|retract\w*|withdrawn|mistake|erroneous|ignore|placeholder|tbd|random|dummy|"
    r"disputed|hypothetical|arbitrary|assumed|confiden\w*|though|although|plus|also|except|"
    r"unless|jk|kidding|think|if|hopefully|draft|preliminary|void|superseded|unknown|close|off)\b",
    re.IGNORECASE)
_BRACKET_AFTER = re.compile(_AFTER_SKIP + r"[(\[\uff08]([^()\[\]\n\uff08\uff09]{0,120})[)\]\uff09]")
# Numbers that only say how the value was rounded: `(to 2 decimal places)`.
_ROUNDING_NOTE = re.compile(
    r"(?:(?:rounded|correct|accurate)\s+)?(?:to\s+)?(?:\d+|one|two|three|four|five|six)\s*"
    r"(?:decimal\s+places?|decimal|d\.?\s?p\.?|dp|significant\s+(?:figures|digits)|sig\.?\s*figs?|"
    r"s\.?\s?f\.?|places?|digits?)|(?:rounded\s+)?to\s+the\s+nearest\s+(?:whole\s+number|integer|"
    r"tenth|hundredth|thousandth|cent|dollar|unit|degree|minute|second)|\brounded\b|"
    r"\bexact(?:ly)?\b|\bin\s+(?:simplest|lowest)\s+(?:form|terms)\b|\bsimplified\b",
    re.IGNORECASE)
# A later sentence that takes the answer back (no two adjacent parts match the same run of
# characters: the search stays linear).
_RETRACTION = re.compile(
    r"(?:^|[.!?;:\u3002\uff01\uff1f]|\n)[ \t*_#>(\[]*(?:or\s|not\s|\u274c|\u2717|\u2718|actually|wait|hmm+|nope|no\s*[,:;!.]|"
    r"correction|on\s+(?:second\s+thought|reflection)|upon\s+reflection|re-?check\w*|"
    r"scratch\s+that|oops|whoops|just\s+kidding|i\s+(?:was|am)\s+wrong|that'?s\s+wrong|"
    r"or\s+(?:maybe|perhaps|possibly)|alternatively|maybe|perhaps|but\s+i'?m\s+not|"
    r"i'?m\s+not\s+(?:sure|confident)|not\s+sure|edit\b|sorry|hold\s+on|i\s+made\s+a\s+mistake|"
    r"revised|erratum|typo|should\s+be|i\s+meant|disregard|ignore|retract\w*|can'?t\s+be\s+right|"
    r"my\s+bad|wrong|incorrect|false|instead|rather|however|i\s+(?:guess|suppose|believe)|"
    r"probably|possibly|likely|update|corrected|p\.?\s?s\b|make\s+that|it\s+should\s+be|i\s+mean|"
    r"i\s+made\s+an?\s+(?:error|mistake)|typo|(?:this|that|it)\s+(?:can'?t|cannot|doesn'?t|does\s+not|"
    r"won'?t)\s+(?:be\s+right|work)|the\s+above\s+is|nein|\u043d\u0435\u0442|"
    r"\u043e\u0442\u0432\u0435\u0442|r[eé]ponse|\u4e0d\u5bf9|\u7b49\u7b49|\u66f4\u6b63|"
    r"\u9519)"
    r"|\b(?:(?:it|this|that|the\s+answer|my\s+answer|which|\d+)\s+is\s+(?:wrong|incorrect|false|"
    r"not\s+(?:the|my|right|correct))|also\s+possible|"
    r"might\s+(?:also\s+be|be\s+wrong)|could\s+also\s+be|my\s+guess|a\s+guess|i'?d\s+guess|"
    r"real\s+answer|(?:answer|it|this|that)\s+is\s+not|it\s+isn'?t|this\s+answer\s+is|"
    r"the\s+correct\s+(?:value|answer|option|choice|result)\s+is)\b",
    re.IGNORECASE)
# Spacing and table marks between the answer and what follows it: `\boxed{12} \quad or 13`.
_SPACING = re.compile(r"\\(?:quad|qquad|[,;:! ]|enspace|hfill|hspace\s*\{[^{}]*\})|~|&|\\\\|"
                      r"<br\s*/?>|\\\)|\\\]")
# Right before the answer, on its line: a negation of it, or an alternative to it.
_NEGATIONS = frozenset({"not", "never", "nor", "or", "either", "maybe", "perhaps", "possibly",
                        "wrong", "incorrect", "ou", "oder", "rather than", "instead of",
                        "rule out", "ruling out"})
_NOTHING = " \t\n\r.$*_)]}\\"   # what may close an answer and say nothing
# `\\boxed{B}\\text{?}`: the wrapper of a remark does not hide it.
_UNWRAP = re.compile(r"\\(?:text|mathrm|textbf|mathbf|textit|emph)\s*\{|[{}]")
_LETTER = re.compile(r"(?<![A-Za-z\\])[A-J](?![A-Za-z])(?!\s+[a-z])")   # not the article
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# `\\equiv \\boxed{9} \\pmod{11}`: the modulus is not another answer.
_MODULUS = re.compile(r"\\[pb]?mod\s*\{?\s*\d+\s*\}?|\(\s*mod\s*\d+\s*\)", re.IGNORECASE)


def hedge_after(region: str, end: int, answer: str = "", box: bool = False,
                labels: frozenset[str] = frozenset()) -> str:
    """The text after an answer that ends at `end` when it hedges or retracts it, else "".
    After a box, its line may hold only a close (`_quiet_tail`); a statement's line may go on
    to explain itself. Bounded: the first TRAILING characters that show."""
    tail = region[end:end + 8 * TRAILING]
    if not tail.strip(_NOTHING):
        return ""   # the answer ends the response: the common case, nothing to read
    rest = _FILLER.sub(" ", tail)[:TRAILING]
    line = _SPACING.sub(" ", _UNWRAP.sub("", rest.split("\n", 1)[0]))
    if _RIGHT_AFTER.match(line):
        return line.strip()
    m = _BRACKET_AFTER.match(line)
    if m and _DOUBT.search(_ROUNDING_NOTE.sub("", m.group(1))):
        return line.strip()
    if box and answer and _LETTER.fullmatch(answer.strip("() ")) and _LETTER.search(line[:40]):
        return line.strip()   # `\\boxed{B} and C`, `\\boxed{B} (C)`: another option beside it
    shown = _MODULUS.sub("", _ROUNDING_NOTE.sub("", line[:80]))
    if box and set(_NUMBER.findall(shown)) - set(_NUMBER.findall(answer)):
        return line.strip()   # `\\boxed{12} 13?`, `\\boxed{12} {13}`: another value beside it
    if box and not _quiet_tail(line, labels):
        return line.strip()
    m = _RETRACTION.search(rest)
    if m:
        return rest[m.start():].strip().split("\n", 1)[0] or "(retracted)"
    # a later line that names another value (`P.S. 13`, `Update: 13`): two answers
    later = rest.split("\n", 1)[1] if "\n" in rest else ""
    if box:
        later = rest[len(rest.split("\n", 1)[0]):] + " " + _after_first_sentence(line)
    shown = _REFERENCE.sub("", _MODULUS.sub("", _ROUNDING_NOTE.sub("", later)))
    others = set(_NUMBER.findall(shown)) - set(_NUMBER.findall(answer))
    if answer and others:
        return f"(another value follows: {sorted(others)[0]})"
    return ""


# `step 3`, `equation (2)`, `#4`: a reference, not a value.
_REFERENCE = re.compile(r"(?:\b(?:step|part|case|equation|eq|line|figure|fig|table|section|problem|"
                        r"question|item|rule|condition|clue|hint|method|approach)s?\.?|#)\s*\(?\d+\)?",
                        re.IGNORECASE)


def _after_first_sentence(line: str) -> str:
    parts = re.split(r"[.!;](?:\s|$)", line, maxsplit=1)
    return parts[1] if len(parts) > 1 else ""


# Runs that show nothing: math delimiters, spacing commands, white space.
_FILLER = re.compile(r"(?:\$+|\\(?:quad|qquad|[,;:! ]|enspace)|[ \t\u00a0])(?:\s|\$|"
                     r"\\(?:quad|qquad|[,;:! ]|enspace)|\u00a0){7,}")
_CLOSE = re.compile(r"^[\s.,;:!()\[\]{}$*_]*$")
_CHECK = re.compile(r"\\checkmark|[\u2713\u2714\u2705]")
_IS_ANSWER = re.compile(r"^(?:is|are|was|=)?\s*(?:indeed\s+)?(?:the|our|my)?\s*(?:final|required|"
                        r"desired|correct|exact)?\s*(?:answer|result|value|solution|count|total)\b"
                        r"|^is\s+(?:correct|right|exact)\b", re.IGNORECASE)
_EXPLAINS = re.compile(r"^(?:which|since|because|as|from|by|for|where|when|that|using|given|"
                       r"so|thus|hence|this|it|in|of|per|each|with|to)\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z\u00b0\u00b5\u03a9][A-Za-z'\-]*(?:\^-?\d)?")


def _quiet_tail(line: str, labels: frozenset[str]) -> bool:
    """Whether what follows a box on its line only closes it: punctuation, a check mark,
    units or labels, `is the answer`, a rounding note, a modulus, or an explanation with no
    doubt in it (`lol`, `(old)`, `I believe` are not)."""
    from ..answers import words

    rest = _CHECK.sub(" ", _MODULUS.sub(" ", _ROUNDING_NOTE.sub(" ", line))).strip()
    rest = re.sub(r"^[\s,;:)\]}$*_]+", "", rest)
    # only the clause the box ends: a new sentence is read as a later line (_RETRACTION)
    rest = re.split(r"[.!;](?:\s|$)", rest, maxsplit=1)[0].strip()
    if _CLOSE.match(rest) or _IS_ANSWER.match(rest):
        return True
    if _EXPLAINS.match(rest):
        return not _DOUBT.search(rest)
    rest = re.sub(r"^\((.*)\)[\s.,;:]*$", r"\1", rest)   # `(cm)`, `(to 2 places)`
    found = _WORD.findall(rest)
    leftover = _WORD.sub(" ", rest)
    if not found or not _CLOSE.match(re.sub(r"[/()\s^{}0-9-]", "", leftover) or "."):
        return False
    return all(words.kind(w, labels) in ("unit", "connector") for w in found)


def negated_before(region: str, start: int) -> str:
    """The words right before an answer that negate it or offer it as an alternative
    (`not \\boxed{12}`, `13 or \\boxed{12}`), else ""."""
    line_start = region.rfind("\n", 0, start) + 1
    before = region[max(line_start, start - 120):start]
    # the last two words hold the negation (string tests: a regex cost 10 us a box)
    core = before.rstrip(" \t$([*_:,\\").lower()
    last = core.split()[-2:]
    if not last:
        return ""
    one, two = last[-1], " ".join(last)
    if one in _NEGATIONS or two in _NEGATIONS or one.endswith("n't") \
            or one.startswith(("reject", "exclud", "\\not")) or core.endswith("\u6216"):
        return two
    return ""
