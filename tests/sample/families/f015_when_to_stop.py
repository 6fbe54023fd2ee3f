"""g365s-015: when to stop rolling (or turning cards): optimal stopping, exact values."""

from fractions import Fraction
from functools import lru_cache

from sample.harness import verifies


def best_value(start, moves, stop_value, *, must_move_first=True):
    """Optimal expected value. moves(state) -> [(probability, next state or None for a
    bust)], [] when no further move is allowed. stop_value(state, None) is the score for
    stopping at state; stop_value(None, state) the score for busting from state."""
    @lru_cache(maxsize=None)
    def v(st, first):
        options = moves(st)
        go = sum(p * (v(nxt, False) if nxt is not None else stop_value(None, st))
                 for p, nxt in options) if options else None
        if first and must_move_first:
            return go
        stop = stop_value(st, None)
        return stop if go is None else max(stop, go)
    return v(start, True)


def die_game(q):
    q.has("You play a solo game with a fair six-sided die.", "You must roll at least once")
    most = q.int("may roll at most {} times")
    limit = q.int("if the total ever exceeds {} you bust")

    def moves(st):
        total, rolls = st
        if rolls == most:
            return []
        return [(Fraction(1, 6), (total + d, rolls + 1) if total + d <= limit else None)
                for d in range(1, 7)]
    return moves, most


@verifies("g365s-015")
def _(q):
    moves, _ = die_game(q)
    q.has("If you stop without busting you score your total; a bust scores 0.")
    return best_value((0, 0), moves, lambda st, bust_from: 0 if st is None else st[0])


@verifies("g365s-015-v1")
def _(q):
    moves, most = die_game(q)
    q.has(f"(or are forced to stop after the {most}th roll)")
    goal = q.int("with a total of at least {} without busting")
    return best_value((0, 0), moves,
                      lambda st, bust_from: 0 if st is None else Fraction(int(st[0] >= goal)))


@verifies("g365s-015-v2")
def _(q):
    cards = tuple(q.nums("Six cards numbered {}, {}, {}, {}, {} and {}"))
    limit = q.int("ever exceeds {} you bust and score 0")
    q.has("You must turn at least one card")

    def moves(st):
        total, deck = st
        return [(Fraction(1, len(deck)),
                 (total + c, deck[:i] + deck[i + 1:]) if total + c <= limit else None)
                for i, c in enumerate(deck)]
    return best_value((0, cards), moves, lambda st, bust_from: 0 if st is None else st[0])


@verifies("g365s-015-v3")
def _(q):
    moves, _ = die_game(q)
    fee = q.int("every further roll costs {} point")
    q.has("The first roll is free", "(and still owed if that roll busts)",
          "if you bust you score 0 minus the fees paid")

    def paid(st):              # fees paid to reach state st: every roll after the first
        return fee * max(st[1] - 1, 0)

    def value(st, bust_from):
        if st is None:         # busting on the roll made from bust_from
            return -fee * bust_from[1]
        return st[0] - paid(st)
    return best_value((0, 0), moves, value)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-015": "4 12 0 4",
    "g365s-015-v1": "4 12 4 10",
    "g365s-015-v2": "1 2 3 4 5 6 10 0 2",
    "g365s-015-v3": "4 12 1 0 4",
}
