"""The near-copy measure: how far a variant keeps its seed's problem, story aside. The ask,
the constraint sentences and the reasoning skeleton are compared separately with names,
numbers and content words masked; docs/analysis.md ("Near-copies") gives the rules and the
measured thresholds (THRESHOLD flags, SCREEN screens; `combined` joins an LLM judge's score)."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from .skeleton import NUMBER, lowercase_vocabulary

# docs/analysis.md, "Near-copies": measured on tests/data/variant_labels.csv.
THRESHOLD = 0.90     # the flag: template-level copies only
SCREEN = 0.60        # screening: best F1 on either half of the families, checked on the other
DESCRIPTION = ("story-blind structure: the ask, the constraint sentences and the reasoning "
               "skeleton, each compared separately with names, numbers and content words "
               "masked")

# Words that carry a problem's logic rather than its story: quantifiers, comparisons,
# negation, connectives, order and time relations, question words. Every other word is
# masked as "x".
STRUCTURE_WORDS = frozenset("""
a an the this that these those it its they them their he she his her him you your we our
i me my is are was were be been being am has have had do does did will would can could
shall should may might must cannot not no never none nothing nobody always only also
and or nor but if then else so than as both either neither whether unless while when
whenever where which who whom whose what how why all any each every some many much more
most less least few fewer fewest several other another same different exactly at in on of
to from by with without into onto out over under above below between before after until
since during within once twice again first last next previous second third one two three
four five six seven eight nine ten half quarter double largest smallest greatest highest
lowest earliest latest longest shortest fastest slowest maximum minimum max min larger
smaller greater higher lower earlier later longer shorter faster slower up down left right
true false must possible impossible certain probability expected chance average total sum
number times time per every only odd even equal equals
""".split())
_TOKEN = re.compile(r"[^\W\d_][\w'’-]*|0|[<>=+−×÷-]")
_FORMAT = re.compile(r"\\boxed|final answer|decimal places?\b|interval notation|"
                     r"as an? (exact )?fraction|^(give|write|answer with|select)\b", re.I)
_OPTION = re.compile(r"^\s*\(?[A-H][.)]\s")
_ASKS = re.compile(r"^(what|which|how|who|whom|when|where|find|for which|at what|in how|"
                   r"write|determine|compute)\b", re.I)
_SPLIT = re.compile(r"(?<=[.?!;:])\s+(?=[A-Z(\"'“])")


@dataclass(frozen=True)
class Parts:
    ask: str
    constraints: tuple[str, ...]


def parts(question: str) -> Parts:
    """The ask and the constraint sentences (options and the format instruction left out)."""
    sentences = [s.strip() for line in question.splitlines() if not _OPTION.match(line)
                 for s in _SPLIT.split(line.strip()) if s.strip() and not _FORMAT.search(s)]
    if not sentences:
        return Parts("", ())
    asks = [i for i, s in enumerate(sentences) if "?" in s] or \
        [i for i, s in enumerate(sentences) if _ASKS.match(s)] or [len(sentences) - 1]
    k = asks[-1]
    return Parts(sentences[k], tuple(sentences[:k] + sentences[k + 1:]))


def abstract(sentence: str, vocabulary: set[str]) -> list[str]:
    """The sentence's tokens with the story masked: numbers `0`, names (capitalised words
    never seen in lower case in the set) `name`, content words `x`."""
    out = []
    for w in _TOKEN.findall(NUMBER.sub(" 0 ", sentence)):
        if w[0].isupper() and any(c.islower() for c in w[1:]) and w.lower() not in vocabulary:
            out.append("name")
        elif w.lower() in STRUCTURE_WORDS or not w[0].isalpha():
            out.append(w.lower())
        else:
            out.append("x")
    return out


def _grams(tokens: list[str]) -> Counter:
    return Counter(tokens) + Counter(zip(tokens, tokens[1:])) + \
        Counter(zip(tokens, tokens[1:], tokens[2:]))


def _cosine(a: Counter, b: Counter) -> float:
    if not a or not b:
        return 1.0 if not a and not b else 0.0
    dot = sum(v * b[k] for k, v in a.items() if k in b)
    return dot / math.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))


def _worst_match(a: list[Counter], b: list[Counter]) -> float:
    """The lowest, over the sentences of either side, of its best match on the other."""
    if not a or not b:
        return 1.0 if not a and not b else 0.0
    return min(min(max(_cosine(x, y) for y in b) for x in a),
               min(max(_cosine(y, x) for x in a) for y in b))


@dataclass(frozen=True)
class StructureScore:
    ask: float
    constraints: float
    reasoning: float | None     # None: one of the two has no reasoning

    @property
    def score(self) -> float:
        if self.reasoning is not None:
            return (self.ask + self.reasoning) / 2
        return min(self.ask, self.constraints)


def combined(structure: float, judge_score: int | None) -> bool:
    """A near-copy when the judge (0-5) says 5, or 4 and the structure score is at least
    SCREEN; without a judge's score, the structure flag alone."""
    if judge_score is None:
        return structure >= THRESHOLD
    return judge_score >= 5 or (judge_score >= 4 and structure >= SCREEN)


class StructureIndex:
    """Every text of a set, prepared once; `compare(i, j)` scores a pair of them."""

    def __init__(self, questions: Sequence[str], reasonings: Sequence[str] | None = None):
        vocab = lowercase_vocabulary(list(questions))
        split = [parts(q) for q in questions]
        self._asks = [_grams(abstract(p.ask, vocab)) for p in split]
        self._constraints = [[_grams(abstract(s, vocab)) for s in p.constraints] for p in split]
        self._has_reasoning = [bool(r and r.strip()) for r in (reasonings or [""] * len(questions))]
        self._reasoning = None
        if any(self._has_reasoning):
            from .embed import TfidfEmbedder
            from .skeleton import skeletons

            self._reasoning = TfidfEmbedder().vectors(skeletons([r or "" for r in reasonings]))

    def compare(self, i: int, j: int) -> StructureScore:
        reasoning = None
        if self._reasoning is not None and self._has_reasoning[i] and self._has_reasoning[j]:
            reasoning = float(self._reasoning[i].multiply(self._reasoning[j]).sum())
        return StructureScore(ask=_cosine(self._asks[i], self._asks[j]),
                              constraints=_worst_match(self._constraints[i],
                                                       self._constraints[j]),
                              reasoning=reasoning)
