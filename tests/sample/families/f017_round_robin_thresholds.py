"""g365s-017: points thresholds in a five-team round robin (all 3^10 result patterns)."""

import itertools
from fractions import Fraction
from functools import lru_cache
from math import lcm

from sample.harness import verifies

COUNT = {"two": 2, "Five": 5, "five": 5}


@lru_cache(maxsize=None)
def tables(win: int, draw: int, teams: int) -> frozenset:
    pairs = list(itertools.combinations(range(teams), 2))
    out = set()
    for results in itertools.product((0, 1, 2), repeat=len(pairs)):
        pts = [0] * teams
        for (a, b), r in zip(pairs, results):
            if r == 0:
                pts[a] += win
            elif r == 1:
                pts[b] += win
            else:
                pts[a] += draw
                pts[b] += draw
        out.add(tuple(pts))
    return frozenset(out)


def scoring(q, template):
    """The win and draw values as integers on a common scale, and that scale."""
    win, draw = q.nums(template)
    scale = lcm(Fraction(win).denominator, Fraction(draw).denominator)
    return int(win * scale), int(draw * scale), scale


def smallest_safe(all_tables, spots: int) -> int:
    worst = {}
    for pts in all_tables:
        rivals = sum(x >= pts[0] for x in pts[1:])
        worst[pts[0]] = max(worst.get(pts[0], 0), rivals)
    return min(p for p in worst if all(worst[x] <= spots - 1 for x in worst if x >= p))


@verifies("g365s-017")
def _(q):
    teams = COUNT[q.find(r"^(Five) teams play a single round-robin league").group(1)]
    win, draw, scale = scoring(q, "A win earns {} points, a draw earns {} point for each team")
    q.has("a loss earns 0")
    spots = COUNT[q.find(r"the (two) teams with the most points qualify").group(1)]
    return Fraction(smallest_safe(tables(win, draw, teams), spots), scale)


@verifies("g365s-017-v1")
def _(q):
    # the least score that can still finish strictly above every other player
    teams = COUNT[q.find(r"^(Five) players play a single round-robin").group(1)]
    win, draw, scale = scoring(q, "A win scores {} point, a draw scores {} point for each player")
    q.has("a loss scores 0", "A player wins the tournament outright when every other player "
          "finishes with fewer points.", "What is the smallest score with which a player can "
          "win the tournament outright?")
    return Fraction(min(p[0] for p in tables(win, draw, teams)
                        if all(x < p[0] for x in p[1:])), scale)


@verifies("g365s-017-v2")
def _(q):
    teams = COUNT[q.find(r"The (five) houses of a school").group(1)]
    win, draw, scale = scoring(q, "A win earns {} points, a draw earns {} point for each house")
    q.has("a loss earns 0")
    spots = COUNT[q.find(r"The top (two) houses go to the final").group(1)]
    return Fraction(max(p[0] for p in tables(win, draw, teams)
                        if sum(x > p[0] for x in p[1:]) >= spots), scale)


@verifies("g365s-017-v3")
def _(q):
    teams = COUNT[q.find(r"^(Five) teams play a single round-robin league").group(1)]
    win, draw, scale = scoring(q, "A win earns {} points, a draw earns {} point for each team")
    q.has("a loss earns 0", "The team with the fewest points is relegated")
    return Fraction(max(p[0] for p in tables(win, draw, teams)
                        if all(x >= p[0] for x in p[1:])), scale)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-017": "3 1 0",
    "g365s-017-v1": "1 ½ 0",
    "g365s-017-v2": "3 1 0",
    "g365s-017-v3": "3 1 0",
}
