"""The deterministic option-letter grader for `single_choice` and `multiple_choice`: a
candidate names letters when, unwrapped, it is only letters and separators (`B, D`, `(B)(D)`,
`BD`, `b and d`) or one letter and its option's text (`B. 42`). Correct means all and only
the gold letters; a sentence names no letter (INCORRECT, with the reason)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..schema import Status
from ..answers.surface import Unreadable, clean

_PREFIX = re.compile(r"^(?:(?:the\s+)?(?:correct\s+)?(?:options?|choices?|answers?)\s*(?:is|are)?\s*[:\-]?\s*)?(?:both\s+)?",
                     re.IGNORECASE)
# Split, never one big regex: nested optional separators backtrack exponentially.
_SPLIT_RE = re.compile(r"\s*(?:,|;|/|&|\+|\band\b)\s*|\s+")
_PIECE_RE = re.compile(r"^(?:\(([A-Z])\)|\[([A-Z])\]|([A-Z]))\)?$")
_LOWER_PIECE_RE = re.compile(r"^(?:\(([a-j])\)|\[([a-j])\]|([a-j]))$")
_LOWER_LEADING_RE = re.compile(r"^\(([a-j])\)\s*\S")
# Runs of letters only from A-J, so that a capitalised word ("NO", "YES") is not a run.
_RUN_RE = re.compile(r"^[A-J]{2,10}$")
# One letter then its option's text: `B. 42`, `(B) Paris`, `C - 42`, `C — Paris`, `C (42)`.
_LEADING_RE = re.compile(r"^(?:\(([A-Z])\)|([A-Z])(?:[.):]|\s+[-\u2013\u2014:]|(?=\s+\()))\s*\S")
# Wide and CJK separators, and a letter list wrapped as a set or a list (`\{B, D\}`).
_SEPARATORS = (("\\&", "&"), ("\u3001", ","), ("\uff0c", ","), ("\uff1b", ";"))


def normalize(text: str) -> str:
    """The candidate as shown (surface.clean), or "" when it hides part of itself."""
    try:
        return clean(text, numeric=False)
    except Unreadable:
        return ""


# Words after an option letter that take it back or hedge it: `B (or C)`, `B. is wrong`.
_OPTION_TEXT_STOP = re.compile(
    r"\b(?:or|nor|not|no|wrong|false|incorrect|untrue|maybe|perhaps|possibly|probably|unless|"
    r"except|either|neither|but|is|are|isn't|aren't|answer|option|choice)\b", re.IGNORECASE)
_DOUBT_WORDS = re.compile(r"\b(?:doubt\w*|tentative|guess\w*|unsure|uncertain|retract\w*|"
                          r"confiden\w*|unverified|though|although|plus|also)\b", re.IGNORECASE)
_ONLY = re.compile(r"^(?:only\s+)|(?:\s+only)$", re.IGNORECASE)


def _option_text_ok(text: str) -> bool:
    """The text after an option letter is that option's text, not a comment on it."""
    return "?" not in text and not _OPTION_TEXT_STOP.search(text) \
        and not _MENTION_RE.search(text) and not _DOUBT_WORDS.search(text)


def letters(candidate: str | None) -> frozenset[str] | None:
    """The option letters a candidate names, or None when it names none."""
    if not candidate or len(candidate) > 400:  # a list of letters is short
        return None
    s = normalize(candidate).replace("$", "")
    for a, b in _SEPARATORS:
        s = s.replace(a, b)
    s = _PREFIX.sub("", s).strip().rstrip(".").strip()
    s = _ONLY.sub("", s).strip()
    if not s or len(s) > 200:  # a list of letters is short; bounds the regex work too
        return None
    for left, right in (("\\{", "\\}"), ("{", "}"), ("[", "]")):
        inner = s[len(left): len(s) - len(right)]
        if (s.startswith(left) and s.endswith(right) and inner.strip()
                and left not in inner and right not in inner):
            s = inner.strip()
            break
    found = _letter_list(s) or _letter_list(s, _LOWER_PIECE_RE)
    if found:
        return frozenset(c.upper() for c in found)
    found = _options_with_text(s)
    if found:
        return found
    if _RUN_RE.match(s) and len(set(s)) == len(s):
        return frozenset(s)  # "BD": distinct capitals run together
    m = _LEADING_RE.match(s) or _LOWER_LEADING_RE.match(s)
    if m and _option_text_ok(s[m.end() - 1:]):
        return frozenset((m.group(1) or m.group(2)).upper())
    return None


def _letter_list(s: str, piece_re: re.Pattern = _PIECE_RE) -> frozenset[str] | None:
    """`B, D`, `(B)(D)`, `[B] [D]`: every piece one (bracketed) letter of `piece_re`."""
    s = s.replace(")(", ") (").replace("][", "] [")
    found = []
    for piece in _SPLIT_RE.split(s):
        if not piece:
            continue
        m = piece_re.match(piece)
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
        if not m or not _option_text_ok(part[m.end() - 1:]):
            return None
        found.append(m.group(1) or m.group(2))
    return frozenset(found)


@dataclass(frozen=True)
class ChoiceResult:
    status: Status
    letters: frozenset[str] | None
    detail: str | None = None


# A capital A-J standing alone in a sentence: `C, though D is also plausible`.
_MENTION_RE = re.compile(r"(?<![A-Za-z0-9\\])([A-J])(?![A-Za-z0-9'])")


def no_letter_reason(candidate: str) -> str:
    """Why a candidate names no option (which letters a sentence mentions, if any)."""
    s = normalize(candidate[:400])
    mentioned = list(dict.fromkeys(m.group(1) for m in _MENTION_RE.finditer(s)
                                   if not (m.group(1) in "AI" and _article(s, m.end()))))
    if len(mentioned) > 1:
        return (f"the answer names several options ({', '.join(mentioned)}) inside a sentence, "
                "not one plain choice: read as no clear option letter")
    if mentioned:
        return (f"the answer mentions option {mentioned[0]} inside a sentence, not as a plain "
                "option letter: read as no option letter")
    return "the answer names no option letter"


_LETTER_FOLLOWERS = {"or", "and", "nor", "is", "are", "was", "seems", "looks", "appears"}


def _article(s: str, end: int) -> bool:
    """`A cat`, `I think`: the article or the pronoun, not an option (but `A or E`, `A is`)."""
    if s[end:end + 1] != " " or not s[end + 1:end + 2].islower():
        return False
    word = s[end + 1:end + 12].split(" ", 1)[0].rstrip(",.;:")
    return word not in _LETTER_FOLLOWERS


gold_letters = letters


def grade_choice(gold: frozenset[str], candidate: str | None, *, single: bool) -> ChoiceResult:
    if candidate is None:
        return ChoiceResult(Status.NO_ANSWER, None, "no \\boxed{} answer and no final-answer statement")
    found = letters(candidate)
    if found is None:
        return ChoiceResult(Status.INCORRECT, None, no_letter_reason(candidate))
    if single and len(found) != 1:
        return ChoiceResult(Status.INCORRECT, found, "more than one option for a single-choice question")
    return ChoiceResult(Status.CORRECT if found == gold else Status.INCORRECT, found)
