"""The official judge prompt (GRADING.md step 5, verbatim), its version hash, and the
strict parser of the judge's reply.

The prompt text must not be edited: it is the paper's and the official project's, and the
judge cache is keyed by `PROMPT_VERSION`, so any change to it invalidates every cached
verdict instead of silently mixing two prompts' verdicts.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

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
class ParsedReply:
    """The verdict read from a judge reply, or why none could be read."""

    accuracy: bool | None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.accuracy is not None


class _DuplicateKey(ValueError):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        # {"accuracy": true, "accuracy": false} would otherwise silently mean false.
        raise _DuplicateKey("duplicated key")
    return dict(pairs)


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys)


def _objects(text: str) -> tuple[list[dict], bool]:
    """Every top-level JSON object embedded in `text` (prose, fences and all), and whether
    an object with a duplicated key was seen."""
    found: list[dict] = []
    duplicated = False
    i = text.find("{")
    while i != -1:
        try:
            value, end = _DECODER.raw_decode(text, i)
        except _DuplicateKey:
            duplicated = True
            i = text.find("{", i + 1)
            continue
        except ValueError:
            i = text.find("{", i + 1)
            continue
        found.append(value)
        i = text.find("{", end)
    return found, duplicated


def parse_reply(content: str | None) -> ParsedReply:
    """Accept a reply holding EXACTLY ONE JSON object, whose `accuracy` is a JSON boolean.

    The object may stand alone, sit in a fenced block, or sit inside prose. Anything else is
    refused with the reason: no object, two or more objects (e.g. a judge echoing an object
    from the prediction next to its own), `accuracy` missing or not a boolean (`"true"`,
    `1`), a duplicated key. A judge that reasons inline is read after its last closing
    reasoning marker; one that never closed its reasoning gave no verdict.
    """
    if content is None or not content.strip():
        return ParsedReply(None, "empty reply")
    _, final, closed = split_reasoning(content)
    if not closed:
        return ParsedReply(None, "reasoning never closed")
    objects, duplicated = _objects(final)
    if duplicated:
        return ParsedReply(None, "a JSON object with a duplicated key")
    if not objects:
        return ParsedReply(None, "no JSON object")
    if len(objects) > 1:
        return ParsedReply(None, f"{len(objects)} JSON objects, expected exactly one")
    obj = objects[0]
    if "accuracy" not in obj:
        return ParsedReply(None, "no 'accuracy' field")
    if not isinstance(obj["accuracy"], bool):
        return ParsedReply(None, f"'accuracy' is {type(obj['accuracy']).__name__}, not boolean")
    return ParsedReply(obj["accuracy"])


class UnreadableReply(ValueError):
    """A response body that is not a chat completion."""


def read_completion(content: bytes) -> tuple[str | None, str | None]:
    """(served model id, reply text) of a chat completion body."""
    try:
        data = json.loads(content)
        message = data["choices"][0]["message"]
        text = message.get("content")
        served = data.get("model")
    except ValueError:
        raise UnreadableReply("not JSON") from None
    except (KeyError, IndexError, TypeError, AttributeError):
        raise UnreadableReply("not a chat completion") from None
    if text is not None and not isinstance(text, str):
        raise UnreadableReply("content is not text")
    return (served if isinstance(served, str) else None), text
