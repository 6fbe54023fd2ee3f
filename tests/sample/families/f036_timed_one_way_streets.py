"""g365s-036: for which departure times can a courier still make it, on streets whose
one-way direction flips at a set time (or that close for a while)?

Every street rule changes at a whole minute and every ride takes whole minutes, so whether
a departure time t works can change only at whole minutes of t: `solve_set` tests every
whole minute and one point between each pair, which makes the set exact. For a given t
every route without a repeated street is tried."""

import re
from fractions import Fraction

from sample.harness import minutes, solve_set, verifies


def streets(q):
    """(a, b, ride minutes, rule) per street line; rule(frm, to, clock) -> may enter?"""
    out = []
    for m in q.findall(r"^- (\w+)–(\w+): (\d+) minutes, (.+)\.$"):
        a, b, ride, text = m.group(1), m.group(2), int(m.group(3)), m.group(4)
        out.append((a, b, ride, street_rule(a, b, text)))
    return out


def street_rule(a, b, text):
    if text == "two-way":
        return lambda frm, to, clock: True
    if m := re.fullmatch(r"one-way from (\w+) to (\w+) before (\d+:\d\d) and from (\w+) to (\w+) "
                         r"from \3 on", text):
        first, second = (m.group(1), m.group(2)), (m.group(4), m.group(5))
        switch = minutes(m.group(3))
        assert {first, second} == {(a, b), (b, a)} and first != second
        return lambda frm, to, clock: (frm, to) == (first if clock < switch else second)
    if m := re.fullmatch(r"one-way from (\w+) to (\w+)", text):
        return lambda frm, to, clock: (frm, to) == (m.group(1), m.group(2))
    if m := re.fullmatch(r"two-way, but closed from (\d+:\d\d) until (\d+:\d\d) \(it may not be "
                         r"entered then\)", text):
        lo, hi = minutes(m.group(1)), minutes(m.group(2))
        return lambda frm, to, clock: not lo <= clock < hi
    raise AssertionError(f"unknown street rule {text!r}")


def routes(street_list, start, goal):
    """Every route from start to goal that uses no street twice: [(from, to, ride, rule)]."""
    out = []

    def go(node, used, path):
        if node == goal:
            out.append(list(path))
            return
        for i, (a, b, ride, rule) in enumerate(street_list):
            if i in used or node not in (a, b):
                continue
            other = b if node == a else a
            path.append((node, other, ride, rule))
            go(other, used | {i}, path)
            path.pop()
    go(start, frozenset(), [])
    return out


def arrival(route, leave, *, wait=False, extra=lambda clock: 0):
    """When the route reaches its end, leaving at `leave`; None if a street cannot be entered.
    With `wait`, the rider may wait at a junction (for a street to become allowed);
    extra(clock): minutes added to a street entered at that clock time."""
    clock = Fraction(leave)
    for frm, to, ride, rule in route:
        if not rule(frm, to, clock):
            if not wait:
                return None
            # Rules change only at whole minutes: the next allowed moment is a whole minute.
            clock = next((Fraction(k) for k in range(int(clock) + 1, 24 * 60) if rule(frm, to, k)),
                         None)
            if clock is None:
                return None
        clock += ride + extra(clock)
    return clock


def setup(q):
    origin = q.nums("He leaves the depot D at t minutes after {t}")[0]
    lo, hi = q.nums("({} <= t <= {})")
    deadline = q.nums("must reach the bakery B by {t} at the latest")[0]
    q.has("The streets between the depot D, the bakery B and the junctions E, F, G and H are "
          "listed below", "(the same in both directions)", "A one-way rule or a closure "
          "applies at the moment he enters a street", "he may finish a street after its rule "
          "has changed)")
    q.find(r"he never (?:rides|drives) the same street twice")
    return origin, lo, hi, deadline


def answer(q, all_routes, **kw):
    origin, lo, hi, deadline = setup(q)

    def works(t):
        return any((a := arrival(r, origin + t, **kw)) is not None and a <= deadline
                   for r in all_routes)
    return solve_set(works, lo, hi, [Fraction(k) for k in range(lo, hi + 1)])


@verifies("g365s-036")
def _(q):
    q.has("He never stops or waits on the way.")
    return answer(q, routes(streets(q), "D", "B"))


@verifies("g365s-036-v1")
def _(q):
    q.has("the driver may stop and wait at the depot or at any junction for as long as he likes")
    return answer(q, routes(streets(q), "D", "B"), wait=True)


@verifies("g365s-036-v2")
def _(q):
    via = q.find(r"On the way he must pass through junction (\w), where a parcel is handed to him "
                 r"as he rides by\.").group(1)
    q.has("He never stops or waits on the way.")
    passing = [r for r in routes(streets(q), "D", "B") if any(to == via for _, to, _, _ in r)]
    return answer(q, passing)


@verifies("g365s-036-v3")
def _(q):
    start, end, again, more = q.nums("any street he enters from {t} until {t} ({t} itself not "
                                     "included) takes {} minutes longer than listed")
    assert again == end
    q.has("He never stops or waits on the way.", "Because of the school run")
    return answer(q, routes(streets(q), "D", "B"),
                  extra=lambda clock: more if start <= clock < end else 0)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-036": (
        "4 8 10 8 30 13 9 12 8 10 8 25 10 8 05 8 25 13 8 00 8 00 12 8 00 8 "
        "00 10 7 30 0 60 8 40"),
    "g365s-036-v1": (
        "9 9 8 10 8 25 7 4 8 05 8 25 12 11 8 00 8 00 12 8 00 8 00 9 8 00 8 "
        "00 7 30 0 60 8 40"),
    "g365s-036-v2": "12 14 10 6 10 5 8 00 8 00 12 5 8 05 8 30 7 30 0 60 8 35",
    "g365s-036-v3": (
        "7 6 13 9 6 8 00 8 00 7 8 00 8 00 4 8 00 8 00 12 8 00 8 00 8 00 8 "
        "30 8 30 3 7 30 0 60 8 35"),
}
