"""What the LLM judge is asked, and how its replies are read: `JudgeTask`s.

A task holds everything that differs between questions; the client (judge.py) does the
rest, the same for all: cache, retries, re-asks, timeouts, redaction, concurrency, votes.

- `messages(item)`: the chat messages of one item;
- `version`: changes whenever the prompt text changes; it is in every cache key, so the
  answers of two prompts never mix;
- `reply` (a `ReplyFormat`): what a reply may be (vLLM's structured-output choices, the
  JSON schema of OpenAI's `response_format`), its strict parser, and the corrective turn
  sent when a reply cannot be read;
- `combine(cast, k)`: how k votes make one answer, or None when the votes that failed
  could have changed it (a failed vote never decides).

The General365 verdict is one task, built by `verdict_task` from a `JudgePrompt`: the
official prompt (docs/grading.md, step 5, verbatim) or a benchmark's own (CFE-Bench's,
tasks/cfe/judge_prompt.py). The analysis' reasoning similarity is another
(analysis/similarity_prompt.py).
"""

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
    """What a task's parser read from one reply: a value, or why none could be read."""

    value: Any = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class ReplyFormat:
    """The shape of a judge's reply and its reader.

    name: the `json_schema` name sent with `response_format`;
    choices: the exact replies allowed by vLLM's `structured_outputs` choice;
    schema: the JSON schema of OpenAI's `response_format` (an object: OpenAI requires one);
    parse: reply text (or None) -> Parsed; strict: a reply it refuses is asked again;
    reask: the corrective user turn, with `{problem}` for what was wrong.
    """

    name: str
    choices: tuple[str, ...]
    schema: dict[str, Any]
    parse: Callable[[str | None], Parsed]
    reask: str


def majority_vote(cast: Sequence[Any], k: int) -> Any | None:
    """The value cast by more than half of the k votes (failed votes count against every
    value), else None."""
    if not cast:
        return None
    value, n = Counter(cast).most_common(1)[0]
    return value if 2 * n > k else None


def median_vote(cast: Sequence[Any], k: int) -> Any | None:
    """The median of k ordinal votes (k odd, so it is one of them), decided only when the
    votes that failed could not have moved it: with f failed votes the median lies between
    the cast votes' ranks (k-1)/2 - f and (k-1)/2, whatever the failed ones would have said,
    so it is decided when those two are equal. With k = 1: the one vote."""
    f = k - len(cast)
    m = (k - 1) // 2
    if not cast or f > m:
        return None
    ranked = sorted(cast)
    low, high = ranked[m - f], ranked[m]
    return high if low == high else None


@dataclass(frozen=True)
class JudgeTask(Generic[T]):
    """One kind of question for the judge (the fields: see the module docstring).

    verdict_key: set on verdict tasks only. A verdict is cached as it was before other
    tasks existed, so that older cache files keep serving: in the `verdicts` table, keyed
    by verdict_key(vote settings, item) rather than by the messages."""

    name: str
    version: str
    messages: Callable[[T], list[dict[str, str]]]
    reply: ReplyFormat
    combine: Callable[[Sequence[Any], int], Any | None] = median_vote
    combine_rule: str = "median of the votes; undecided when failed votes could move it"
    verdict_key: Callable[[dict, T], list] | None = None


@dataclass
class TaskAnswer:
    """The judge's answer to one item of a task. `value` is None when the judge failed
    (every vote exhausted its retries and re-asks, or the votes that failed could have
    changed the outcome); `detail` says why."""

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
    """`read` applied to a reply that IS the answer (`read` allows whitespace and one fence
    around all of it: validators.unfence); nothing is searched for inside prose. A judge
    that reasons inline is read after its last closing reasoning marker, by the same rule,
    unless its reply began as JSON or a fence: in `{"accuracy": false, "reason": "...
    </think>{"accuracy": true}` the marker and what follows it are quoted text. One that
    never closed its reasoning gave no answer."""
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

# For servers with structured outputs: the one shape the parser accepts, so that even a
# weak judge model replies parseably.
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
    {prediction}, and its version. Every verdict prompt asks for the same reply, one JSON
    object with a boolean `accuracy`: the parser, the structured-output constraints and the
    re-ask are shared."""

    name: str
    version: str
    system: str
    user: str

    def build(self, question: str, gold: str, prediction: str) -> list[dict[str, str]]:
        """The chat messages of one judgement. The prediction goes only into the user
        message, in its slot of the template; nothing in it is interpreted here."""
        # str.format substitutes values without re-reading braces inside them, so a "{" in
        # a question or a prediction is inert.
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
    """The verdict of a reply that IS one strict JSON object whose `accuracy` is a JSON
    boolean (see read_whole). A reply that quotes the prediction's `{"accuracy": true}` in
    its own broken object, in prose or next to another object is refused, re-asked, then
    `judge_failed`; a key given twice is refused (which one would be the verdict?)."""
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
