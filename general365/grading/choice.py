"""The deterministic option-letter grader for `single_choice` and `multiple_choice`.

A candidate names option letters when, once its wrapping is gone (`\\boxed`, `\\text{}`,
`$`, Markdown bold, "Option"/"Options"/"Choice"), it is nothing but capital letters and
separators: `B`, `B, D`, `B and D`, `(B)(D)`, `BD`, `B/D`, or one letter followed by its
option's text (`B. 42`, `(B) Paris`). Correct means all and only the gold letters, in any
order. A candidate that is an option's full text, or a sentence, names no letter: the
grader answers INCORRECT with the reason, and in the cascade the judge may still rescue it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..schema import Status
from .exact import normalize

_PREFIX = re.compile(r"^(?:(?:the\s+)?(?:correct\s+)?(?:options?|choices?|answers?)\s*(?:is|are)?\s*[:\-]?\s*)?(?:both\s+)?",
                     re.IGNORECASE)
# Split, never one big regex: nested optional separators backtrack exponentially.
_SPLIT_RE = re.compile(r"\s*(?:,|;|/|&|\+|\band\b)\s*|\s+")
_PIECE_RE = re.compile(r"^(?:\(([A-Z])\)|\[([A-Z])\]|([A-Z]))$")
# Runs of letters only from A-J, so that a capitalised word ("NO", "YES") is not a run.
_RUN_RE = re.compile(r"^[A-J]{2,10}$")
# One letter then its option's text: `B. 42`, `(B) Paris`, `C - 42`, `C — Paris`, `C (42)`.
_LEADING_RE = re.compile(r"^(?:\(([A-Z])\)|([A-Z])(?:[.):]|\s+[-\u2013\u2014:]|(?=\s+\()))\s*\S")
# Wide and CJK separators, and a letter list wrapped as a set or a list (`\{B, D\}`).
_SEPARATORS = (("\\&", "&"), ("\u3001", ","), ("\uff0c", ","), ("\uff1b", ";"))


def letters(candidate: str | None) -> frozenset[str] | None:
    """The option letters a candidate names, or None when it names none."""
    if not candidate or len(candidate) > 400:  # a list of letters is short
        return None
    s = normalize(candidate).replace("$", "")
    for a, b in _SEPARATORS:
        s = s.replace(a, b)
    s = _PREFIX.sub("", s).strip().rstrip(".").strip()
    if not s or len(s) > 200:  # a list of letters is short; bounds the regex work too
        return None
    for left, right in (("\\{", "\\}"), ("{", "}"), ("[", "]")):
        inner = s[len(left): len(s) - len(right)]
        if (s.startswith(left) and s.endswith(right) and inner.strip()
                and left not in inner and right not in inner):
            s = inner.strip()
            break
    found = _letter_list(s)
    if found:
        return found
    found = _options_with_text(s)
    if found:
        return found
    if _RUN_RE.match(s) and len(set(s)) == len(s):
        return frozenset(s)  # "BD": distinct capitals run together
    m = _LEADING_RE.match(s)
    if m:
        return frozenset(m.group(1) or m.group(2))
    return None


def _letter_list(s: str) -> frozenset[str] | None:
    """`B, D`, `B and D`, `(B)(D)`, `[B] [D]`: every piece a single (bracketed) capital."""
    s = s.replace(")(", ") (").replace("][", "] [")
    found = []
    for piece in _SPLIT_RE.split(s):
        if not piece:
            continue
        m = _PIECE_RE.match(piece)
        if not m:
            return None
        found.append(m.group(1) or m.group(2) or m.group(3))
    return frozenset(found) or None


def _options_with_text(s: str) -> frozenset[str] | None:
    """`B. 42, D. 17`: comma-separated options, each a letter followed by its text."""
    parts = [p.strip() for p in s.split(",")]
    if len(parts) < 2:
        return None
    found = []
    for part in parts:
        m = _LEADING_RE.match(part)
        if not m:
            return None
        found.append(m.group(1) or m.group(2))
    return frozenset(found)


@dataclass(frozen=True)
class ChoiceResult:
    status: Status
    letters: frozenset[str] | None
    detail: str | None = None


def gold_letters(answer: str) -> frozenset[str] | None:
    return letters(answer)


def grade_choice(gold: frozenset[str], candidate: str | None, *, single: bool) -> ChoiceResult:
    if candidate is None:
        return ChoiceResult(Status.NO_ANSWER, None, "no \\boxed{} answer and no final-answer statement")
    found = letters(candidate)
    if found is None:
        return ChoiceResult(Status.INCORRECT, None, "the answer names no option letter")
    if single and len(found) != 1:
        return ChoiceResult(Status.INCORRECT, found, "more than one option for a single-choice question")
    return ChoiceResult(Status.CORRECT if found == gold else Status.INCORRECT, found)
