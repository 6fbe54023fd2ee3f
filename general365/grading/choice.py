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
_SEP = r"(?:\s*(?:,|;|/|&|\+|\band\b|\s)\s*)"
_TOKEN = r"(?:\(([A-Z])\)|\[([A-Z])\]|([A-Z])(?![A-Za-z]))"
_LIST_RE = re.compile(rf"^{_TOKEN}(?:{_SEP}?{_TOKEN})*$")
_TOKEN_RE = re.compile(_TOKEN)
# Runs of letters only from A-J, so that a capitalised word ("NO", "YES") is not a run.
_RUN_RE = re.compile(r"^[A-J]{2,10}$")
_LEADING_RE = re.compile(r"^(?:\(([A-Z])\)|([A-Z])[.):])\s+\S")


def letters(candidate: str | None) -> frozenset[str] | None:
    """The option letters a candidate names, or None when it names none."""
    if not candidate:
        return None
    s = normalize(candidate).replace("$", "")
    s = _PREFIX.sub("", s).strip().rstrip(".").strip()
    if not s:
        return None
    if _LIST_RE.match(s):
        found = [a or b or c for a, b, c in _TOKEN_RE.findall(s)]
        return frozenset(found)
    if _RUN_RE.match(s) and len(set(s)) == len(s):
        return frozenset(s)  # "BD": distinct capitals run together
    m = _LEADING_RE.match(s)
    if m:
        return frozenset(m.group(1) or m.group(2))
    return None


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
