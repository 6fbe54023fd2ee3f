"""g365s-037: prices worked out from a café's (or shop's) receipts, some parts torn off, with
a discount rule that is easy to forget; every price list in the stated range is tried."""

import itertools
import re

from sample.harness import verifies

NUMBER = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3}


def menu(q) -> list[str]:
    m = q.find(r"sells (?:five|four) (?:things|items): "
               r"((?:an? \w+, )+an? \w+ and an? \w+)\.")
    return [x.split(" ", 1)[1] for x in re.split(r", | and ", m.group(1))]


def parse_order(text: str) -> dict[str, int]:
    order = {}
    for part in re.split(r", | and ", text):
        n, item = part.split(" ", 1)
        order[item.rstrip("s") if NUMBER.get(n, 0) != 1 else item] = NUMBER[n]
    return order


def orders(q) -> dict[str, tuple[dict, object]]:
    """name -> (order, total in dollars or None where torn)."""
    out = {}
    for m in q.findall(r"^(\w+): (.+?) — (\$\d+|torn)$"):
        if " some " in m.group(2):
            continue            # a count torn off: the question handles that line itself
        out[m.group(1)] = (parse_order(m.group(2)),
                           None if m.group(3) == "torn" else int(m.group(3)[1:]))
    return out


def price_lists(items, lo, hi, distinct=True):
    pool = itertools.permutations(range(lo, hi + 1), len(items)) if distinct else \
        itertools.product(range(lo, hi + 1), repeat=len(items))
    for combo in pool:
        yield dict(zip(items, combo))


def combo_off(order, pair, off):
    """$off for an order holding both items of the pair (once per order)."""
    return off if all(order.get(x) for x in pair) else 0


def combo_rule(q):
    m = q.find(r"any order that includes both an? (\w+) and an? (\w+) gets \$(\d+) off its total "
               r"\(once per order\)")
    return (m.group(1), m.group(2)), int(m.group(3))


def change_clue(q):
    m = q.find(r"(\w+)'s total is torn off, but (?:her|his) change from a \$(\d+) note is still "
               r"there, torn too: only its last digit, (\d), can be read")
    return m.group(1), int(m.group(2)), int(m.group(3))


def consistent(lines, totals) -> bool:
    return all(t is None or totals[f] == t for f, (_, t) in lines.items())


@verifies("g365s-037")
def _(q):
    items = menu(q)
    lo, hi = q.nums("Every item costs a whole number of dollars, from ${} to ${}")
    q.has("no two items cost the same")
    pair, off = combo_rule(q)
    bigger, smaller = q.find(r"An? (\w+) costs more than an? (\w+)\.").groups()
    lines = orders(q)
    payer, note, digit = change_clue(q)
    who = q.find(r"How much did (\w+) pay\?").group(1)
    due = set()
    for pr in price_lists(items, lo, hi):
        if pr[bigger] <= pr[smaller]:
            continue
        totals = {f: sum(n * pr[i] for i, n in o.items()) - combo_off(o, pair, off)
                  for f, (o, _) in lines.items()}
        change = note - totals[payer]
        if consistent(lines, totals) and 0 <= change < note and change % 10 == digit:
            due.add(totals[who])
    (paid,) = due
    return dollar_option(q, paid)


def dollar_option(q, amount) -> str:
    options = {int(m.group(2)): m.group(1) for m in q.findall(r"^([A-H])\. \$(\d+)$")}
    return options[amount]


def prices_that_fit(q, discount, extra_ok=lambda pr, totals: True):
    items = menu(q)
    lo, hi = q.nums("Every item costs a whole number of dollars, from ${} to ${}")
    q.has("no two items cost the same")
    bigger, smaller = q.find(r"An? (\w+) costs more than an? (\w+)\.").groups()
    lines = orders(q)
    for pr in price_lists(items, lo, hi):
        if pr[bigger] <= pr[smaller]:
            continue
        totals = {f: sum(n * pr[i] for i, n in o.items()) - discount(o)
                  for f, (o, _) in lines.items()}
        if consistent(lines, totals) and extra_ok(pr, totals):
            yield pr


@verifies("g365s-037-v1")
def _(q):
    # exactly one printed total is wrong: every choice of the wrong one is tried
    m = q.find(r"an order of (three|four) or more items \(counting every copy\) gets \$(\d+) off "
               r"its total")
    size, off = {"three": 3, "four": 4}[m.group(1)], int(m.group(2))
    q.has("The shop's till is faulty: of the three printed totals below, exactly one is wrong "
          "(misprinted), and the other two are right.")
    who = q.find(r"(\w+)'s total is torn off, but she remembers it was an odd number of "
                 r"dollars\.").group(1)
    items = menu(q)
    lo, hi = q.nums("Every item costs a whole number of dollars, from ${} to ${}")
    q.has("no two items cost the same")
    bigger, smaller = q.find(r"An? (\w+) costs more than an? (\w+)\.").groups()
    lines = orders(q)
    printed = [f for f, (_, t) in lines.items() if t is not None]
    assert len(printed) == 3
    tops = set()
    for pr in price_lists(items, lo, hi):
        if pr[bigger] <= pr[smaller]:
            continue
        totals = {f: sum(n * pr[i] for i, n in o.items()) - (off if sum(o.values()) >= size
                                                               else 0)
                  for f, (o, _) in lines.items()}
        right = sum(totals[f] == lines[f][1] for f in printed)
        if right == len(printed) - 1 and totals[who] % 2 == 1:
            tops.add(max(pr, key=pr.get))
    q.has("Which item is the most expensive?")
    (top,) = tops
    return q.letter_of(f"the {top}")


@verifies("g365s-037-v2")
def _(q):
    a, b, off = q.nums("every {w}-and-{w} pair in an order gets ${} off")
    q.has("(so an order with two pretzels and two sodas gets $2 off, and one with two pretzels "
          "and one soda gets $1 off)")
    who, digit = q.nums("{w}'s total is torn off, but the last digit, {}, can still be read")
    item = q.find(r"How much does an? (\w+) cost\?").group(1)
    found = {pr[item] for pr in prices_that_fit(
        q, lambda o: off * min(o.get(a, 0), o.get(b, 0)),
        lambda pr, totals: totals[who] % 10 == digit)}
    (price,) = found
    return dollar_option(q, price)


@verifies("g365s-037-v3")
def _(q):
    pair, off = combo_rule(q)
    m = q.find(r"^(\w+): (.+?) and some (\w+)s — \$(\d+)$")
    who, rest, item, paid = m.group(1), parse_order(m.group(2)), m.group(3), int(m.group(4))
    q.has(f"The number of {item}s on {who}'s receipt is torn off.")
    counts = set()
    for pr in prices_that_fit(q, lambda o: combo_off(o, pair, off)):
        for n in range(1, 10):
            order = {**rest, item: n}
            if sum(k * pr[i] for i, k in order.items()) - combo_off(order, pair, off) == paid:
                counts.add(n)
    (n,) = counts
    options = {int(x.group(2)): x.group(1) for x in q.findall(r"^([A-H])\. (\d)$")}
    return options[n]


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-037": "2 9 1 16 19 30 20 6 25 26 27 28 29",
    "g365s-037-v1": "1 8 2 20 17 16",
    "g365s-037-v2": "2 9 1 2 1 17 31 15 7 3 4 5 6 7",
    "g365s-037-v3": "1 7 1 13 13 10 19 10 1 2 3 4 5",
}
