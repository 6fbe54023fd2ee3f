"""A question's skeleton: numbers become `0`, and names (capitalised words never seen in
lower case anywhere in the set) become `Name`, so that template-made items (names and
numbers swapped) embed as near-copies. The rule reads the whole set, never other sets."""

from __future__ import annotations

import re
from typing import Sequence

NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*")
WORD = re.compile(r"[^\W\d_][\w'’-]*")
NUMBER_MASK = "0"
NAME_MASK = "Name"


def lowercase_vocabulary(texts: Sequence[str]) -> set[str]:
    return {w for t in texts for w in WORD.findall(t) if w[0].islower()}


def mask(text: str, vocabulary: set[str]) -> str:
    text = NUMBER.sub(NUMBER_MASK, text)

    def name(m: re.Match) -> str:
        w = m.group(0)
        if w[0].isupper() and any(ch.islower() for ch in w[1:]) and w.lower() not in vocabulary:
            return NAME_MASK
        return w

    return WORD.sub(name, text)


def skeletons(texts: Sequence[str]) -> list[str]:
    vocab = lowercase_vocabulary(texts)
    return [mask(t, vocab) for t in texts]
