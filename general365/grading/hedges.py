"""Hedges and retractions around a stated answer: what a careful grader reads as "this is
not my answer", or "this or something else".

The answer stays what the box or the statement holds; when the text around it hedges or
takes it back, that text is kept with the candidate (`hedged`), so the reader, which reads
only whole answers, grades it incorrect (`12 or 13` is two values, `not 12` no value).
Three places are read: right before the answer on its line (`not \\boxed{12}`), right
after it (`\\boxed{12} (or maybe 13)`, `\\boxed{12}?`, `\\boxed{12} is wrong`), and the
rest of the final part after it, where a later sentence may retract it (`\\boxed{12}.
Actually, it is 13.`) or state another answer.
"""

from __future__ import annotations

import re

# Right after the answer, on its line: a hedge, an alternative, a question, a negation.
_AFTER_SKIP = r"^[ \t$*_)\].,;:!\u2014\u2013-]*"
_HEDGE_WORDS = (r"or(?!,?\s+(?:equivalently|simply|in\s+other\s+words|written|expressed|as\s+a\s+"
                r"(?:decimal|fraction|percent(?:age)?)))|maybe|perhaps|possibly|probably|"
                r"not\s+sure|unless|wait|hmm+|oops|correction|scratch\s+that|i\s+mean|either|"
                r"nope|actually|on\s+second\s+thought|let\s+me\s+re(?:check|consider|do)|"
                r"just\s+kidding|though|although|but|plus|versus|vs")
_RIGHT_AFTER = re.compile(
    _AFTER_SKIP + r"(?:\(\s*)?(?:(?:" + _HEDGE_WORDS + r")\b|no\s*[,:;!]|no\s+wait\b|\?|"
    r"(?:is|are|was|seems|looks)\s+(?:wrong|incorrect|not|false|invalid|unlikely|a\s+guess|"
    r"uncertain|doubtful|wrong)\b|/\s*[\d\\$])",
    re.IGNORECASE)
# A remark in brackets right after the answer that doubts it: `(13?)`, `(wrong)`,
# `(low confidence)`, `(tentative)`.
_DOUBT = re.compile(
    r"\?|\b(?:wrong|incorrect|false|invalid|not|no|or|maybe|perhaps|possibly|probably|guess|"
    r"unsure|uncertain|unverified|doubt\w*|tentative|rough|ballpark|approx\w*|estimate\w*|"
    r"retract\w*|withdrawn|mistake|erroneous|ignore|placeholder|tbd|random|dummy|disputed|"
    r"hypothetical|arbitrary|assumed|confiden\w*|though|although|plus|also|except|unless)\b",
    re.IGNORECASE)
_BRACKET_AFTER = re.compile(_AFTER_SKIP + r"\(([^()\n]{0,120})\)")
# A later sentence that takes the answer back.
_RETRACTION = re.compile(
    r"(?:^|[.!?;:]\s+|\n\s*)[*_#>\s]*(?:or\s|actually|wait|hmm+|nope|no\s*[,:;!]|correction|"
    r"on\s+(?:second\s+thought|reflection)|re-?check\w*|scratch\s+that|oops|just\s+kidding|"
    r"i\s+(?:was|am)\s+wrong|that'?s\s+wrong|or\s+(?:maybe|perhaps|possibly)|alternatively|"
    r"but\s+i'?m\s+not|i'?m\s+not\s+(?:sure|confident)|not\s+sure)\b"
    r"|\b(?:is\s+(?:wrong|incorrect|not\s+(?:the|my|right|correct))|also\s+possible|"
    r"might\s+(?:also\s+be|be\s+wrong)|could\s+also\s+be|my\s+guess|a\s+guess|"
    r"i'?d\s+guess|real\s+answer)\b",
    re.IGNORECASE)
# Right before the answer, on its line: a negation of it.
_NEGATED_BEFORE = re.compile(
    r"(?:\bnot|n't|\bnever|\bnor|\brather\s+than|\binstead\s+of|\breject\w*|\bexclud\w*|"
    r"\brule\s+out|\bruling\s+out|\bor|\beither|\bmaybe|\bperhaps|\bpossibly)"
    r"[\s$(\[*_:,]*(?:\\\(|\\\[)?[\s$]*$", re.IGNORECASE)
TRAILING_WINDOW = 400
# `\\boxed{B}\\text{?}`: the wrapper of a remark does not hide it.
_UNWRAP = re.compile(r"\\(?:text|mathrm|textbf|mathbf|textit|emph)\s*\{|[{}]")


def hedge_after(region: str, end: int) -> str:
    """The text after an answer that ends at `end` when it hedges or retracts the
    answer (module docstring), else "". Bounded: at most TRAILING_WINDOW characters."""
    rest = region[end:end + TRAILING_WINDOW]
    line = _UNWRAP.sub("", rest.split("\n", 1)[0])
    if _RIGHT_AFTER.match(line):
        return line.strip()
    m = _BRACKET_AFTER.match(line)
    if m and _DOUBT.search(m.group(1)):
        return line.strip()
    m = _RETRACTION.search(rest)
    if m:
        return rest[m.start():].strip().split("\n", 1)[0] or "(retracted)"
    return ""


def negated_before(region: str, start: int) -> str:
    """The words right before an answer starting at `start` that negate it or offer it as
    an alternative (`not \\boxed{12}`, `13 or \\boxed{12}`), else ""."""
    line_start = region.rfind("\n", 0, start) + 1
    before = region[max(line_start, start - 120):start]
    m = _NEGATED_BEFORE.search(before)
    return m.group(0).strip() if m else ""
