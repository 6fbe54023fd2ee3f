"""The near-copy measure: how far a variant keeps its seed's problem, story aside.

A variant is a near-copy of its seed when it asks the same thing under the same
constraints and is solved the same way, whatever its story (the paper's section 2.2: a
variant changes a constraint, the mechanism or the question). Surface similarity of the
whole text cannot see that: a renamed story scores low, and a seed with one rule added
scores high. So each part is compared by itself, with the story taken out:

- the **ask**: the question sentence (the last one with a "?", else the last one that
  starts like a question), with names, numbers and every content word masked, so that
  "How many cars ..." and "How many canoes ..." read alike and "the largest" and "the
  smallest" do not;
- the **constraints**: every other sentence of the statement (option lines and the
  output-format instruction left out), masked the same way, matched one by one: the score
  is the worst match over the sentences of either text, so a constraint added or dropped
  pulls it down;
- the **reasoning**, where both items have a worked solution: TF-IDF of its skeleton
  (names and numbers masked; skeleton.py), fitted on the texts compared together.

The score, in [0, 1], is the mean of the ask and the reasoning when both items have a
worked solution (a worked solution written afresh rarely repeats its seed's words, so the
reasoning is a graded signal, not a gate), else the lower of the ask and the constraints
(the same ask and the same constraints are both needed for a copy; on the labelled sample the
constraint match told near-copies apart no better than chance once reasoning was there,
and the reasoning best of all the parts: docs/analysis.md has the numbers). A variant at
or above THRESHOLD is flagged: only a copy whose ask and worked solution are the seed's
with names and numbers swapped gets there, so a flag is near-certain and most
near-copies of the careful reader's kind (the same mechanism in a new story, or a rule that
does not bind) go unflagged; SCREEN is the operating point for screening, found by a
two-fold split of the labelled families (precision about a third, recall about three
quarters). What no text measure can see (a rule that does not bind) takes a solver or an
LLM judge; with a judge, `combined` joins its 0-5 score with this one.
"""

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
NAME = "structure"
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
    """The ask and the constraint sentences of a question (options and the output-format
    instruction left out)."""
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
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
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
    """With an LLM judge (0-5, the reasoning-similarity scale): a near-copy when the judge
    says 5 (the same skeleton), or 4 (nearly the same) and the structure score is at least
    at the screening point. Without a score from the judge, the structure flag alone."""
    if judge_score is None:
        return structure >= THRESHOLD
    return judge_score >= 5 or (judge_score >= 4 and structure >= SCREEN)


class StructureIndex:
    """Every text of a set, prepared once; `compare(i, j)` scores a pair of them."""

    def __init__(self, questions: Sequence[str], reasonings: Sequence[str] | None = None):
        vocab = lowercase_vocabulary(list(questions))
        self._asks, self._constraints = [], []
        for q in questions:
            p = parts(q)
            self._asks.append(_grams(abstract(p.ask, vocab)))
            self._constraints.append([_grams(abstract(s, vocab)) for s in p.constraints])
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
