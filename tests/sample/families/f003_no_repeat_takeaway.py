"""g365s-003: take-away games where a move may not repeat a previous move."""

from functools import lru_cache

from sample.harness import verifies


def mover_wins(n, moves, *, last_wins=True, ban="own") -> bool:
    """Does the player to move win from n tokens? ban="own": not your own previous move;
    ban="opponent": not the move the opponent just made. No legal move: you lose."""
    @lru_cache(maxsize=None)
    def win(n, opp_last, my_last):
        banned = my_last if ban == "own" else opp_last
        options = [m for m in moves if m <= n and m != banned]
        for m in options:
            if n == m:
                if last_wins:
                    return True
                continue                  # taking the last token loses
            if not win(n - m, m, opp_last):
                return True
        return False
    return win(n, None, None)


@verifies("g365s-003")
def _(q):
    moves = q.nums("removes {}, {} or {} pebbles")
    lo, hi = q.nums("values of N from {} to {} inclusive")
    return sum(mover_wins(n, tuple(moves)) for n in range(lo, hi + 1))


@verifies("g365s-003-v1")
def _(q):
    moves = q.nums("removes {}, {} or {} pebbles")
    q.has("the player who removes the last pebble LOSES")
    lo, hi = q.nums("values of N from {} to {} inclusive")
    return sum(mover_wins(n, tuple(moves), last_wins=False) for n in range(lo, hi + 1))


@verifies("g365s-003-v2")
def _(q):
    moves = q.nums("removes {}, {} or {} matches")
    q.has("may not remove the same number that the opponent removed on the turn immediately")
    lo, hi = q.nums("values of N from {} to {} inclusive")
    return sum(not mover_wins(n, tuple(moves), ban="opponent") for n in range(lo, hi + 1))


@verifies("g365s-003-v3")
def _(q):
    # a child may never reuse any number she has taken before (not just the last one)
    moves = tuple(q.nums("taking {}, {} or {} sweets"))
    q.has("she never takes a number of sweets that she has already taken on any earlier turn of "
          "her own, so each number can be used by each child at most once",
          "The child who takes the last sweet wins; a child who cannot take a legal number while "
          "sweets remain loses.")
    lo, hi = q.nums("values of N from {} to {} inclusive")

    @lru_cache(maxsize=None)
    def win(n, mine, theirs):
        return any(m == n or not win(n - m, theirs, mine | {m})
                   for m in moves if m <= n and m not in mine)
    return sum(win(n, frozenset(), frozenset()) for n in range(lo, hi + 1))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-003": "1 2 3 1 30",
    "g365s-003-v1": "1 2 3 1 30",
    "g365s-003-v2": "2 3 5 1 50",
    "g365s-003-v3": "1 3 4 1 30",
}
