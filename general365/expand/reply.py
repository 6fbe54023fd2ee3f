"""A model's reply to the expansion prompt read as one JSON object, or a one-line reason why
not (docs/expand.md, section 2: where the object may be, and how strictly it is read).
The strict reader refuses here, with the reason, what `review` and `select` would refuse
later (or a gold of "inf" that would pass).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..errors import DataError
from ..jsonl import NotJSON, parse
from ..markers import split_reasoning

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
