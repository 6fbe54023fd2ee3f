"""g365s-020: taking coins from the ends of a row (or a circle), with a penny rule;
exact game-tree search."""

from functools import lru_cache

from sample.harness import verifies


def end_game(coins, *, penny=True, minimize=False, takes=(1,)) -> int:
    """What the player to move collects with both sides playing perfectly. After a penny
    (with `penny`) the same player must take again while coins remain."""
    coins = tuple(coins)
    pick = min if minimize else max

    @lru_cache(maxsize=None)
    def mover_gets(lo, hi):
        if lo >= hi:
            return 0
        rest = sum(coins[lo:hi])
        options = []
        for k in takes:
            if lo + k > hi:
                continue
            for taken, nlo, nhi in ((coins[lo:lo + k], lo + k, hi), (coins[hi - k:hi], lo, hi - k)):
                got = sum(taken)
                if penny and taken[-1] == 1 and nlo < nhi:
                    options.append(got + mover_gets(nlo, nhi))
                else:
                    options.append(got + (rest - got) - mover_gets(nlo, nhi))
        return pick(options)
    return mover_gets(0, len(coins))


def coins(q, lead):
    m = q.find(lead + r" ((?:\d+, )+\d+)")
    values = [int(x) for x in m.group(1).split(", ")]
    assert q.find(r"(ten) (?:coins|chocolate tokens)").group(1) == "ten" and len(values) == 10
    return values


PENNY = ("Penny rule: whoever takes a 1-cent coin must immediately take one more coin from "
         "either end of the row if any coins remain (that coin is theirs too, and if it is "
         "another 1-cent coin the rule applies again); then the turn passes.")


@verifies("g365s-020")
def _(q):
    row = coins(q, "Their values in cents, from left to right, are")
    q.has(PENNY, "They take turns, Ana first", "each trying to end with as many cents as possible")
    return end_game(row)


@verifies("g365s-020-v1")
def _(q):
    ring = coins(q, "Going clockwise, their values in cents are")
    q.has(PENNY, "and the last 10 is next to the first 10", "(This also applies if Ana's first "
          "coin is a 1-cent coin.)", "each trying to end with as many cents as possible")
    best = None
    for i, c in enumerate(ring):
        rest = ring[i + 1:] + ring[:i]      # the row left, its ends beside the gap
        got = c + end_game(rest) if c == 1 else c + sum(rest) - end_game(rest)
        best = got if best is None else max(best, got)
    return best


@verifies("g365s-020-v2")
def _(q):
    row = coins(q, "Their values in cents, from left to right, are")
    q.has(PENNY, "each player wants to end with as few cents as possible", "all coins must be "
          "taken")
    return end_game(row, minimize=True)


@verifies("g365s-020-v3")
def _(q):
    row = coins(q, "Their values, from left to right, are")
    q.has("takes either one or two tokens, all from the same end of the row", "There is no "
          "other rule.", "as large a total value as possible")
    return end_game(row, penny=False, takes=(1, 2))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-020": "10 25 5 1 50 10 1 25 5 10 1 1",
    "g365s-020-v1": "10 25 5 1 50 10 1 25 5 10 10 10 1 1 1",
    "g365s-020-v2": "10 25 5 1 50 10 1 25 5 10 1 1",
    "g365s-020-v3": "10 25 5 1 50 10 1 25 5 10",
}
