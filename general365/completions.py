"""Completions as RL trainers hand them over (a string, or TRL's list of messages), made into
the text grading reads. Anything odd (None, a number, bytes that are not UTF-8, lone
surrogates) is read as what it safely can be, never raised on: a trainer must not stop at
step 40,000 for one odd sample.
"""

from __future__ import annotations

from typing import Any, Mapping

from .markers import CLOSES, OPENS

# Where chat APIs and parsers put a reasoning block they split off the content.
REASONING_FIELDS = ("reasoning_content", "reasoning", "thinking")


def _text_of(content: Any) -> str:
    """A message's content: a string, or a list of parts ({"type": "text", "text": ...})."""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        texts = (part.get("text") if isinstance(part, Mapping) else part for part in content)
        return "".join(t for t in texts if isinstance(t, str))
    return ""


def clean_text(text: Any) -> str:
    """A str that encodes: bytes decoded as UTF-8 (bad bytes replaced), lone surrogates
    replaced (they would break the judge's JSON or a log line), anything else empty."""
    if isinstance(text, (bytes, bytearray)):
        return bytes(text).decode("utf-8", "replace")
    if not isinstance(text, str):
        return ""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def completion_parts(completion: Any) -> tuple[str, bool]:
    """(the text to grade, whether a separate reasoning field was filled). For a list of
    messages the last assistant message is the final turn: its content is graded."""
    if isinstance(completion, Mapping):
        completion = [completion]
    if isinstance(completion, (list, tuple)):
        messages = [m for m in completion if isinstance(m, Mapping)]
        final = next((m for m in reversed(messages)
                      if m.get("role", "assistant") == "assistant"), None)
        if final is None:
            return "", False
        separate = any(_text_of(final.get(f)).strip() for f in REASONING_FIELDS)
        return clean_text(_text_of(final.get("content"))), separate
    return clean_text(completion), False


def final_part(text: str) -> str:
    """The part of `text` grading reads, with the same verdict as the whole text: from the
    last reasoning close marker on (str.rfind: microseconds on 30k characters). A block
    opened and never closed has no answer: its marker alone is kept."""
    cut = -1
    for close in CLOSES:  # `</think>` first: the others then search only after it
        found = text.rfind(close, cut + 1)
        if found > cut:
            cut = found
    if cut > 0:
        return text[cut:]
    if cut < 0:
        for marker in OPENS:
            if marker in text:
                return marker
    return text
