"""The reasoning text the benchmarks' synthetic responses carry: prose words with the math a
model writes while it works (products, fractions, a tentative box), paragraph breaks.

`prose(rng, chars, words, pieces, paragraph)`: one draw per token; `pieces` are (upto, make)
pairs tried in order on that draw (cumulative thresholds), a word from `words` otherwise,
then a paragraph break with probability `paragraph`. Deterministic for a seeded rng."""

from __future__ import annotations

import random
from typing import Callable, Sequence

Piece = tuple[float, Callable[[random.Random], str]]


def product(rng: random.Random) -> str:
    return f"${rng.randint(2, 99)} \\times {rng.randint(2, 99)} = {rng.randint(100, 9999)}$"


def fraction(largest: int) -> Callable[[random.Random], str]:
    return lambda rng: f"$\\frac{{{rng.randint(1, largest)}}}{{{rng.randint(2, largest)}}}$"


def prose(rng: random.Random, chars: int, words: Sequence[str], pieces: Sequence[Piece],
          paragraph: float) -> str:
    parts, n = [], 0
    while n < chars:
        r = rng.random()
        w = next((make(rng) for upto, make in pieces if r < upto), None)
        if w is None:
            w = rng.choice(words)
        parts.append(w)
        n += len(w) + 1
        if rng.random() < paragraph:
            parts.append("\n\n")
    return " ".join(parts)
