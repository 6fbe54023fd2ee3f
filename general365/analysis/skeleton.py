"""A question's skeleton: its text with numbers and names masked.

Template-based expansion (what the paper finds in BBH and BBEH) makes new items by swapping
names and numbers in a fixed text. Two such items differ only in what is masked here, so
their skeletons embed as near-copies whatever the embedder, while items that differ in
structure stay apart. `--no-mask` embeds the raw question instead (as the paper did).

- a number (`12`, `3.5`, `1,000`, `8:30`, `1/6`) becomes `0`;
- a name is a capitalised word that never occurs in lower case anywhere in the set
  (`Alice`, `Harrow`): it becomes `Name`. A capitalised ordinary word (`The`, `Each`) occurs
  in lower case somewhere in any set of realistic size, so it is kept. The rule reads the
  whole set, so a set's skeletons never depend on which other sets are analysed with it.
"""

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
