"""What the LLM judge is asked and how its replies are read: `JudgeTask`s (messages, a
versioned prompt, a strict reply format, a vote rule); the client (judge.py) does the rest.
The verdict is one task (`verdict_task`, from the official prompt or a benchmark's own);
the analysis' reasoning similarity is another."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Sequence, TypeVar

from ..markers import split_reasoning
from ..validators import one_object

T = TypeVar("T")


@dataclass(frozen=True)
class Parsed:
    """What a task's parser read from one reply: a value, or the problem."""

    value: Any = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class ReplyFormat:
    """The shape of a judge's reply and its strict reader (a reply it refuses is re-asked)."""

    name: str                                # the `json_schema` name of `response_format`
    choices: tuple[str, ...]                 # the replies vLLM's `structured_outputs` allows
    schema: dict[str, Any]                   # OpenAI's `response_format` schema (an object)
    parse: Callable[[str | None], Parsed]
    reask: str                               # the corrective turn; `{problem}`: what was wrong


def majority_vote(cast: Sequence[Any], k: int) -> Any | None:
    """The value cast by more than half of the k votes (a failed vote counts against all)."""
    if not cast:
        return None
    value, n = Counter(cast).most_common(1)[0]
    return value if 2 * n > k else None


def median_vote(cast: Sequence[Any], k: int) -> Any | None:
    """The median of k ordinal votes (k odd), only when the f failed votes could not have
    moved it: it lies between the cast votes' ranks (k-1)/2 - f and (k-1)/2."""
    f = k - len(cast)
    m = (k - 1) // 2
    if not cast or f > m:
        return None
    ranked = sorted(cast)
    low, high = ranked[m - f], ranked[m]
    return high if low == high else None


@dataclass(frozen=True)
class JudgeTask(Generic[T]):
    """One kind of question for the judge. `version` is in every cache key (two prompts'
    answers never mix); `combine(cast, k)` makes k votes one answer, or None when the failed
    votes could have changed it. `verdict_key`, on verdict tasks only, keys the `verdicts`
    table as before other tasks existed (older cache files keep serving)."""

    name: str
    version: str
    messages: Callable[[T], list[dict[str, str]]]
    reply: ReplyFormat
    combine: Callable[[Sequence[Any], int], Any | None] = median_vote
    combine_rule: str = "median of the votes; undecided when failed votes could move it"
    verdict_key: Callable[[dict, T], list] | None = None


@dataclass
class TaskAnswer:
    """The judge's answer to one item. `value` None: the judge failed (`detail` says why)."""

    value: Any
    model: str                  # the judge model as requested
    votes: list[Any] = field(default_factory=list)   # the values cast, in order
    raw: str | None = None      # the accepted reply (k > 1: a JSON list of the replies)
    served_model: str | None = None
    detail: str | None = None
    cached: bool = False
    attempts: int = 0           # HTTP requests made for this item (0 when cached)

    @property
    def failed(self) -> bool:
        return self.value is None


def read_whole(content: str | None, read: Callable[[str], Parsed]) -> Parsed:
    """`read` applied to a reply that IS the answer; nothing is searched for inside prose.
    A judge that reasons inline is read after its last closing marker, unless its reply began
    as JSON or a fence (then the marker is quoted text); one never closed gave no answer."""
    if content is None or not content.strip():
        return Parsed(None, "empty reply")
    parsed = read(content)
    if parsed.ok or content.lstrip().startswith(("{", "```")):
        return parsed
    reasoning, final, closed = split_reasoning(content)
    if not closed:
        return Parsed(None, "reasoning never closed")
    if reasoning is None:          # no marker: the whole reply was the candidate
        return parsed
    after = read(final)
    return after if after.ok else Parsed(None, f"after the reasoning: {after.problem}")


# --- the verdict ------------------------------------------------------------------------
# The official prompt must not be edited: it is the paper's and the official project's,
# and its version is in every cache key (a changed byte re-keys the cache).

SYSTEM_PROMPT = """You are an expert evaluator for question answering systems.
Your task is to determine if a prediction correctly answers a question based on the ground truth.

Rules:
1. The prediction is correct if it captures all the key information from the ground truth.
2. The prediction is correct even if phrased differently as long as the meaning is the same.
3. The prediction is incorrect if it contains incorrect information or is missing essential details.
4. Do not challenge the correctness of the standard answer.
5. If the standard answer includes multiple possibilities, the prediction must include all and only those possibilities to be considered correct.
Output a JSON object with a single field 'accuracy' whose value is true or false."""

USER_TEMPLATE = """Question: {question}
Ground truth: {answer}
Prediction: {prediction}"""

PROMPT_VERSION = hashlib.sha256(
    (SYSTEM_PROMPT + "\x00" + USER_TEMPLATE).encode("utf-8")).hexdigest()[:16]

# The judge sees at most this many characters of the final-answer region. Long regions are
# cut from the FRONT: the answer sits at the end of a response, the preamble does not matter.
MAX_PREDICTION_CHARS = 4000
TRUNCATION_MARK = "[...] "

# for servers with structured outputs: the one shape the parser accepts
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"accuracy": {"type": "boolean"}},
    "required": ["accuracy"],
    "additionalProperties": False,
}
VERDICT_CHOICES = ('{"accuracy": true}', '{"accuracy": false}')
REASK_MESSAGE = ("Your reply could not be read ({problem}). Output only a JSON object with a "
                 "single field 'accuracy' whose value is true or false.")


@dataclass(frozen=True)
class JudgeItem:
    question: str
    gold: str
    prediction: str   # the final-answer region; the judge truncates it (see truncate_prediction)


def truncate_prediction(prediction: str, limit: int = MAX_PREDICTION_CHARS) -> str:
    """Keep the last `limit` characters (the mark included) of an over-long prediction."""
    if limit <= len(TRUNCATION_MARK):
        raise ValueError(f"prediction limit must exceed {len(TRUNCATION_MARK)} characters")
    if len(prediction) <= limit:
        return prediction
    return TRUNCATION_MARK + prediction[len(prediction) - (limit - len(TRUNCATION_MARK)):]


@dataclass(frozen=True)
class JudgePrompt:
    """A verdict prompt: a system message, a user template with {question}, {answer} and
    {prediction}, and its version. Every one asks for the same reply (VERDICT_REPLY)."""

    name: str
    version: str
    system: str
    user: str

    def build(self, question: str, gold: str, prediction: str) -> list[dict[str, str]]:
        """The chat messages of one judgement (str.format does not re-read braces inside
        the values: a "{" in a prediction is inert)."""
        user = self.user.format(question=question, answer=gold, prediction=prediction)
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]


OFFICIAL_PROMPT = JudgePrompt("general365-official", PROMPT_VERSION, SYSTEM_PROMPT, USER_TEMPLATE)
build_messages = OFFICIAL_PROMPT.build   # the official prompt's messages of one judgement


# one_object's problems that say what the text is; the others name a value strict JSON
# refuses (NaN, a lone surrogate, deep nesting), which the judge is told is no JSON object.
_SHAPES = ("empty reply", "a JSON", "not a JSON", "text after")


def _accuracy(text: str) -> Parsed:
    obj, problem = one_object(text)
    if obj is None:
        return Parsed(None, problem if problem.startswith(_SHAPES)
                      else f"not a JSON object ({problem})")
    if "accuracy" not in obj:
        return Parsed(None, "no 'accuracy' field")
    if not isinstance(obj["accuracy"], bool):
        return Parsed(None, f"'accuracy' is {type(obj['accuracy']).__name__}, not boolean")
    return Parsed(obj["accuracy"])


def parse_reply(content: str | None) -> Parsed:
    """The verdict of a reply that IS one strict JSON object with a boolean `accuracy` (see
    read_whole); a quoted verdict in prose or a key given twice is refused."""
    return read_whole(content, _accuracy)


VERDICT_REPLY = ReplyFormat("judge_verdict", VERDICT_CHOICES, VERDICT_SCHEMA, parse_reply,
                            REASK_MESSAGE)


def verdict_task(prompt: JudgePrompt, max_chars: int) -> JudgeTask[JudgeItem]:
    """The verdict asked with `prompt`, the prediction cut to its last `max_chars`."""

    def messages(item: JudgeItem) -> list[dict[str, str]]:
        return prompt.build(item.question, item.gold,
                            truncate_prediction(item.prediction, max_chars))

    def key(settings: dict, item: JudgeItem) -> list:
        return [prompt.version, json.dumps({**settings, "max_chars": max_chars}),
                item.question, item.gold, truncate_prediction(item.prediction, max_chars)]

    return JudgeTask(prompt.name, prompt.version, messages, VERDICT_REPLY, majority_vote,
                     "majority of the votes", key)
