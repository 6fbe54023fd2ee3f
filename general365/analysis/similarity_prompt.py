"""Our reasoning-similarity prompt (the paper's Figure 7), its version, and the strict reader
of the judge's 0-5 score. The paper's template is not public; this one is written from its
definition (docs/analysis.md shows it). `VERSION` hashes the text and the limits, and the
judge cache is keyed by it, so scores of two prompts never mix."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..grading.judge_task import JudgeTask, Parsed, ReplyFormat, read_whole
from ..validators import is_int, one_object, unfence

NAME = "reasoning-similarity"
SCORES = (0, 1, 2, 3, 4, 5)

SYSTEM_PROMPT = """Compare the reasoning that solves two problems, A and B. Each comes with its statement and, when available, a worked solution and a final answer. Judge the logical steps, the method and the key insight. Ignore the topic, the story, the wording, the names and the numbers, and whether the answers are correct.

0 - logically independent: solving one is no help with the other.
1 - loosely related: the same broad kind of task, but no shared step.
2 - one shared technique or sub-step inside otherwise different solutions.
3 - the same overall strategy, but substantially different steps or insights.
4 - nearly the same skeleton: the same steps with minor differences (a step added or dropped, another order).
5 - essentially the same reasoning skeleton: one solution becomes the other by changing surface details only.

Without a worked solution, infer the reasoning each problem requires from its statement and final answer. Reply with a single digit from 0 to 5 and nothing else."""

SECTION = "{label} {side}:\n{text}"
NO_REASONING = ("(No worked solutions are given: infer the reasoning each problem requires "
                "from its statement and its final answer.)")
NO_ANSWER = ("(No worked solutions or final answers are given: infer the reasoning each "
             "problem requires from its statement.)")
NOT_GIVEN = "(not given)"
REASK = ("Your reply could not be read ({problem}). Reply with a single digit from 0 to 5 "
         "and nothing else.")

# What the judge sees of each text at most. A longer text keeps its beginning and its end
# (the set-up and the conclusion of a solution), with a mark of what was cut.
PROBLEM_CHARS = 4000
REASONING_CHARS = 6000
ANSWER_CHARS = 500
CUT_MARK = "\n[... {n} characters cut ...]\n"

VERSION = "1-" + hashlib.sha256("\x00".join(
    [SYSTEM_PROMPT, SECTION, NO_REASONING, NO_ANSWER, NOT_GIVEN, REASK, CUT_MARK,
     str((PROBLEM_CHARS, REASONING_CHARS, ANSWER_CHARS))]).encode("utf-8")).hexdigest()[:12]

# Which fields the judge compares: a field is shown only when both items have it.
REASONING, ANSWER, PROBLEM = "reasoning", "answer", "problem"
BASIS_TEXT = {REASONING: "problem, reasoning and final answer",
              ANSWER: "problem and final answer (no reasoning)",
              PROBLEM: "problem only (no reasoning, no answer)"}


@dataclass(frozen=True)
class Triplet:
    """One item as the judge sees it."""

    problem: str
    reasoning: str = ""
    answer: str = ""


@dataclass(frozen=True)
class SimilarityPair:
    a: Triplet
    b: Triplet

    @property
    def basis(self) -> str:
        if self.a.reasoning.strip() and self.b.reasoning.strip():
            return REASONING
        if self.a.answer.strip() and self.b.answer.strip():
            return ANSWER
        return PROBLEM


def clip(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else its first two thirds and last third
    of the limit around a mark that says how much was cut."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = (2 * limit) // 3
    tail = limit - head
    return text[:head] + CUT_MARK.format(n=len(text) - limit) + text[len(text) - tail:]


def build_messages(pair: SimilarityPair) -> list[dict[str, str]]:
    basis = pair.basis
    parts = []
    for side, t in (("A", pair.a), ("B", pair.b)):
        parts.append(SECTION.format(label="Problem", side=side,
                                    text=clip(t.problem, PROBLEM_CHARS)))
        if basis == REASONING:
            parts.append(SECTION.format(label="Reasoning", side=side,
                                        text=clip(t.reasoning, REASONING_CHARS)))
        if basis in (REASONING, ANSWER):
            # (with both reasonings shown, an item may still lack an answer)
            parts.append(SECTION.format(label="Final answer", side=side,
                                        text=clip(t.answer, ANSWER_CHARS) or NOT_GIVEN))
    parts += {ANSWER: [NO_REASONING], PROBLEM: [NO_ANSWER]}.get(basis, [])
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": "\n\n".join(parts)}]


def _score(text: str) -> Parsed:
    """A bare digit, or (OpenAI's structured outputs) exactly one JSON object {"score": n}."""
    text = unfence(text)
    if not text:
        return Parsed(None, "empty reply")
    # isdigit() alone takes `²` and `①`, which int() refuses: ASCII digits only.
    if len(text) == 1 and text.isascii() and text.isdigit():
        n = int(text)
        return Parsed(n) if n in SCORES else Parsed(None, f"score {n} is not in 0-5")
    if not text.startswith("{"):
        return Parsed(None, "not a single digit from 0 to 5")
    obj, problem = one_object(text)
    if obj is None:
        return Parsed(None, f"neither a digit nor one JSON object ({problem})")
    if set(obj) != {"score"}:
        return Parsed(None, "a JSON object other than {\"score\": n}")
    n = obj["score"]
    if not is_int(n):
        return Parsed(None, f"'score' is {type(n).__name__}, not an integer")
    return Parsed(n) if n in SCORES else Parsed(None, f"score {n} is not in 0-5")


def read_score(content: str | None) -> Parsed:
    """The score of a reply that IS one digit 0-5 (or one {"score": n} object), read as
    grading/judge_task.read_whole says: "I would say 3" is refused and asked again."""
    return read_whole(content, _score)


SCORE_REPLY = ReplyFormat(
    name="reasoning_similarity",
    choices=tuple(str(s) for s in SCORES),
    schema={"type": "object",
            "properties": {"score": {"type": "integer", "enum": list(SCORES)}},
            "required": ["score"], "additionalProperties": False},
    parse=read_score,
    reask=REASK,
)

SIMILARITY_TASK: JudgeTask[SimilarityPair] = JudgeTask(
    name=NAME, version=VERSION, messages=build_messages, reply=SCORE_REPLY)
