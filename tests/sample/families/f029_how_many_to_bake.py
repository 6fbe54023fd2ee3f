"""g365s-029: how many to make for tomorrow, with bulk prices, salvage or disposal, and a
demand read from past days; exact expectations over the stated frequencies."""

import re
from fractions import Fraction

from sample.harness import verifies


def demand(q) -> dict[int, int]:
    m = q.find(r"Over the last (\d+) days, the number of customers who wanted one was: "
               r"((?:\d+ on \d+ days?(?:, )?)+)\.")
    days = {}
    for part in m.group(2).split(", "):
        wanted, seen = re.fullmatch(r"(\d+) on (\d+) days?", part).groups()
        days[int(wanted)] = int(seen)
    assert sum(days.values()) == int(m.group(1))
    q.has("Assume tomorrow's demand follows these frequencies exactly. Each customer buys at most "
          "one, and customers who find none left simply leave.")
    return days


def profit(made, wanted, *, price, cost, leftover):
    sold = min(made, wanted)
    return price * sold + leftover(made - sold) - cost(made)


def best_letter(q, score) -> str:
    opts = {int(m.group(2)): m.group(1) for m in q.findall(r"^([A-E])\. (\d+) \w+$")}
    assert len(opts) == 5
    scores = {n: score(n) for n in opts}
    top = max(scores.values())
    (best,) = [n for n, s in scores.items() if s == top]
    return opts[best]


def expected(days, made, **kw) -> Fraction:
    total = sum(days.values())
    return sum(Fraction(n, total) * profit(made, d, **kw) for d, n in days.items())


def bulk(q):
    usual, at_least, cheap = q.nums("Ingredients cost ${} per cake, but if she bakes {} or more "
                                    "cakes, the supplier charges ${} per cake for all of them.")
    return lambda n: (cheap if n >= at_least else usual) * n


@verifies("g365s-029")
def _(q):
    price = q.int("Each cake sells for ${}.")
    cost = bulk(q)
    salvage = q.int("sold the next morning to a café for ${} each")
    days = demand(q)
    q.has("to make her expected profit as large as possible")
    return best_letter(q, lambda n: expected(days, n, price=price, cost=cost,
                                             leftover=lambda k: salvage * k))


@verifies("g365s-029-v1")
def _(q):
    # demand depends on the decision: a full stall draws one more customer
    price, unit = q.nums("Each bouquet sells for ${} and costs ${} to make.")
    dispose = q.int("the market charges ${} each to dispose of them")
    shown = q.int("On all those days he showed {} or fewer bouquets.")
    full = q.int("whenever he shows {} or more bouquets, one customer more than those "
                 "frequencies give wants one that day")
    more = 1
    assert full == shown + 1
    days = demand(q)
    q.has("to make his expected profit as large as possible")

    def score(n):
        shifted = {d + (more if n >= full else 0): k for d, k in days.items()}
        return expected(shifted, n, price=price, cost=lambda k: unit * k,
                        leftover=lambda k: -dispose * k)
    return best_letter(q, score)


@verifies("g365s-029-v2")
def _(q):
    price = q.int("Each cake sells for ${}.")
    cost = bulk(q)
    salvage, cap = q.nums("pays ${} each but takes at most {} cakes")
    q.has("any further leftover cakes are thrown away (at no cost)")
    days = demand(q)
    q.has("to make her expected profit as large as possible")
    return best_letter(q, lambda n: expected(days, n, price=price, cost=cost,
                                             leftover=lambda k: salvage * min(k, cap)))


@verifies("g365s-029-v3")
def _(q):
    price = q.int("Each cake sells for ${}.")
    cost = bulk(q)
    salvage = q.int("sold the next morning to a café for ${} each")
    days = demand(q)
    goal = q.int("the probability that tomorrow's profit is at least ${} as large as possible")
    total = sum(days.values())
    return best_letter(q, lambda n: Fraction(sum(k for d, k in days.items() if profit(
        n, d, price=price, cost=cost, leftover=lambda x: salvage * x) >= goal), total))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-029": "10 4 5 3 1 20 0 1 1 2 2 3 3 5 4 4 5 3 6 2 3 4 5 6 7",
    "g365s-029-v1": "10 4 1 20 0 1 1 2 2 3 3 5 4 4 5 3 6 2 4 5 2 3 4 5 6",
    "g365s-029-v2": "10 4 6 3 1 2 20 0 1 1 2 2 3 3 5 4 4 5 3 6 2 3 4 5 6 7",
    "g365s-029-v3": "10 4 5 3 1 20 0 1 1 2 2 3 3 5 4 4 5 3 6 2 18 3 4 5 6 7",
}
