"""g365s-021: a pawn on a track with ladders and snakes; exact probabilities by recursion
over (square, rolls left)."""

from fractions import Fraction
from functools import lru_cache

from sample.harness import verifies


def step(pos, roll, home, jumps, bounce):
    q = pos + roll
    if q > home:
        if not bounce:
            return pos
        q = home - (q - home)
    return jumps.get(q, q)


def standard_track(q):
    start, home = q.nums("squares numbered {} (start) to {} (home)")
    assert q.int("A pawn starts on square {}.") == start == 0
    q.has("Each roll of a fair six-sided die moves it forward that many squares")
    assert q.int("if a roll would take it past {}, it goes to") == home
    frm, roll, end = q.nums("(from {}, a roll of {} ends on {})")
    ladder = q.nums("Square {} has a ladder: a pawn that ends a move on square {} climbs to "
                    "square {}.")
    snake = q.nums("Square {} has a snake: a pawn that ends a move on square {} slides down to "
                   "square {}.")
    assert ladder[0] == ladder[1] and snake[0] == snake[1]
    jumps = {ladder[0]: ladder[2], snake[0]: snake[2]}
    assert step(frm, roll, home, {}, True) == end
    q.has(f"goes to {home} and bounces back the remaining steps",
          f"The pawn is home as soon as it ends a move exactly on {home}")
    return home, jumps, snake[0]


def p_home(rolls, home, jumps, bounce) -> Fraction:
    @lru_cache(maxsize=None)
    def p(pos, left):
        if pos == home:
            return Fraction(1)
        if left == 0:
            return Fraction(0)
        return sum(p(step(pos, r, home, jumps, bounce), left - 1) for r in range(1, 7)) / 6
    return p(0, rolls)


@verifies("g365s-021")
def _(q):
    home, jumps, _ = standard_track(q)
    return p_home(q.int("gets home within its first {} rolls?"), home, jumps, True)


@verifies("g365s-021-v1")
def _(q):
    start, home = q.nums("squares numbered {} (entrance) to {} (treasure)")
    assert q.int("A token starts on square {}.") == start == 0
    q.has("Each roll of a fair six-sided die", f"the token must land exactly on {home}",
          "the token does not move at all on that roll", f"The token stops once it reaches {home}")
    assert q.int("if a roll would take it past {}, the token") == home
    jumps = {}
    for template in ("Square {} has stairs up to square {}", "square {} has a trapdoor down to "
                     "square {}", "square {} has a slide down to square {}"):
        a, b = q.nums(template)
        jumps[a] = b
    rolls = q.int("reaches the treasure within {} rolls?")
    return p_home(rolls, home, jumps, False)


@verifies("g365s-021-v2")
def _(q):
    home, jumps, _ = standard_track(q)
    q.has("A six earns a bonus roll: after rolling a 6 (and following any ladder or snake), the "
          "player rolls again in the same turn.", "so a turn has at most two rolls")
    turns = q.int("gets home within its first {} turns?")

    @lru_cache(maxsize=None)
    def p(pos, turns_left, bonus_allowed):
        if pos == home:
            return Fraction(1)
        if turns_left == 0:
            return Fraction(0)
        total = Fraction(0)
        for r in range(1, 7):
            nxt = step(pos, r, home, jumps, True)
            if nxt == home:
                total += 1
            elif r == 6 and bonus_allowed:
                total += p(nxt, turns_left, False)
            else:
                total += p(nxt, turns_left - 1, True)
        return total / 6
    return p(0, turns, True)


@verifies("g365s-021-v3")
def _(q):
    home, jumps, snake = standard_track(q)
    assert q.int("lands on the snake (square {})") == snake
    rolls = q.int("at least once during its first {} rolls?")
    q.has("(If it gets home earlier it stops rolling.)")

    @lru_cache(maxsize=None)
    def p(pos, left):
        if pos == home or left == 0:
            return Fraction(0)
        total = Fraction(0)
        for r in range(1, 7):
            landed = step(pos, r, home, {}, True)
            total += 1 if landed == snake else p(jumps.get(landed, landed), left - 1)
        return total / 6
    return p(0, rolls)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-021": "0 20 0 20 20 18 5 17 3 3 11 14 14 4 20 4 4",
    "g365s-021-v1": "0 16 0 16 16 2 9 12 5 15 10 16 4 4",
    "g365s-021-v2": "0 20 0 20 20 18 5 17 3 3 11 14 14 4 20 6 3 4",
    "g365s-021-v3": "0 20 0 20 20 18 5 17 3 3 11 14 14 4 20 14 4 4",
}
