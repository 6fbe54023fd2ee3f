"""The final-answer region and the candidate answer (GRADING.md steps 1 and 2).

Step 1: after the last reasoning close marker (markers.split_reasoning: the one list the
runners use too); a reasoning block opened and never closed has no final answer.
Step 2: the last `\\boxed{...}` (or `\\fbox{...}`, `\\boxed 5`) with balanced braces; else
the last explicit statement ("Final answer: X", "The answer is X", "**Answer:** X");
else no answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..markers import split_reasoning

NO_REGION = "the reasoning block was opened and never closed (cut off): no final answer"
NO_CANDIDATE = "no \\boxed{} answer and no final-answer statement"


@dataclass(frozen=True)
class Extraction:
    """What grading reads from one response. `region` is None when the reasoning block
    was never closed; `candidate` is None when the region states no answer."""

    region: str | None
    candidate: str | None
    source: str | None = None  # "boxed" or "statement"

    @property
    def detail(self) -> str | None:
        if self.region is None:
            return NO_REGION
        if self.candidate is None:
            return NO_CANDIDATE
        return None


def final_region(text: str) -> str | None:
    _, final, closed = split_reasoning(text)
    return final if closed else None


MAX_BOX_TRIES = 16
_BOX_RE = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")


def _braced(text: str, start: int) -> str | None:
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
            content = _braced(region, end + (len(rest) - len(stripped)))
            if content is not None:
                return content.strip()
        elif rest[:1] in (" ", "\t"):
            # `\boxed 5`: TeX takes the next token as the argument.
            m = re.match(r"\s+([^\s$\\{}]+|\\[A-Za-z]+)", rest)
            if m:
                return m.group(1).strip()
    return None


# Explicit final-answer statements, in the forms models actually write. X runs to the end
# of its line; a sentence-ending period is dropped later, a decimal point is kept.
_B = r"(?:\*\*|__)?"
_STATEMENT_RE = re.compile(
    r"(?:\bfinal\s+answer" + _B + r"(?:\s+is)?" + _B + r"\s*[:\uff1a]?"
    r"|\bthe\s+(?:final\s+)?answer\s+is" + _B + r"\s*[:\uff1a]?"
    r"|(?:^|\n)[ \t>#*_]*answer" + _B + r"\s*[:\uff1a])"
    # X may sit on the next line ("**Final Answer**\n\n$$12$$"); it starts with a
    # non-space so that a long run of blanks cannot make the regex backtrack.
    r"\s*(?P<x>\S[^\n]*)",
    re.IGNORECASE,
)


def last_statement(region: str) -> str | None:
    found = None
    for m in _STATEMENT_RE.finditer(region):
        x = _clean_statement(m.group("x"))
        if x:
            found = x
    return found


def _clean_statement(x: str) -> str:
    x = x.strip()
    for mark in ("**", "__"):
        x = x.strip().removeprefix(mark).removesuffix(mark)
    x = x.strip().lstrip(":\uff1a").strip()
    m = re.match(r"^\$\$?(.+?)\$\$?", x)
    if m:  # an inline math span right after the statement is the answer
        return m.group(1).strip()
    m = re.match(r"^\\\((.+?)\\\)", x)
    if m:
        return m.group(1).strip()
    # Cut at the end of the sentence: a period followed by a space (a decimal point is
    # followed by a digit) or the end.
    x = re.split(r"(?<!\d)\.(?:\s|$)|(?<=\d)\.(?:\s|$)", x, maxsplit=1)[0]
    return x.strip().rstrip(".").strip()


def extract(text: str) -> Extraction:
    region = final_region(text)
    if region is None:
        return Extraction(None, None)
    boxed = last_boxed(region)
    if boxed:
        return Extraction(region, boxed, "boxed")
    stated = last_statement(region)
    if stated:
        return Extraction(region, stated, "statement")
    return Extraction(region, None)
