"""Reasoning-block markers, shared by the runners (to split reasoning from the answer) and
the grader (to find the final-answer region). One list, so both always agree."""

from __future__ import annotations

import re

# (open, close) pairs of the reasoning blocks that open-weights models emit inline.
REASONING_MARKERS: tuple[tuple[str, str], ...] = (
    ("<think>", "</think>"),
    ("<longcat_think>", "</longcat_think>"),
    ("<seed:think>", "</seed:think>"),
    ("<thinking>", "</thinking>"),
    ("<reasoning>", "</reasoning>"),
    ("<|begin_of_thought|>", "<|end_of_thought|>"),
    ("◁think▷", "◁/think▷"),
)

# Public: the runners count reasoning tokens up to the last match of the same pattern.
CLOSE_RE = re.compile("|".join(re.escape(c) for _, c in REASONING_MARKERS))
_OPEN_RE = re.compile("|".join(re.escape(o) for o, _ in REASONING_MARKERS))


def split_reasoning(text: str) -> tuple[str | None, str, bool]:
    """Split `text` into (reasoning, final, closed).

    - A closing marker present: reasoning is everything before the LAST closing marker
      (its opening marker stripped), final is what follows it; closed is True. Chat
      templates often put the opening `<think>` in the prompt, so a close without an open
      counts as a closed block.
    - An opening marker and no closing one (cut off while thinking): reasoning is the text
      after the opening marker, final is "" and closed is False. The same when a block was
      closed and a later one was opened and never closed (`<think>a</think><think>b`): the
      text after the last opening marker is unfinished reasoning, never an answer.
    - No marker: (None, text, True).
    """
    last_close = None
    for m in CLOSE_RE.finditer(text):
        last_close = m
    if last_close is not None:
        head = text[: last_close.start()]
        opened = _OPEN_RE.search(head)
        reasoning = head[opened.end():] if opened else head
        tail = text[last_close.end():]
        reopened = _OPEN_RE.search(tail)
        if reopened is not None:
            more = tail[reopened.end():]
            return (reasoning.strip() + "\n" + more.strip()).strip(), "", False
        return reasoning.strip(), tail, True
    opened = _OPEN_RE.search(text)
    if opened is not None:
        return text[opened.end():].strip(), "", False
    return None, text, True
