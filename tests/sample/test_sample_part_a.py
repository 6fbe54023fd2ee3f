"""Machine verification of the bundled sample, part A (seeds g365s-001 .. g365s-015).

Every verifier below recomputes a row's answer from the problem's own parameters (brute
force, exact Fractions, BFS, game search, simulation) and compares it with the gold stored
in general365/data/sample/part_a.jsonl. The parameters are restated here next to each
verifier; the question text is the source of truth, so a gold that drifts from its
question fails here rather than in a model's score.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import deque
from fractions import Fraction as F
from functools import lru_cache
from pathlib import Path

import pytest

from general365.schema import AnswerType, Category, Problem

DATA = Path(__file__).resolve().parents[2] / "general365" / "data" / "sample" / "part_a.jsonl"
VERIFIED_SOURCE = ("general365 sample (original); answer machine-verified by "
                   "tests/sample/test_sample_part_a.py")
REVIEWED_SOURCE = "general365 sample (original); answer reviewed twice by hand"
INF = float("inf")


@lru_cache(maxsize=None)
def rows() -> dict:
    out = {}
    with DATA.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            d = json.loads(line)
            out[d["id"]] = Problem.from_dict(d, path=str(DATA), line=n)
    return out


# --- gold parsing (only the plain forms this file's golds use) ------------------------

def parse_number(s: str) -> F:
    s = s.strip()
    m = re.fullmatch(r"(-?)\\frac\{(\d+)\}\{(\d+)\}", s)
    if m:
        v = F(int(m[2]), int(m[3]))
        return -v if m[1] else v
    assert re.fullmatch(r"-?\d+(\.\d+)?", s), f"unexpected number gold {s!r}"
    return F(s)


def round_half_up(x: F, k: int) -> F:
    scale = 10 ** k
    return F((x * scale + F(1, 2)).__floor__(), scale)


def parse_endpoint(s: str):
    s = s.strip()
    if s in (r"+\infty", r"\infty"):
        return INF
    if s == r"-\infty":
        return -INF
    return parse_number(s)


def parse_intervals(s: str) -> list:
    out = []
    for part in s.split(r"\cup"):
        m = re.fullmatch(r"\s*([\[(])(.+),(.+)([\])])\s*", part)
        assert m, f"unexpected interval gold {part!r}"
        out.append((m[1] == "[", parse_endpoint(m[2]), parse_endpoint(m[3]), m[4] == "]"))
    return out


def in_intervals(ivs, x) -> bool:
    for lo_closed, lo, hi, hi_closed in ivs:
        if (lo < x or (lo_closed and x == lo)) and (x < hi or (hi_closed and x == hi)):
            return True
    return False


def check_interval(gold: str, member, lo: F, hi: F, step: F, extra=()) -> None:
    """The gold set and the rule agree on a grid, on every gold endpoint and just beside it."""
    ivs = parse_intervals(gold)
    pts = set()
    x = lo
    while x <= hi:
        pts.add(x)
        x += step
    eps = F(1, 10 ** 6)
    for _, a, b, _ in ivs:
        for e in (a, b):
            if e not in (INF, -INF):
                pts.update((e, e - eps, e + eps))
    pts.update(extra)
    bad = [p for p in sorted(pts) if member(p) != in_intervals(ivs, p)]
    assert not bad, f"gold {gold} disagrees with the rules at {[str(p) for p in bad[:5]]}"


def assert_gold(rid: str, computed) -> None:
    p = rows()[rid]
    if p.answer_type is AnswerType.NUMBER:
        computed = F(computed)
        gold = parse_number(p.answer)
        if p.float_round:
            assert round_half_up(computed, p.float_round) == gold, (rid, str(computed), p.answer)
        else:
            assert computed == gold, (rid, str(computed), p.answer)
    elif p.answer_type.is_choice:
        assert set(computed) == set(p.answer), (rid, computed, p.answer)
        if p.answer_type is AnswerType.SINGLE_CHOICE:
            assert len(p.answer) == 1
    else:
        assert computed == p.answer, (rid, computed, p.answer)


VERIFIERS: dict = {}


def verifies(*ids):
    def deco(fn):
        for rid in ids:
            assert rid not in VERIFIERS, f"two verifiers for {rid}"
            VERIFIERS[rid] = fn
        return fn
    return deco


# --- g365s-001: skipped floor labels --------------------------------------------------

def label_list(keep, upto=200):
    return [n for n in range(1, upto) if keep(n)]


def no4_no13(n):
    return "4" not in str(n) and n != 13


@verifies("g365s-001")
def _(rid):
    labels = label_list(no4_no13)
    level = {lab: i + 1 for i, lab in enumerate(labels)}  # ground floor G is level 0
    trip = [9, 31, 5, 17]
    floors = sum(abs(level[a] - level[b]) for a, b in zip(trip, trip[1:]))
    assert_gold(rid, F(floors) * F(7, 2) / F(7, 4) + 10 * (len(trip) - 2))


@verifies("g365s-001-v1")
def _(rid):
    labels = label_list(lambda n: n != 13)
    level = {lab: i + 1 for i, lab in enumerate(labels)}  # lobby L is level 0, P1 is -1
    start = -2                                           # parking level P2
    climbed = F(2) * 38 / 4                              # 38 s at 2 m/s, 4 m per floor
    assert climbed.denominator == 1
    (label,) = [lab for lab, lv in level.items() if lv == start + climbed]
    assert_gold(rid, label)


@verifies("g365s-001-v2")
def _(rid):
    labels = label_list(lambda n: "4" not in str(n))
    level = {lab: i for i, lab in enumerate(labels)}      # label 1 is street level 0
    level.update({"B1": -1, "B2": -2})
    assert_gold(rid, (level[52] - level["B2"]) * 18)


@verifies("g365s-001-v3")
def _(rid):
    numbers = label_list(lambda n: n % 2 == 1 and n != 13 and "4" not in str(n), 60)
    pos = {num: i for i, num in enumerate(numbers)}
    route = [7, 59, 21]
    gaps = sum(abs(pos[a] - pos[b]) for a, b in zip(route, route[1:]))
    assert_gold(rid, gaps * 15)


# --- g365s-002: drawing until a match -------------------------------------------------

def draw_orders(items):
    """Every order of drawing all the (distinguishable) items, each equally likely."""
    return list(itertools.permutations(items))


def stop_index(order, stop):
    for k in range(1, len(order) + 1):
        if stop(order[:k]):
            return k
    return None


def colour_pair(hand):
    cols = [c for c, _ in hand]
    return len(cols) != len(set(cols))


@verifies("g365s-002")
def _(rid):
    socks = [("R", i) for i in range(3)] + [("B", i) for i in range(2)] + [("G", i) for i in range(2)]
    orders = draw_orders(socks)
    blue = 0
    for o in orders:
        k = stop_index(o, colour_pair)
        cols = [c for c, _ in o[:k]]
        blue += cols.count("B") == 2
    assert_gold(rid, F(blue, len(orders)))


@verifies("g365s-002-v1")
def _(rid):
    socks = [("R", i) for i in range(3)] + [("B", i) for i in range(2)] + [("G", 0)]
    orders = draw_orders(socks)
    total = sum(stop_index(o, lambda h: len({c for c, _ in h}) == 3) for o in orders)
    assert_gold(rid, F(total, len(orders)))


@verifies("g365s-002-v2")
def _(rid):
    marbles = [("R", i) for i in range(3)] + [("B", i) for i in range(3)] + [("W", 0)]

    def match(hand):
        cols = [c for c, _ in hand]
        return "W" in cols and len(cols) >= 2 or len(cols) != len(set(cols))
    orders = draw_orders(marbles)
    hits = sum(("W", 0) in o[:stop_index(o, match)] for o in orders)
    assert_gold(rid, F(hits, len(orders)))


@verifies("g365s-002-v3")
def _(rid):
    gloves = [(c, side) for c in ("black", "brown", "grey") for side in ("L", "R")]

    def match(hand):
        return any((c, "L") in hand and (c, "R") in hand for c, _ in hand)
    orders = draw_orders(gloves)
    hits = sum(stop_index(o, match) > 3 for o in orders)
    assert_gold(rid, F(hits, len(orders)))


# --- g365s-003: take-away game with a no-repeat rule ----------------------------------

def mover_wins(n, moves, last_wins=True, ban="opponent"):
    """Does the player to move win from n tokens? A player with no legal move loses."""
    @lru_cache(maxsize=None)
    def win(n, opp_last, my_last):
        banned = opp_last if ban == "opponent" else my_last
        options = [m for m in moves if m <= n and m != banned]
        if not options:
            return False
        for m in options:
            if n - m == 0:
                if last_wins:
                    return True
                continue          # taking the last token loses: never chosen when avoidable
            if not win(n - m, m, opp_last):
                return True
        return False
    return win(n, None, None)


@verifies("g365s-003")
def _(rid):
    assert_gold(rid, sum(mover_wins(n, (1, 2, 3), ban="own") for n in range(1, 31)))


@verifies("g365s-003-v1")
def _(rid):
    assert_gold(rid, sum(mover_wins(n, (1, 2, 3), last_wins=False, ban="own")
                         for n in range(1, 31)))


@verifies("g365s-003-v2")
def _(rid):
    assert_gold(rid, sum(not mover_wins(n, (2, 3, 5)) for n in range(1, 51)))


@verifies("g365s-003-v3")
def _(rid):
    assert_gold(rid, sum(mover_wins(n, (1, 3, 4), ban="own") for n in range(1, 31)))


# --- g365s-004: scheduling two workers and one shared machine -------------------------

def best_makespan(tasks, workers):
    """Exhaustive search over start orders and worker choices.

    tasks: name -> (minutes, prerequisites, allowed workers (empty: needs nobody), machine).
    Each worker and each machine does one thing at a time. Placing tasks in every
    prerequisite-respecting order, each as early as its worker, machine and prerequisites
    allow, reaches an optimal schedule (order an optimal schedule by start time)."""
    best = [INF]

    def go(done, free, finish):
        if len(done) == len(tasks):
            best[0] = min(best[0], max(finish.values()))
            return
        for name, (dur, pre, allowed, machine) in tasks.items():
            if name in done or not set(pre) <= done:
                continue
            ready = max([finish[p] for p in pre], default=0)
            for w in (allowed or [None]):
                start = max(ready, free.get(w, 0) if w else 0,
                            free.get(machine, 0) if machine else 0)
                if start + dur >= best[0]:
                    continue
                f2 = dict(free)
                if w:
                    f2[w] = start + dur
                if machine:
                    f2[machine] = start + dur
                go(done | {name}, f2, {**finish, name: start + dur})
    go(frozenset(), {}, {})
    return best[0]


KITCHEN = {   # name: (minutes, prerequisites, who may do it (empty: nobody needed), machine)
    "chop": (15, (), ("Ana", "Ben"), None),
    "dough": (20, (), ("Ana",), None),
    "rise": (30, ("dough",), (), None),
    "bread": (25, ("rise",), (), "oven"),
    "roast": (35, ("chop",), (), "oven"),
    "sauce": (25, ("chop",), ("Ana", "Ben"), None),
    "mix": (20, (), ("Ben",), None),
    "custard": (15, ("mix",), (), "oven"),
    "cool": (20, ("custard",), (), None),
    "plate": (10, ("bread", "roast", "sauce", "cool"), ("Ana", "Ben"), None),
}


@verifies("g365s-004")
def _(rid):
    assert_gold(rid, best_makespan(KITCHEN, ("Ana", "Ben")))


@verifies("g365s-004-v1")
def _(rid):
    alone = {k: (d, p, ("Ana",) if who else (), m) for k, (d, p, who, m) in KITCHEN.items()}
    assert_gold(rid, best_makespan(alone, ("Ana",)))


@verifies("g365s-004-v2")
def _(rid):
    kl = ("Kai", "Lena")
    shop = {
        "brakes A": (35, (), ("Lena",), "lift"),
        "dry A": (25, ("brakes A",), (), None),
        "polish A": (10, ("dry A",), kl, None),
        "parts B": (30, (), (), None),
        "tyres B": (20, ("parts B",), kl, "lift"),
        "align B": (15, ("tyres B",), kl, None),
        "oil C": (15, (), kl, "lift"),
        "wash C": (20, ("oil C",), ("Kai",), None),
    }
    assert_gold(rid, best_makespan(shop, kl))


@verifies("g365s-004-v3")
def _(rid):
    kitchen = dict(KITCHEN)
    kitchen["custard"] = (15, ("mix",), (), "small oven")
    assert_gold(rid, best_makespan(kitchen, ("Ana", "Ben")))


# --- g365s-005: catching a bus (sets of speeds and times) -----------------------------

def bus_trip_on_time(at_stop, walk_on, buses, stay, ride, deadline, wait_limit=None):
    """at_stop: arrival time at the stop; walk_on: arrival time if she walks on instead."""
    for a in buses:
        if a <= at_stop <= a + stay:
            return a + stay + ride <= deadline
    if wait_limit is not None:
        for a in buses:
            if at_stop < a <= at_stop + wait_limit:
                return a + stay + ride <= deadline
    return walk_on <= deadline


def breakpoints(*groups):
    return {F(x) for g in groups for x in g if x > 0}


@verifies("g365s-005")
def _(rid):
    # 2 km to the stop, 3 km more to school; times in minutes after 7:40; v in km/h.
    buses, stay, ride, deadline = (20, 32, 44), 1, 15, 50

    def member(v):
        return bus_trip_on_time(F(120) / v, F(300) / v, buses, stay, ride, deadline)
    crit = breakpoints([F(120, a) for a in buses], [F(120, a + stay) for a in buses], [F(6)])
    check_interval(rows()[rid].answer, member, F(1, 8), F(30), F(1, 16), crit)


@verifies("g365s-005-v1")
def _(rid):
    buses, stay, ride, deadline = (20, 32, 44), 1, 15, 50

    def member(v):
        return bus_trip_on_time(F(120) / v, F(270) / v, buses, stay, ride, deadline,
                                wait_limit=5)
    crit = breakpoints([F(120, a) for a in buses], [F(120, a - 5) for a in buses],
                       [F(120, a + stay) for a in buses], [F(27, 5)])
    check_interval(rows()[rid].answer, member, F(1, 8), F(30), F(1, 16), crit)


def light_green(t, offset, green, period):
    return (t - offset) % period < green


@verifies("g365s-005-v2")
def _(rid):
    lights = LIGHTS_V2

    def member(v):
        if not 3 <= v <= 10:
            return False
        return all(light_green(F(x) / v, off, g, p) for x, off, g, p in lights)
    crit = {F(x, off + k * p + s) for x, off, g, p in lights for k in range(0, 6)
            for s in (0, g) if off + k * p + s > 0}
    check_interval(rows()[rid].answer, member, F(1, 8), F(12), F(1, 32), crit)


LIGHTS_V2 = ((200, 20, 30, 60), (400, 45, 35, 60), (1300, 40, 30, 60))  # m, offset, green, period


@verifies("g365s-005-v3")
def _(rid):
    # She walks at 5 km/h: 24 minutes to the stop, 60 minutes all the way; d after 7:00.
    buses, stay, ride, deadline = (60, 72, 84), 1, 15, 90

    def member(d):
        if not 0 <= d <= 60:
            return False
        return bus_trip_on_time(d + 24, d + 60, buses, stay, ride, deadline)
    check_interval(rows()[rid].answer, member, F(-5), F(65), F(1, 4))


# --- g365s-006: a barrel filled and drained on a timetable ----------------------------

def levels(v0, flows, horizon, cap=None):
    """Level at every moment the total rate can change (it is linear in between).

    flows: (start, end, litres per hour). With `cap`, inflow stops while the level is at
    or above cap (a float switch / battery saver), so a rising level stops at cap."""
    cuts = sorted({F(0), F(horizon)} | {F(x) for s, e, _ in flows for x in (s, e)})
    out, v = [(F(0), F(v0))], F(v0)
    for a, b in zip(cuts, cuts[1:]):
        rate = sum(F(r) for s, e, r in flows if s <= a and b <= e)
        if cap is not None and rate > 0:
            v = v if v >= cap else min(F(cap), v + rate * (b - a))
        else:
            v = v + rate * (b - a)
        out.append((b, v))
    return out


BARREL = ((0, F(5, 2), 50), (1, 6, -30), (4, 5, 40), (0, 7, -5))   # hours after 6:00


@verifies("g365s-006")
def _(rid):
    def member(v0):
        if not 0 <= v0 <= 120:
            return False
        pts = levels(v0, BARREL, 7)
        return all(0 < v <= 120 for _, v in pts) and pts[-1][1] >= 25
    check_interval(rows()[rid].answer, member, F(-5), F(125), F(1, 4))


@verifies("g365s-006-v1")
def _(rid):
    def member(r):
        if r < 0:
            return False
        flows = [f if f[2] != -30 else (f[0], f[1], -r) for f in BARREL]
        pts = levels(50, flows, 7)
        return all(0 < v <= 120 for _, v in pts) and pts[-1][1] >= 25
    check_interval(rows()[rid].answer, member, F(-1), F(60), F(1, 6))


@verifies("g365s-006-v2")
def _(rid):
    # Battery, percent, hours after 8:00: charger, use, navigation, charger, use.
    flows = ((0, 1, 40), (1, 4, -15), (2, 3, -20), (4, F(9, 2), 40), (F(9, 2), 6, -15))

    def member(b0):
        if not 0 <= b0 <= 100:
            return False
        pts = levels(b0, flows, 6, cap=80)
        return all(v > 0 for _, v in pts) and pts[-1][1] >= 20
    check_interval(rows()[rid].answer, member, F(-5), F(105), F(1, 4))


@verifies("g365s-006-v3")
def _(rid):
    pts = levels(30, BARREL, 7)

    def member(t):
        if not 0 <= t <= 7:
            return False
        for (a, va), (b, vb) in zip(pts, pts[1:]):
            if a <= t <= b:
                return va + (vb - va) * (t - a) / (b - a) > 46
    check_interval(rows()[rid].answer, member, F(-1), F(8), F(1, 40))


# --- g365s-007: the Green and Grey guilds ---------------------------------------------

def claim_true(claim, guild, thieves):
    kind, subject, value = claim
    if kind == "guild":
        return guild[subject] == value
    return (subject in thieves) == value          # value True: "... took it"


def guild_worlds(people, statements, n_thieves=1, honest=None):
    """Every (guilds, thieves) world in which each statement obeys its speaker's guild.

    honest(guild_of_speaker, speaker, claim, statement_extra) -> must the claim be true?"""
    out = []
    for guilds in itertools.product(("Green", "Grey"), repeat=len(people)):
        guild = dict(zip(people, guilds))
        for thieves in itertools.combinations(people, n_thieves):
            if all(claim_true(c, guild, set(thieves)) == honest(guild[s], s, c, x)
                   for s, c, x in statements):
                out.append((guild, set(thieves)))
    return out


def green_grey(g, speaker, claim, _):
    # Greens are truthful about others and lie about themselves; Greys the reverse.
    about_self = claim[1] == speaker
    return (g == "Green") != about_self


def answer_letter(worlds, options):
    """options: letter -> set of thieves, or None for 'cannot be determined'."""
    found = {frozenset(th) for _, th in worlds}
    assert worlds, "the statements admit no world at all"
    pick = next(iter(found)) if len(found) == 1 else None
    (letter,) = [k for k, v in options.items() if (v and frozenset(v)) == pick]
    return letter


FIVE = ("Aldo", "Bea", "Cato", "Dara", "Emil")


def thief_options(order):
    return {**{chr(65 + i): {p} for i, p in enumerate(order)}, "F": None}


@verifies("g365s-007")
def _(rid):
    st = [("Aldo", ("guild", "Cato", "Grey"), None), ("Aldo", ("thief", "Aldo", True), None),
          ("Bea", ("guild", "Emil", "Green"), None), ("Cato", ("thief", "Dara", False), None),
          ("Cato", ("thief", "Emil", False), None), ("Dara", ("thief", "Emil", True), None),
          ("Emil", ("guild", "Bea", "Green"), None)]
    worlds = guild_worlds(FIVE, st, 1, green_grey)
    assert_gold(rid, answer_letter(worlds, thief_options(("Bea", "Emil", "Aldo", "Dara", "Cato"))))


@verifies("g365s-007-v1")
def _(rid):
    def sunny_moony(g, _speaker, _claim, when):   # "Green" = Sunny: truthful in the morning
        return (g == "Green") == (when == "morning")
    st = [("Aldo", ("thief", "Bea", True), "afternoon"),
          ("Bea", ("thief", "Aldo", False), "afternoon"), ("Bea", ("thief", "Bea", False), "morning"),
          ("Cato", ("guild", "Dara", "Grey"), "morning"),
          ("Dara", ("thief", "Dara", False), "afternoon"),
          ("Dara", ("guild", "Bea", "Grey"), "afternoon"),
          ("Emil", ("guild", "Aldo", "Grey"), "morning")]
    worlds = guild_worlds(FIVE, st, 1, sunny_moony)
    assert_gold(rid, answer_letter(worlds, thief_options(("Aldo", "Cato", "Dara", "Bea", "Emil"))))


@verifies("g365s-007-v2")
def _(rid):
    st = [("Aldo", ("thief", "Dara", False), None), ("Aldo", ("thief", "Emil", False), None),
          ("Bea", ("guild", "Emil", "Green"), None), ("Bea", ("thief", "Cato", True), None),
          ("Cato", ("thief", "Bea", True), None), ("Dara", ("thief", "Dara", True), None),
          ("Emil", ("thief", "Aldo", False), None), ("Emil", ("guild", "Aldo", "Grey"), None)]
    worlds = guild_worlds(FIVE, st, 2, green_grey)
    pairs = {"A": {"Aldo", "Cato"}, "B": {"Bea", "Dara"}, "C": {"Aldo", "Bea"},
             "D": {"Cato", "Emil"}, "E": {"Aldo", "Emil"}, "F": {"Bea", "Cato"}, "G": None}
    assert_gold(rid, answer_letter(worlds, pairs))


@verifies("g365s-007-v3")
def _(rid):
    st = [("Aldo", ("guild", "Dara", "Green"), None), ("Bea", ("thief", "Aldo", False), None),
          ("Cato", ("thief", "Aldo", True), None), ("Dara", ("thief", "Bea", True), None),
          ("Emil", ("guild", "Cato", "Grey"), None)]
    worlds = [w for w in guild_worlds(FIVE, st, 1, green_grey)
              if list(w[0].values()).count("Green") == 1]
    # Without the 'exactly one Green' fact the thief would not be determined.
    assert len({frozenset(th) for _, th in guild_worlds(FIVE, st, 1, green_grey)}) > 1
    assert_gold(rid, answer_letter(worlds, thief_options(("Cato", "Aldo", "Emil", "Bea", "Dara"))))


# --- g365s-008: round-table seating, what must be true --------------------------------

def arrangements(people, seats, rules):
    """All seatings (person -> seat number) satisfying every rule; seats may stay empty."""
    out = []
    for chosen in itertools.permutations(range(seats), len(people)):
        at = dict(zip(people, chosen))
        if all(rule(at) for rule in rules):
            out.append(at)
    return out


def must_be_true(worlds, statements):
    assert worlds, "the rules admit no seating"
    return "".join(k for k, s in sorted(statements.items()) if all(s(w) for w in worlds))


def could_be_true(worlds, statements):
    assert worlds, "the rules admit no seating"
    return "".join(k for k, s in sorted(statements.items()) if any(s(w) for w in worlds))


def table(n):
    """Helpers for n seats numbered clockwise (seen from above), everyone facing the centre.

    Facing the centre, a diner's left hand points clockwise, so the seat on X's left is
    X's seat + 1."""
    def left_of(a, b):            # a sits immediately to b's left
        return lambda at: at[a] == (at[b] + 1) % n
    def next_to(a, b):
        return lambda at: (at[a] - at[b]) % n in (1, n - 1)
    def opposite(a, b):
        return lambda at: (at[a] - at[b]) % n == n // 2
    return left_of, next_to, opposite


@verifies("g365s-008")
def _(rid):
    left_of, next_to, opposite = table(6)
    rules = [opposite("Ava", "Ben"), left_of("Cy", "Dot"),
             lambda at: not next_to("Eli", "Ava")(at), lambda at: not next_to("Fay", "Cy")(at)]
    worlds = arrangements(("Ava", "Ben", "Cy", "Dot", "Eli", "Fay"), 6, rules)
    statements = {
        "A": next_to("Eli", "Ben"),
        "B": left_of("Dot", "Ava"),
        "C": lambda at: opposite("Eli", "Cy")(at) or opposite("Eli", "Dot")(at),
        "D": lambda at: at["Cy"] == (at["Ben"] - 1) % 6,          # on Ben's right
        "E": left_of("Fay", "Ava"),
        "F": next_to("Fay", "Ava"),
    }
    assert_gold(rid, must_be_true(worlds, statements))


@verifies("g365s-008-v1")
def _(rid):
    # Seats 0..6 from left to right as the viewers see them; X's left is the lower number.
    def left_of(a, b):
        return lambda at: at[a] == at[b] - 1

    def next_to(a, b):
        return lambda at: abs(at[a] - at[b]) == 1
    empty = lambda at: (set(range(7)) - set(at.values())).pop()
    rules = [left_of("Hana", "Ivo"), lambda at: abs(at["Gus"] - at["Leo"]) == 3,
             lambda at: not next_to("Jen", "Kim")(at), lambda at: at["Kim"] in (0, 6),
             lambda at: not next_to("Gus", "Hana")(at), lambda at: at["Jen"] < at["Leo"]]
    worlds = arrangements(("Gus", "Hana", "Ivo", "Jen", "Kim", "Leo"), 7, rules)
    statements = {
        "A": lambda at: at["Ivo"] == 3,
        "B": left_of("Hana", "Jen"),
        "C": lambda at: empty(at) in (0, 6),
        "D": next_to("Jen", "Hana"),
        "E": lambda at: at["Gus"] == 6,
        "F": left_of("Leo", "Gus"),
    }
    assert_gold(rid, could_be_true(worlds, statements))


@verifies("g365s-008-v2")
def _(rid):
    left_of, next_to, opposite = table(8)
    empty = lambda at: (set(range(8)) - set(at.values())).pop()
    rules = [lambda at: (at["Mo"] - empty(at)) % 8 == 4, left_of("Nia", "Oz"),
             opposite("Pia", "Nia"), lambda at: (at["Quin"] - empty(at)) % 8 not in (1, 7),
             next_to("Rex", "Mo"), lambda at: not next_to("Sol", "Pia")(at)]
    worlds = arrangements(("Mo", "Nia", "Oz", "Pia", "Quin", "Rex", "Sol"), 8, rules)
    statements = {
        "A": lambda at: at["Rex"] == (at["Mo"] - 1) % 8,          # on Mo's right
        "B": opposite("Quin", "Oz"),
        "C": next_to("Nia", "Mo"),
        "D": opposite("Sol", "Rex"),
        "E": lambda at: (at["Pia"] - empty(at)) % 8 in (1, 7),
        "F": lambda at: at["Oz"] == (at["Nia"] - 1) % 8,          # on Nia's right
    }
    assert_gold(rid, must_be_true(worlds, statements))


@verifies("g365s-008-v3")
def _(rid):
    left_of, next_to, opposite = table(6)
    rules = [left_of("Tom", "Uma"), lambda at: not next_to("Vic", "Tom")(at),
             lambda at: not opposite("Wes", "Tom")(at), lambda at: not next_to("Xia", "Yan")(at)]
    worlds = arrangements(("Tom", "Uma", "Vic", "Wes", "Xia", "Yan"), 6, rules)
    statements = {
        "A": left_of("Uma", "Tom"),
        "B": opposite("Vic", "Tom"),
        "C": opposite("Xia", "Uma"),
        "D": lambda at: next_to("Wes", "Uma")(at) and next_to("Vic", "Uma")(at),
        "E": lambda at: next_to("Wes", "Tom")(at) and next_to("Wes", "Vic")(at),
        "F": opposite("Yan", "Xia"),
    }
    could = could_be_true(worlds, statements)
    assert_gold(rid, "".join(k for k in sorted(statements) if k not in could))


# --- g365s-009: which probability claims are right ------------------------------------

def prob(space, event, given=lambda o: True):
    num = sum(p for o, p in space if event(o) and given(o))
    den = sum(p for o, p in space if given(o))
    return num / den


def expect(space, value):
    return sum(p * value(o) for o, p in space)


def true_claims(claims):
    return "".join(k for k, (computed, claimed) in sorted(claims.items()) if computed == claimed)


def uniform(outcomes):
    outcomes = list(outcomes)
    return [(o, F(1, len(outcomes))) for o in outcomes]


@verifies("g365s-009")
def _(rid):
    roll = uniform(itertools.product(range(1, 7), repeat=2))
    dbl = lambda o: abs(o[0] - o[1]) == 1           # this game's "double"
    two = uniform(itertools.product(list(itertools.product(range(1, 7), repeat=2)), repeat=2))
    assert_gold(rid, true_claims({
        "A": (prob(roll, dbl), F(5, 18)),
        "B": (prob(roll, dbl, lambda o: sum(o) == 7), F(0)),
        "C": (prob(two, lambda o: dbl(o[0]) or dbl(o[1])), F(5, 9)),
        "D": (prob(roll, lambda o: sum(o) % 2 == 1, dbl), F(1)),
        "E": (prob(roll, dbl, lambda o: min(o) >= 3), F(3, 8)),
        "F": (prob(roll, dbl, lambda o: 6 in o), F(1, 6)),
    }))


@verifies("g365s-009-v1")
def _(rid):
    space = uniform(itertools.product("HT", repeat=4))
    runs = lambda o: 1 + sum(a != b for a, b in zip(o, o[1:]))
    longest = lambda o: max(len(list(g)) for _, g in itertools.groupby(o))
    assert_gold(rid, true_claims({
        "A": (expect(space, runs), F(5, 2)),
        "B": (prob(space, lambda o: runs(o) == 2), F(3, 8)),
        "C": (prob(space, lambda o: longest(o) >= 3), F(1, 4)),
        "D": (prob(space, lambda o: o[0] == "H", lambda o: runs(o) == 2), F(1, 2)),
        "E": (prob(space, lambda o: runs(o) == 2, lambda o: len(set(o)) == 2), F(3, 7)),
        "F": (prob(space, lambda o: runs(o) == 4), F(1, 4)),
    }))


@verifies("g365s-009-v2")
def _(rid):
    # A first roll of 6 is rerolled once; the last roll made is the final number.
    space = [((d,), F(1, 6)) for d in range(1, 6)] + [((6, d), F(1, 36)) for d in range(1, 7)]
    final = lambda o: o[-1]
    rerolled = lambda o: len(o) == 2
    assert_gold(rid, true_claims({
        "A": (prob(space, lambda o: final(o) == 6), F(1, 36)),
        "B": (expect(space, final), F(37, 12)),
        "C": (prob(space, lambda o: final(o) == 1), F(1, 5)),
        "D": (prob(space, rerolled, lambda o: final(o) == 6), F(1, 6)),
        "E": (prob(space, rerolled, lambda o: final(o) == 3), F(1, 7)),
        "F": (prob(space, lambda o: final(o) % 2 == 0), F(1, 2)),
    }))


@verifies("g365s-009-v3")
def _(rid):
    spin = [(k, F(k, 10)) for k in range(1, 5)]                 # chance proportional to k
    space = [((a, b), pa * pb) for a, pa in spin for b, pb in spin]
    assert_gold(rid, true_claims({
        "A": (prob(space, lambda o: sum(o) == 5), F(1, 4)),
        "B": (prob(space, lambda o: o[0] == o[1]), F(3, 10)),
        "C": (prob(space, lambda o: o[0] == 4, lambda o: sum(o) == 7), F(1, 2)),
        "D": (expect(space, sum), F(6)),
        "E": (prob(space, lambda o: 1 in o), F(1, 5)),
        "F": (prob(space, lambda o: o[1] > o[0]), F(7, 20)),
    }))


# --- g365s-010: rolling a die across a board ------------------------------------------

def roll(die, direction):
    """Tip the die over its bottom edge on the `direction` side ('N', 'E', 'S', 'W')."""
    t, b, n, s, e, w = (die[k] for k in ("top", "bottom", "N", "S", "E", "W"))
    d = dict(die)
    if direction == "N":
        d.update(N=t, top=s, S=b, bottom=n)
    elif direction == "S":
        d.update(S=t, top=n, N=b, bottom=s)
    elif direction == "E":
        d.update(E=t, top=w, W=b, bottom=e)
    else:
        d.update(W=t, top=e, E=b, bottom=w)
    return d


def standard_die(top, north, east):
    # A standard die: opposite faces add up to 7.
    return {"top": top, "bottom": 7 - top, "N": north, "S": 7 - north, "E": east, "W": 7 - east}


def all_orientations(die):
    seen, todo = {}, [die]
    while todo:
        d = todo.pop()
        key = tuple(sorted(d.items()))
        if key not in seen:
            seen[key] = d
            todo.extend(roll(d, x) for x in "NESW")
    return list(seen.values())


def roll_path(die, path):
    for step in path:
        die = roll(die, step)
    return die


def number_option(n, order=(1, 2, 3, 4, 5, 6)):
    return "ABCDEF"[order.index(n)]


@verifies("g365s-010")
def _(rid):
    path = "NNN" + "EEE" + "SSS" + "WWW"        # clockwise round a 4x4 board's edge
    end = roll_path(standard_die(1, 2, 3), path)
    assert_gold(rid, number_option(end["top"], (4, 2, 6, 1, 5, 3)))


@verifies("g365s-010-v1")
def _(rid):
    path = "NEESWN"
    start_tops = {d["top"] for d in all_orientations(standard_die(1, 2, 3))
                  if {k: roll_path(d, path)[k] for k in ("top", "N", "E")} == {"top": 6, "N": 4, "E": 5}}
    (top,) = start_tops
    assert_gold(rid, number_option(top, (3, 5, 1, 6, 2, 4)))


@verifies("g365s-010-v2")
def _(rid):
    # 5x5 board, columns a-e (west to east), rows 1-5 (south to north).
    ice = {("b", 1), ("c", 1), ("e", 3), ("c", 5)}
    cols = "abcde"
    pos, die = ("a", 1), standard_die(1, 2, 3)
    for step in "EEEENNNNWWWW":
        c, r = cols.index(pos[0]), pos[1]
        c, r = {"N": (c, r + 1), "S": (c, r - 1), "E": (c + 1, r), "W": (c - 1, r)}[step]
        pos = (cols[c], r)
        if pos not in ice:        # a move onto an ice cell is a slide: the die does not turn
            die = roll(die, step)
    assert_gold(rid, number_option(die["bottom"], (5, 3, 1, 2, 6, 4)))


@verifies("g365s-010-v3")
def _(rid):
    cube = {"top": "red", "bottom": "white", "N": "blue", "S": "yellow", "E": "green",
            "W": "black"}
    end = roll_path(cube, "ENWWSSEEN")
    colours = ("black", "blue", "green", "red", "white", "yellow")
    assert_gold(rid, "ABCDEF"[colours.index(end["bottom"])])


# --- g365s-011: fewest button presses -------------------------------------------------

def reverse_digits(n):
    return int(str(n)[::-1])


def shortest_sequences(start, goal, buttons, limit=999, no_repeat=False):
    """All shortest button sequences from start to goal (BFS over (value, last button))."""
    first = (start, None)
    dist, ways = {first: 0}, {first: [""]}
    queue = deque([first])
    while queue:
        state = queue.popleft()
        value, last = state
        if value == goal:
            continue
        for name, op in buttons.items():
            if no_repeat and name == last:
                continue
            nxt = op(value)
            if nxt is None or not 0 <= nxt <= limit:
                continue
            key = (nxt, name if no_repeat else None)
            if key not in dist:
                dist[key] = dist[state] + 1
                ways[key] = []
                queue.append(key)
            if dist[key] == dist[state] + 1 and len(ways[key]) < 3:
                ways[key].extend(w + name for w in ways[state][:3 - len(ways[key])])
    ends = [k for k in dist if k[0] == goal]
    best = min(dist[k] for k in ends)
    return sorted({w for k in ends if dist[k] == best for w in ways[k]})


def unique_shortest(*args, **kw):
    found = shortest_sequences(*args, **kw)
    assert len(found) == 1, f"shortest sequence not unique: {found}"
    return found[0]


LOCK = {"A": lambda n: n + 3, "B": lambda n: n * 2, "C": reverse_digits, "D": lambda n: n - 1}


def maze_moves(rows):
    """rows: top row first; '#' wall, 'R' start, 'G' goal, a digit: a pair of portals.

    Stepping onto a portal square moves you at once to the square with the same digit
    (that counts as part of the same move)."""
    grid = {(r, c): ch for r, line in enumerate(rows) for c, ch in enumerate(line.split())}
    where = {ch: [p for p, x in grid.items() if x == ch] for ch in set(grid.values())}
    step = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}

    def move(pos, d):
        nxt = (pos[0] + step[d][0], pos[1] + step[d][1])
        if grid.get(nxt, "#") == "#":
            return None
        if grid[nxt].isdigit():
            (nxt,) = [p for p in where[grid[nxt]] if p != nxt]
        return nxt
    cells = {p: i for i, p in enumerate(grid)}
    ops = {d: (lambda i, d=d: (lambda m: None if m is None else cells[m])(
        move(list(cells)[i], d))) for d in step}
    return cells[where["R"][0]], cells[where["G"][0]], ops


MAZE_V3 = ("R # G . . .",
           ". # # # # .",
           ". 2 # . . 1",
           ". 1 . . . .",
           ". # . . # 2",
           ". . . # # .")


@verifies("g365s-011")
def _(rid):
    assert_gold(rid, unique_shortest(2, 189, LOCK))


@verifies("g365s-011-v1")
def _(rid):
    assert_gold(rid, unique_shortest(2, 189, LOCK, no_repeat=True))


@verifies("g365s-011-v2")
def _(rid):
    def swap_ends(n):
        s = str(n)
        return n if len(s) < 2 else int(s[-1] + s[1:-1] + s[0])
    buttons = {"A": lambda n: n * 10, "B": lambda n: n + 4, "C": lambda n: n // 10,
               "D": swap_ends}
    assert_gold(rid, unique_shortest(1, 421, buttons))


@verifies("g365s-011-v3")
def _(rid):
    start, goal, ops = maze_moves(MAZE_V3)
    assert_gold(rid, unique_shortest(start, goal, ops, limit=10 ** 6))


# --- g365s-012: a clock display with a faulty segment ---------------------------------

SEGMENTS = {0: "abcdef", 1: "bc", 2: "abdeg", 3: "abcdg", 4: "bcfg", 5: "acdfg",
            6: "acdefg", 7: "abc", 8: "abcdefg", 9: "abcdfg"}
DAY = [(h, m) for h in range(24) for m in range(60)]


def digits(t):
    h, m = t
    return (h // 10, h % 10, m // 10, m % 10)


def shown(t, dead=frozenset(), stuck=frozenset()):
    """Lit segments per digit position; dead/stuck hold (position, segment) pairs."""
    return tuple(frozenset(s for s in SEGMENTS[d] if (p, s) not in dead)
                 | {s for q, s in stuck if q == p}
                 for p, d in enumerate(digits(t)))


def pattern(text):
    return tuple(frozenset(SEGMENTS[int(ch)]) for ch in text.replace(":", ""))


def later(t, minutes):
    total = (t[0] * 60 + t[1] + minutes) % 1440
    return divmod(total, 60)


ONE_SEGMENT = [frozenset({(p, s)}) for p in range(4) for s in "abcdefg"]


@verifies("g365s-012")
def _(rid):
    first, second = pattern("15:45"), pattern("15:55")
    times = {t for t in DAY for dead in ONE_SEGMENT
             if shown(t, dead) == first and shown(later(t, 10), dead) == second}
    assert_gold(rid, len(times))


@verifies("g365s-012-v1")
def _(rid):
    first, second = pattern("18:48"), pattern("18:58")
    times = {t for t in DAY for stuck in ONE_SEGMENT
             if shown(t, stuck=stuck) == first and shown(later(t, 10), stuck=stuck) == second}
    assert_gold(rid, len(times))


@verifies("g365s-012-v2")
def _(rid):
    # Dead segments can only hide lit ones: the reading must be inside the true display,
    # and the hidden segments (all of them dead) number at most two.
    reading = pattern("10:51")
    assert_gold(rid, sum(all(r <= a for r, a in zip(reading, shown(t)))
                         and sum(len(a - r) for r, a in zip(reading, shown(t))) <= 2
                         for t in DAY))


@verifies("g365s-012-v3")
def _(rid):
    checks = [(7, 41), (11, 17), (20, 3)]     # each time the display showed the true time
    possible = [dead for dead in ONE_SEGMENT if all(shown(t, dead) == shown(t) for t in checks)]
    assert_gold(rid, len(possible))


# --- g365s-013: Latin-square puzzles --------------------------------------------------

def latin_solutions(n, clues, limit=2):
    """Backtracking over an n x n Latin square (digits 1..n, row-major order).

    clues: (cells, test) - test gets the digits of those cells once all are filled."""
    grid = {}
    by_last = {}
    for cells, test in clues:
        by_last.setdefault(max(cells), []).append((cells, test))
    order = [(r, c) for r in range(n) for c in range(n)]
    found = []

    def go(k):
        if len(found) >= limit:
            return
        if k == len(order):
            found.append(dict(grid))
            return
        r, c = order[k]
        for v in range(1, n + 1):
            if any(grid.get((r, j)) == v for j in range(c)) or \
               any(grid.get((i, c)) == v for i in range(r)):
                continue
            grid[(r, c)] = v
            if all(test(*(grid[x] for x in cells)) for cells, test in by_last.get((r, c), [])):
                go(k + 1)
            del grid[(r, c)]
    go(0)
    return found


def the_solution(n, clues):
    sols = latin_solutions(n, clues)
    assert len(sols) == 1, f"{len(sols)} solutions"
    return sols[0]


def less(a, b):
    """Clue 'cell a < cell b' for latin_solutions (cells as (row, column), 1-based)."""
    a, b = (a[0] - 1, a[1] - 1), (b[0] - 1, b[1] - 1)
    return ((a, b), lambda x, y: x < y) if a < b else ((b, a), lambda x, y: x > y)


@verifies("g365s-013")
def _(rid):
    clues = [less((3, 3), (3, 2)), less((1, 5), (2, 5)), less((1, 2), (2, 2)),
             less((4, 3), (4, 2)), less((4, 1), (5, 1)), less((2, 3), (3, 3)),
             less((1, 1), (2, 1)), less((1, 3), (1, 4)), less((4, 2), (4, 1))]
    sol = the_solution(5, clues)
    assert_gold(rid, int("".join(str(sol[(i, i)]) for i in range(5))))


@verifies("g365s-013-v1")
def _(rid):
    n = 4
    marked = {((1, 1), (1, 2)), ((2, 2), (2, 3)), ((3, 0), (3, 1)),          # across
              ((0, 0), (1, 0)), ((2, 0), (3, 0)), ((0, 1), (1, 1)), ((2, 1), (3, 1)),
              ((0, 2), (1, 2)), ((1, 2), (2, 2)), ((2, 2), (3, 2)), ((0, 3), (1, 3)),
              ((2, 3), (3, 3))}                                               # down
    clues = [(((0, 0),), lambda x: x == 3)]
    for r in range(n):
        for c in range(n):
            for b in ((r, c + 1), (r + 1, c)):
                if b[0] < n and b[1] < n:
                    want = ((r, c), b) in marked
                    clues.append((((r, c), b), lambda x, y, w=want: (abs(x - y) == 1) == w))
    sol = the_solution(n, clues)
    assert_gold(rid, sum(sol[(r, c)] * 10 ** (3 - c) for r in range(n) for c in range(n) if r == 3))


@verifies("g365s-013-v2")
def _(rid):
    pair_sums = [(((2, 3), (2, 4)), 5), (((2, 4), (3, 4)), 5), (((2, 0), (3, 0)), 9),
                 (((1, 2), (1, 3)), 9), (((0, 3), (0, 4)), 6), (((3, 0), (4, 0)), 7),
                 (((4, 0), (4, 1)), 6)]
    clues = [(cells, lambda x, y, s=s: x + y == s) for cells, s in pair_sums]
    sol = the_solution(5, clues)
    assert_gold(rid, int("".join(str(sol[(4, c)]) for c in range(5))))


@verifies("g365s-013-v3")
def _(rid):
    n = 4
    squares = latin_solutions(n, [], limit=10 ** 6)
    assert len(squares) == 576
    both = [s for s in squares if len({s[(i, i)] for i in range(n)}) == n
            and len({s[(i, n - 1 - i)] for i in range(n)}) == n]
    assert_gold(rid, len(both))


# --- g365s-014: the calendar of Quell -------------------------------------------------

WEEK = ("Ardo", "Belo", "Cido", "Dado", "Edo", "Fado")


def quell_days(years, leap=lambda y: y % 4 == 0 and y % 10 != 0):
    """(year, month, day, is_festival) for every day of the given years, in order."""
    out = []
    for y in years:
        for m in range(1, 14):
            extra = (1 + leap(y)) if m == 13 else 0
            out += [(y, m, d, d > 28) for d in range(1, 29 + extra)]
    return out


def weekdays(days, anchor, anchor_name, festivals_in_week=False, reset_each_year=False):
    """Weekday index per day (None for festival days outside the week)."""
    idx, k, year = [], 0, None
    for y, m, d, fest in days:
        if reset_each_year and y != year:
            k, year = 0, y
        if fest and not festivals_in_week:
            idx.append(None)
            continue
        idx.append(k)
        k += 1
    if reset_each_year:
        return [None if v is None else v % 6 for v in idx]
    pos = [i for i, day in enumerate(days) if day[:3] == anchor][0]
    shift = WEEK.index(anchor_name) - idx[pos]
    return [None if v is None else (v + shift) % 6 for v in idx]


@verifies("g365s-014")
def _(rid):
    days = quell_days(range(1, 13))
    wd = weekdays(days, (8, 1, 1), "Edo")
    keys = [d[:3] for d in days]
    lo, hi = keys.index((7, 3, 10)), keys.index((9, 13, 20))
    assert_gold(rid, sum(wd[i] == WEEK.index("Fado") for i in range(lo, hi + 1)))


@verifies("g365s-014-v1")
def _(rid):
    days = quell_days(range(1, 13))
    wd = weekdays(days, (8, 1, 1), "Edo")
    assert_gold(rid, sum(1 for (y, m, d, _), w in zip(days, wd)
                         if y == 9 and d == 13 and w == WEEK.index("Cido")))


@verifies("g365s-014-v2")
def _(rid):
    days = quell_days(range(1, 13))
    wd = weekdays(days, None, None, festivals_in_week=True, reset_each_year=True)
    keys = [d[:3] for d in days]
    lo, hi = keys.index((7, 3, 10)), keys.index((9, 13, 29))
    assert_gold(rid, sum(wd[i] == WEEK.index("Ardo") for i in range(lo, hi + 1)))


@verifies("g365s-014-v3")
def _(rid):
    import datetime as dt
    day = dt.date(2024, 9, 2)                      # Monday, cycle Day 1
    holidays = {dt.date(2024, 10, 14), dt.date(2024, 11, 11)}
    holidays |= {dt.date(2024, 10, 28) + dt.timedelta(i) for i in range(5)}
    skipped = {dt.date(2024, 11, 21)}              # snow day: its cycle day is lost
    cycle, target = 1, dt.date(2024, 12, 13)
    while day < target:
        day += dt.timedelta(1)
        if day.weekday() < 5 and day not in holidays:
            cycle = cycle % 10 + 1
            if day in skipped:
                continue
    assert target.weekday() < 5 and target not in holidays | skipped
    assert_gold(rid, cycle)


# --- g365s-015: when to stop rolling --------------------------------------------------

def best_value(state, moves, stop_value):
    """Optimal expected value: at each state either stop (stop_value) or take the gamble.

    moves(state) -> list of (probability, next state or None for 'bust, scores 0'), or []
    when no further gamble is allowed."""
    @lru_cache(maxsize=None)
    def v(st):
        options = moves(st)
        stop = stop_value(st)
        if not options:
            return stop
        go = sum(p * (v(nxt) if nxt is not None else 0) for p, nxt in options)
        return max(stop, go)
    return v(state)


def die_moves(limit, max_rolls):
    def moves(st):
        total, rolls = st
        if rolls == max_rolls:
            return []
        return [(F(1, 6), (total + d, rolls + 1) if total + d <= limit else None)
                for d in range(1, 7)]
    return moves


@verifies("g365s-015")
def _(rid):
    assert_gold(rid, best_value((0, 0), die_moves(12, 4), lambda st: st[0]))


@verifies("g365s-015-v1")
def _(rid):
    # Objective: the chance of stopping with a total of at least 10 without busting.
    assert_gold(rid, best_value((0, 0), die_moves(12, 4), lambda st: F(int(st[0] >= 10))))


@verifies("g365s-015-v2")
def _(rid):
    def moves(st):
        total, deck = st
        return [(F(1, len(deck)),
                 (total + c, deck[:i] + deck[i + 1:]) if total + c <= 10 else None)
                for i, c in enumerate(deck)]
    assert_gold(rid, best_value((0, (1, 2, 3, 4, 5, 6)), moves, lambda st: st[0]))


@verifies("g365s-015-v3")
def _(rid):
    # Each roll after the first costs 1 point, paid even if the roll busts.
    base = die_moves(12, 4)

    def moves(st):
        total, rolls, paid = st
        return [(p, None if nxt is None else nxt + (paid + (rolls >= 1),))
                for p, nxt in base((total, rolls))]

    @lru_cache(maxsize=None)
    def v(st):
        total, rolls, paid = st
        opts = moves(st)
        stop = total - paid
        if not opts:
            return stop
        cost_after = paid + (rolls >= 1)
        go = sum(p * (v(nxt) if nxt is not None else -cost_after) for p, nxt in opts)
        return max(stop, go) if rolls else go
    assert_gold(rid, v((0, 0, 0)))


# --- the tests ------------------------------------------------------------------------

def pytest_generate_tests(metafunc):
    # Collected after every verifier above has registered itself.
    if "verified_id" in metafunc.fixturenames:
        metafunc.parametrize("verified_id", sorted(VERIFIERS))


def test_verified_answer(verified_id):
    assert verified_id in rows(), f"verifier for a row that does not exist: {verified_id}"
    VERIFIERS[verified_id](verified_id)


def test_source_field_matches_the_verifiers():
    claimed = {rid for rid, p in rows().items() if p.source == VERIFIED_SOURCE}
    assert claimed == set(VERIFIERS)
    for rid, p in rows().items():
        assert p.source in (VERIFIED_SOURCE, REVIEWED_SOURCE), rid
    assert len(VERIFIERS) >= 45


def test_ids_variants_and_inheritance():
    ps = rows()
    seeds = [f"g365s-{i:03d}" for i in range(1, 16)]
    expected = [s + suffix for s in seeds for suffix in ("", "-v1", "-v2", "-v3")]
    assert sorted(ps) == sorted(expected)
    for rid, p in ps.items():
        seed = ps[p.seed_id]
        assert p.seed_id == rid[:9] and p.variant == (int(rid[-1]) if "-v" in rid else 0)
        assert p.categories == seed.categories and p.answer_type == seed.answer_type
        assert p.question.strip() and p.answer.strip()
        assert len(p.reasoning) > 80, f"{rid}: reasoning trace missing or too short"
    texts = [p.question for p in ps.values()]
    assert len(set(texts)) == len(texts)


def test_category_and_answer_type_mix():
    seeds = [p for p in rows().values() if p.is_seed]
    for c in Category:
        assert sum(c in p.categories for p in seeds) >= 3, c
    assert sum(len(p.categories) >= 2 for p in seeds) >= 11
    kinds = [p.answer_type for p in seeds]
    assert kinds.count(AnswerType.INTERVAL) >= 2
    assert kinds.count(AnswerType.NUMBER) + kinds.count(AnswerType.INTERVAL) == 10
    assert kinds.count(AnswerType.SINGLE_CHOICE) == 2
    assert kinds.count(AnswerType.MULTIPLE_CHOICE) == 2
    assert kinds.count(AnswerType.TEXT) == 1
    assert sum(p.float_round > 0 for p in rows().values()) >= 3


INSTRUCTION = {
    AnswerType.NUMBER: "Put your final answer in \\boxed{}.",
    AnswerType.INTERVAL: "using interval notation.",
    AnswerType.SINGLE_CHOICE: "Select the one correct option and put its letter in \\boxed{}.",
    AnswerType.MULTIPLE_CHOICE: "put their letters in \\boxed{}, e.g. \\boxed{AC}.",
    AnswerType.TEXT: "State your final answer in \\boxed{}.",
}


def test_questions_end_with_their_format_instruction():
    for rid, p in rows().items():
        assert p.question.endswith(INSTRUCTION[p.answer_type]), rid


def test_choice_golds_name_listed_options():
    for rid, p in rows().items():
        if p.answer_type.is_choice:
            letters = re.findall(r"(?m)^([A-H])\. ", p.question)
            assert letters == sorted(letters) and len(letters) >= 4, rid
            assert p.answer == "".join(sorted(set(p.answer))), rid
            assert set(p.answer) <= set(letters), rid


def test_rule_golds_parse_with_math_verify():
    math_verify = pytest.importorskip("math_verify")
    for rid, p in rows().items():
        if p.answer_type.is_rule_graded:
            parsed = math_verify.parse("$" + p.answer + "$")
            assert parsed, f"{rid}: math-verify cannot parse {p.answer!r}"
            assert math_verify.verify(parsed, parsed), rid
        if p.float_round:
            assert re.fullmatch(r"-?\d+\.\d{%d}" % p.float_round, p.answer), rid
