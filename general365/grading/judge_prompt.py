"""The official judge prompt (docs/grading.md, step 5, verbatim), its version hash, and the
strict parser of the judge's reply.

The prompt text must not be edited: it is the paper's and the official project's, and the
judge cache is keyed by `PROMPT_VERSION`, so any change to it invalidates every cached
verdict instead of silently mixing two prompts' verdicts.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Callable

from ..markers import split_reasoning

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

# For servers with structured outputs (vLLM, OpenAI): constrains the reply to the one shape
# the parser accepts, so that even a weak judge model replies parseably.
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"accuracy": {"type": "boolean"}},
    "required": ["accuracy"],
    "additionalProperties": False,
}
VERDICT_CHOICES = ('{"accuracy": true}', '{"accuracy": false}')


def truncate_prediction(prediction: str, limit: int = MAX_PREDICTION_CHARS) -> str:
    """Keep the last `limit` characters (the mark included) of an over-long prediction."""
    if limit <= len(TRUNCATION_MARK):
        raise ValueError(f"prediction limit must exceed {len(TRUNCATION_MARK)} characters")
    if len(prediction) <= limit:
        return prediction
    return TRUNCATION_MARK + prediction[len(prediction) - (limit - len(TRUNCATION_MARK)):]


def build_messages(question: str, gold: str, prediction: str) -> list[dict[str, str]]:
    """The chat messages of one judgement. The prediction goes only into the user message,
    in its slot of the official template; nothing in it is interpreted here."""
    # str.format substitutes values without re-reading braces inside them, so a "{" in a
    # question or a prediction is inert.
    user = USER_TEMPLATE.format(question=question, answer=gold, prediction=prediction)
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


@dataclass(frozen=True)
class JudgePrompt:
    """A judge prompt: its version (part of every cache key, so verdicts of two prompts never
    mix) and the builder of one judgement's messages from (question, gold, prediction).

    The official prompt is the default; a benchmark with its own grading (CFE-Bench's
    per-variable judge, general365/tasks/cfe/judge_prompt.py) passes its own. Every prompt
    must ask for the same reply, one JSON object with a boolean `accuracy`: the strict
    parser, the structured-output constraints and the re-ask are shared."""

    name: str
    version: str
    build: Callable[[str, str, str], list[dict[str, str]]]


@dataclass(frozen=True)
class ParsedReply:
    """The verdict read from a judge reply, or why none could be read."""

    accuracy: bool | None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.accuracy is not None


class _RepeatedKey(ValueError):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        # {"accuracy": true, "accuracy": false} would otherwise silently mean false.
        raise _RepeatedKey("duplicated key")
    return dict(pairs)


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")   # Python's parser would accept NaN, Infinity


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)
# A whole reply in one fenced block (```json ... ```): nothing before or after the fence.
_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)


def _one_object(text: str) -> tuple[dict | None, str | None]:
    """(the object, None) when `text` is exactly one JSON object, give or take surrounding
    whitespace or one fence around all of it; else (None, why not)."""
    text = text.strip()
    if not text:
        return None, "empty reply"
    fenced = _FENCE.fullmatch(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        value, end = _DECODER.raw_decode(text)
    except _RepeatedKey:
        return None, "a JSON object with a duplicated key"
    except (ValueError, RecursionError):
        return None, "not a JSON object"
    if not isinstance(value, dict):
        return None, f"a JSON {type(value).__name__}, not an object"
    if text[end:].strip():
        return None, "text after the JSON object"
    return value, None


def parse_reply(content: str | None) -> ParsedReply:
    """Accept a reply that IS one JSON object whose `accuracy` is a JSON boolean.

    Strict on purpose: the reply must be exactly one well-formed JSON object (surrounding
    whitespace and one fence around the whole of it aside), and nothing else. The verdict
    is never searched for inside text: a reply that quotes the prediction's
    `{"accuracy": true}` in its own broken object, in prose or next to another object is
    refused, re-asked, then `judge_failed`. A judge that reasons inline is read after its
    last closing reasoning marker, by the same rule, unless the reply began as JSON (then
    a marker inside it is quoted text); one that never closed its reasoning gave no
    verdict.
    """
    if content is None or not content.strip():
        return ParsedReply(None, "empty reply")
    obj, problem = _one_object(content)
    if obj is None and not content.lstrip().startswith(("{", "```")):
        # Only a reply that did not begin as JSON can be reasoning followed by a verdict:
        # in `{"accuracy": false, "reason": "... </think>{"accuracy": true}` the marker and
        # the object after it are quoted text, not the judge's own answer.
        reasoning, final, closed = split_reasoning(content)
        if not closed:
            return ParsedReply(None, "reasoning never closed")
        if reasoning is None:          # no marker: the whole reply was the candidate
            return ParsedReply(None, problem)
        obj, problem = _one_object(final)
        if obj is None:
            return ParsedReply(None, f"after the reasoning: {problem}")
    if obj is None:
        return ParsedReply(None, problem)
    if "accuracy" not in obj:
        return ParsedReply(None, "no 'accuracy' field")
    if not isinstance(obj["accuracy"], bool):
        return ParsedReply(None, f"'accuracy' is {type(obj['accuracy']).__name__}, not boolean")
    return ParsedReply(obj["accuracy"])


class UnreadableReply(ValueError):
    """A response body that is not a chat completion."""


@dataclass(frozen=True)
class Completion:
    """What the judge reads of a chat completion."""

    served_model: str | None
    text: str | None
    finish_reason: str | None


def read_completion(data: object) -> Completion:
    """The served model id, reply text and finish reason of a chat completion body (its
    decoded JSON). Any other shape (`{}`, a list, `"choices": "x"`) is refused. A body
    served as another content type reaches here as text, and is decoded here."""
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except (ValueError, RecursionError):
            raise UnreadableReply("not JSON") from None
    try:
        choice = data["choices"][0]               # type: ignore[index]
        message = choice["message"]
        text = message.get("content")
        finish = choice.get("finish_reason")
        served = data.get("model")                # type: ignore[union-attr]
    except (AttributeError, IndexError, KeyError, TypeError):
        raise UnreadableReply("not a chat completion") from None
    if text is not None and not isinstance(text, str):
        raise UnreadableReply("content is not text")
    return Completion(served if isinstance(served, str) else None, text,
                      finish if isinstance(finish, str) else None)


OFFICIAL_PROMPT = JudgePrompt("general365-official", PROMPT_VERSION, build_messages)
