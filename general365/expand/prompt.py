"""The expansion prompt, from the paper's rules for its variants (section 2.2; docs/expand.md,
section 2). Each candidate of a seed gets another *direction* (DIRECTIONS), so that the ten
candidates of a seed do not all make the same change. PROMPT_VERSION is bumped whenever the
text a model is shown changes: it is part of each record's key (a changed prompt is never
served an old answer) and of run.json. Below the prompt, its reply read as one JSON object,
or a one-line reason why not (section 2: where the object may be, and how strictly it is
read): the strict reader refuses here, with the reason, what `review` and `select` would
refuse later (or a gold of "inf" that would pass).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..errors import DataError
from ..jsonl import NotJSON, parse
from ..markers import split_reasoning
from ..schema import AnswerType, Problem

PROMPT_VERSION = "expand-1"

# The JSON object the model answers with, as a JSON Schema (also sent as structured output
# where the server takes it).
FIELDS = ("question", "reasoning", "answer", "answer_type", "float_round", "change")
REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "question": {"type": "string"},
        "reasoning": {"type": "string"},
        "answer": {"type": "string"},
        "answer_type": {"type": "string", "enum": AnswerType.values()},
        "float_round": {"type": "integer", "minimum": 0},
        "change": {"type": "string"},
    },
    "required": list(FIELDS),
    "additionalProperties": False,
}

DIRECTIONS = (
    "move it to a different everyday situation, with other objects and names, and change "
    "at least one constraint",
    "add, remove or reverse one rule, so that the seed's solution path no longer works",
    "turn it around in a new story: give the outcome and ask for the condition or choice "
    "that leads to it",
    "change the size or the shape of the structure (more items, another layout, another "
    "order of events) so that it must be worked out anew",
    "add one trap of the seed's own kind (a misleading detail, an unusual rule, an "
    "unstated consequence) in a new story",
)

ANSWER_FORMS = {
    AnswerType.NUMBER: "a number only (an integer, a decimal or a fraction such as 3/8), no "
                       "units; when it is rounded, say so in the question and give the "
                       "decimal places in float_round",
    AnswerType.INTERVAL: "interval notation such as [2, 5) or a union such as "
                         "(-oo, 1] \\cup [3, 4); the question says to give the set in "
                         "interval notation",
    AnswerType.SINGLE_CHOICE: "the letter of the one correct option; the question lists "
                              "the options as lines A. ..., B. ...",
    AnswerType.MULTIPLE_CHOICE: "the letters of all correct options in order, such as ACD; "
                                "the question lists the options as lines A. ..., B. ...",
    AnswerType.TEXT: "a short exact string, written as the question tells the solver to "
                     "write it",
}

RULES = """Rules for the variant:
1. Change the surface story or the constraints, not just the numbers or names: the seed's \
worked solution must not carry over step by step.
2. Keep the reasoning challenge of the seed (its categories: {categories}) and at least \
its difficulty.
3. Use only K-12 knowledge: no specialised facts, and nothing a web search could answer.
4. The problem is self-contained and unambiguous, with exactly one correct answer; the \
question does not state or hint at the answer.
5. End the question with the output-format instruction, as the seed does (for example \
"Put your final answer in \\boxed{{}}.").
6. Give a canonical answer. For answer type {answer_type}: {answer_form}.
7. Work the answer out step by step in "reasoning", and check it."""

REPLY = """Reply with one JSON object and nothing else:
{{"question": "...", "reasoning": "...", "answer": "...", "answer_type": "{answer_type}", \
"float_round": {float_round}, "change": "one sentence: what you changed from the seed"}}
answer_type is one of {types}; float_round is the number of decimal places the answer is \
rounded to (0 when it is not rounded)."""


def direction(candidate: int) -> str:
    return DIRECTIONS[candidate % len(DIRECTIONS)]


def expansion_messages(seed: Problem, candidate: int) -> tuple[dict[str, str], ...]:
    """The chat messages asking for candidate number `candidate` (0-based) of `seed`."""
    categories = ", ".join(c.value for c in seed.categories) or "as the seed shows"
    rules = RULES.format(categories=categories, answer_type=seed.answer_type.value,
                         answer_form=ANSWER_FORMS[seed.answer_type])
    reply = REPLY.format(answer_type=seed.answer_type.value, float_round=seed.float_round,
                         types=", ".join(AnswerType.values()))
    seed_block = json.dumps({"question": seed.question, "reasoning": seed.reasoning,
                             "answer": seed.answer, "answer_type": seed.answer_type.value,
                             "float_round": seed.float_round}, ensure_ascii=False, indent=1)
    text = ("You write new problems for General365, a benchmark of general reasoning. "
            "Below is a seed problem with its reasoning and answer. Write one new variant "
            "of it.\n\n"
            f"{rules}\n\nDirection for this variant: {direction(candidate)}.\n\n"
            f"{reply}\n\nThe seed problem:\n{seed_block}")
    return ({"role": "user", "content": text},)


def response_format() -> dict[str, Any]:
    """The OpenAI `response_format` that constrains a reply to REPLY_SCHEMA."""
    return {"type": "json_schema",
            "json_schema": {"name": "general365_variant", "schema": REPLY_SCHEMA,
                            "strict": True}}


# --- the reply ---------------------------------------------------------------------------

FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\n?(.*?)```", re.S)
# Where an embedded object may start: a brace, then a key. Each failed try costs a pass over
# the rest of the text (json's error position), so a hostile reply full of braces is cut
# short after this many failures.
OBJECT_START = re.compile(r'\{\s*"')
MAX_TRIES = 200


@dataclass(frozen=True)
class Reply:
    """A parsed reply: `fields` (the object) or `error` (why there is none)."""

    fields: dict[str, Any] | None
    error: str | None = None
    how: str | None = None   # "json", "fence" or "embedded": where the object was found


def _loads(text: str) -> tuple[Any, str | None]:
    try:
        return parse(text, expected="one JSON object"), None
    except NotJSON:   # broken JSON: the plain decoder says where
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            return None, f"{exc.msg} at line {exc.lineno} column {exc.colno}"
        except (ValueError, RecursionError):
            pass
        return None, "not valid JSON"
    except DataError as exc:   # JSON that the strict reader refuses, and why
        return None, exc.detail + (f" in {exc.field!r}" if exc.field else "")


def _embedded(text: str) -> dict[str, Any] | None:
    """The last `{"...` of `text` that decodes to an object (outermost objects only)."""
    decoder = json.JSONDecoder()
    found = None
    failures = 0
    m = OBJECT_START.search(text)
    while m is not None and failures < MAX_TRIES:
        try:
            # raw_decode finds where the object ends; the strict reader then reads it
            _, end = decoder.raw_decode(text, m.start())
            value, _ = _loads(text[m.start():end])
        except (ValueError, RecursionError):   # json's errors, a 4,300-digit number
            value = None
        if value is None:
            failures += 1
            m = OBJECT_START.search(text, m.start() + 1)
            continue
        found = value   # raw_decode at a brace gives an object
        m = OBJECT_START.search(text, end)
    return found


def parse_reply(text: str, *, finish_reason: str | None = None) -> Reply:
    _reasoning, final, closed = split_reasoning(text or "")
    cut = " (the reply was cut off at its token limit)" if finish_reason == "length" else ""
    if not closed:
        return Reply(None, "the reply never left its reasoning block" + cut)
    body = final.strip()
    if not body:
        return Reply(None, "the reply is empty" + cut)
    value, error = _loads(body)
    if isinstance(value, dict):
        return Reply(value, how="json")
    first_error = error
    fences = FENCE.findall(body)
    for block in reversed(fences):
        value, error = _loads(block.strip())
        if isinstance(value, dict):
            return Reply(value, how="fence")
        first_error = first_error or error
    value = _embedded(body)
    if value is not None:
        return Reply(value, how="embedded")
    if fences:
        _, error = _loads(fences[-1].strip())
        return Reply(None, f"the code block is not a JSON object ({error or 'not an object'})"
                     + cut)
    if "{" not in body:
        return Reply(None, "no JSON object in the reply" + cut)
    return Reply(None, f"broken JSON ({first_error or 'not an object'})" + cut)
