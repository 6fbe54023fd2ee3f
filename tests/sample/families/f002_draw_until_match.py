"""g365s-002: drawing in the dark until a match (every draw order enumerated)."""

import itertools
from fractions import Fraction

from sample.harness import verifies


def orders(counts: dict) -> list[tuple]:
    """Every order of drawing all the items (distinguishable copies), equally likely."""
    items = [(colour, k) for colour, n in counts.items() for k in range(n)]
    return list(itertools.permutations(items))


def stop_at(order, stop) -> int:
    for k in range(1, len(order) + 1):
        if stop(order[:k]):
            return k
    raise AssertionError("the drawing never stops")


def repeated_colour(hand) -> bool:
    colours = [c for c, _ in hand]
    return len(colours) != len(set(colours))


@verifies("g365s-002")
def _(q):
    total, red, blue, green = q.nums("holds {} loose socks: {} red, {} blue and {} green")
    assert red + blue + green == total
    all_orders = orders({"red": red, "blue": blue, "green": green})
    blue_pairs = 0
    for o in all_orders:
        hand = o[:stop_at(o, repeated_colour)]
        blue_pairs += [c for c, _ in hand].count("blue") == 2
    return Fraction(blue_pairs, len(all_orders))


@verifies("g365s-002-v1")
def _(q):
    total, red, blue, green = q.nums("holds {} counters: {} red, {} blue and {} green")
    assert red + blue + green == total
    all_orders = orders({"red": red, "blue": blue, "green": green})
    every_colour = lambda hand: len({c for c, _ in hand}) == 3  # noqa: E731
    return Fraction(sum(stop_at(o, every_colour) for o in all_orders), len(all_orders))


@verifies("g365s-002-v2")
def _(q):
    total, red, blue, gold = q.nums("holds {} marbles: {} red, {} blue and {} gold")
    assert red + blue + gold == total and gold == 1
    all_orders = orders({"red": red, "blue": blue, "gold": gold})

    def match(hand):
        colours = [c for c, _ in hand]
        return ("gold" in colours and len(colours) >= 2) or len(colours) != len(set(colours))
    hits = sum(("gold", 0) in o[:stop_at(o, match)] for o in all_orders)
    return Fraction(hits, len(all_orders))


@verifies("g365s-002-v3")
def _(q):
    q.has("three pairs of gloves: one black pair, one brown pair and one grey pair")
    more_than = q.int("need more than {} draws")
    gloves = [(c, side) for c in ("black", "brown", "grey") for side in ("L", "R")]
    all_orders = list(itertools.permutations(gloves))

    def wearable(hand):
        return any((c, "L") in hand and (c, "R") in hand for c, _ in hand)
    return Fraction(sum(stop_at(o, wearable) > more_than for o in all_orders), len(all_orders))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-002": "7 3 2 2 4",
    "g365s-002-v1": "6 3 2 1",
    "g365s-002-v2": "7 3 3 1 4",
    "g365s-002-v3": "3",
}
