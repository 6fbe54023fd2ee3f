"""Hedges and retractions around a stated answer (`not \\boxed{12}`, `\\boxed{12} (or maybe
13)`, `\\boxed{12}. Actually, it is 13.`): that text is kept with the candidate, so the
reader, which reads only whole answers, grades it incorrect."""

from __future__ import annotations

import re

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
                        "rule out", "ruling out", "the answer"} - {"the answer"})
TRAILING_WINDOW = 400
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
    to explain itself. Bounded: the first TRAILING_WINDOW characters that show."""
    tail = region[end:end + 8 * TRAILING_WINDOW]
    if not tail.strip(_NOTHING):
        return ""   # the answer ends the response: the common case, nothing to read
    rest = _FILLER.sub(" ", tail)[:TRAILING_WINDOW]
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
