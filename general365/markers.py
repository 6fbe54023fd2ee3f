"""Reasoning-block markers, shared by the runners (to split reasoning from the answer) and
the grader (to find the final-answer region), so both always agree."""

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

OPENS = tuple(o for o, _ in REASONING_MARKERS)
CLOSES = tuple(c for _, c in REASONING_MARKERS)
# No marker's end is another's start, and none holds another (tests/unit/test_markers.py
# checks it): so plain string search finds what the regex alternation CLOSE_RE would.

# Public: the runners count reasoning tokens up to the last match of the same pattern.
CLOSE_RE = re.compile("|".join(re.escape(c) for c in CLOSES))


def last_marker(text: str, markers: tuple[str, ...]) -> tuple[int, int]:
    """(start, end) of the last of `markers` in `text`; (-1, -1) if none. str.rfind, not a
    regex: a regex costs about a millisecond on 20,000 characters of reasoning."""
    best, end = -1, -1
    for m in markers:
        i = text.rfind(m, best + 1)
        if i > best:
            best, end = i, i + len(m)
    return best, end


def _first(text: str, markers: tuple[str, ...], stop: int) -> int:
    """The end of the first occurrence of any of `markers` in text[:stop]; -1 if none."""
    best, end = stop, -1
    for m in markers:
        i = text.find(m, 0, min(stop, best + len(m) - 1))
        if i != -1 and i < best:
            best, end = i, i + len(m)
    return end


def split_reasoning(text: str) -> tuple[str | None, str, bool]:
    """(reasoning, final, closed). Reasoning ends at the LAST closing marker (a close with
    no open counts: templates often put `<think>` in the prompt). A block opened and never
    closed, also after a closed one, is unfinished reasoning: final "" and closed False.
    No marker: (None, text, True)."""
    start, end = last_marker(text, CLOSES)
    if start != -1:
        opened = _first(text, OPENS, start)
        reasoning = text[opened:start] if opened != -1 else text[:start]
        tail = text[end:]
        reopened = _first(tail, OPENS, len(tail))
        if reopened != -1:
            more = tail[reopened:]
            return (reasoning.strip() + "\n" + more.strip()).strip(), "", False
        return reasoning.strip(), tail, True
    opened = _first(text, OPENS, len(text))
    if opened != -1:
        return text[opened:].strip(), "", False
    return None, text, True


def final_part(text: str) -> str | None:
    """split_reasoning's `final`, or None where the block was never closed, without cutting
    out the reasoning (the grader reads this on every row)."""
    start, end = last_marker(text, CLOSES)
    if start == -1:
        return text if _first(text, OPENS, len(text)) == -1 else None
    tail = text[end:]
    return tail if _first(tail, OPENS, len(tail)) == -1 else None
