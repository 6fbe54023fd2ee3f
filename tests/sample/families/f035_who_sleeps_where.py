"""g365s-035: counting the ways to put people into rooms (or boats) under rules; every
assignment is enumerated and the rules are read sentence by sentence from the question."""

import itertools
import math
import re

from sample.harness import verifies




def rooms(q):
    """(name, beds, floor) for lines '- Room A: 3 beds, ground floor.'"""
    return [(m.group(1), int(m.group(2)), m.group(3))
            for m in q.findall(r"^- (?:Room|Canoe) (\w): (\d) (?:beds|seats)(?:, (ground floor|"
                               r"first floor))?\.$")]


def people(q) -> list[str]:
    m = q.find(r"^(?:Eight|Seven|Nine) \w+, ((?:\w+, )+\w+ and \w+), ")
    return re.split(r", | and ", m.group(1))


def rule(text: str, floor_of, girls=()):
    """A test on `at` (person -> room) for one numbered rule."""
    same = lambda at, a, b: at[a] == at[b]  # noqa: E731
    forms = [
        (r"(\w+) and (\w+) must (not )?(?:sleep|sit) in the same (?:room|canoe)\.",
         lambda a, b, neg: lambda at: same(at, a, b) != bool(neg)),
        (r"(\w+) must sleep on the ground floor\.",
         lambda a: lambda at: floor_of[at[a]] == "ground floor"),
        (r"(\w+) must not sleep on the same floor as (\w+)\.",
         lambda a, b: lambda at: floor_of[at[a]] != floor_of[at[b]]),
        (r"(\w+) must share (?:a room|a canoe) with (\w+) or with (\w+) \(or both\)\.",
         lambda a, b, c: lambda at: same(at, a, b) or same(at, a, c)),
        (r"(\w+) must not be in (?:a room|a canoe) that also holds both (\w+) and (\w+)\.",
         lambda a, b, c: lambda at: not (same(at, a, b) and same(at, a, c))),
        (r"(\w+) must be in Room (\w) or Room (\w)\.",
         lambda a, r1, r2: lambda at: at[a] in (r1, r2)),
        (r"(\w+) must be in Canoe (\w)\.", lambda a, r: lambda at: at[a] == r),
        (r"Every (?:room|canoe) must hold at least one of (\w+), (\w+) and (\w+)\.",
         lambda *xs: lambda at: set(at.values()) <= {at[x] for x in xs}),
        (r"Every room must hold at least one girl and at least one boy\.",
         lambda: lambda at: all(any(at[g] == r for g in girls) and
                                any(at[b] == r for b in at if b not in girls)
                                for r in set(at.values()))),
    ]
    for regex, make in forms:
        if m := re.fullmatch(regex, text):
            return make(*m.groups())
    raise AssertionError(f"unknown rule {text!r}")


def fillings(names, room_list, rules):
    """Every assignment person -> room that fills every bed and obeys every rule."""
    assert sum(beds for _, beds, _ in room_list) == len(names), "the beds and people differ"

    def fill(k, left, at):
        if k == len(room_list):
            if all(r(at) for r in rules):
                yield dict(at)
            return
        name, beds, _ = room_list[k]
        for group in itertools.combinations(left, beds):
            yield from fill(k + 1, [p for p in left if p not in group],
                            {**at, **{p: name for p in group}})
    yield from fill(0, list(names), {})


def setup(q, girls=()):
    names, room_list = people(q), rooms(q)
    floor_of = {name: floor for name, _, floor in room_list}
    rules = [rule(m.group(1), floor_of, girls) for m in q.findall(r"^\d\. (.+)$")]
    return names, room_list, rules


@verifies("g365s-035")
def _(q):
    names, room_list, rules = setup(q)
    q.has("Every bed must be used.", "Only who sleeps in which room matters (not which bed).")
    return sum(1 for _ in fillings(names, room_list, rules))


@verifies("g365s-035-v1")
def _(q):
    # seats count: a canoe with s steerers and n people seats in s x (n - 1)! ways
    names, room_list, rules = setup(q)
    q.has("Every seat must be used.", "In each canoe the seats are in a line from front to back, "
          "and the back seat must be taken by someone who can steer.", "nobody else can",
          "Seats matter: two seatings are different if somebody sits in a different canoe or "
          "in a different seat.")
    steer = re.split(r", | and ", q.find(r"((?:\w+, )+\w+ and \w+) can steer;").group(1))
    total = 0
    for at in fillings(names, room_list, rules):
        ways = 1
        for room, seats, _ in room_list:
            aboard = [p for p in at if at[p] == room]
            ways *= sum(p in steer for p in aboard) * math.factorial(seats - 1)
        total += ways
    return total


@verifies("g365s-035-v2")
def _(q):
    names, room_list, rules = setup(q)
    q.has("Every bed must be used.", "Only who sleeps in which room matters (not which bed).")
    a, b = q.nums("Rooms {w} and {w} are identical")
    q.has("two plans that differ only by swapping the whole groups in Rooms B and C count as the "
          "same plan")
    plans = set()
    for at in fillings(names, room_list, rules):
        group = {r: frozenset(p for p in at if at[p] == r) for r in at.values()}
        plans.add(frozenset((r, g) for r, g in group.items() if r not in (a, b))
                  | {("pair", frozenset((group[a], group[b])))})
    return len(plans)


@verifies("g365s-035-v3")
def _(q):
    m = q.find(r"The girls are ((?:\w+, )+\w+ and \w+); the boys are ((?:\w+, )+\w+ and \w+)\.")
    girls, boys = re.split(r", | and ", m.group(1)), re.split(r", | and ", m.group(2))
    names, room_list, rules = setup(q, girls)
    assert sorted(girls + boys) == sorted(names)
    q.has("Every bed must be used.", "Only who sleeps in which room matters (not which bed).")
    return sum(1 for _ in fillings(names, room_list, rules))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-035": "3 3 2 1 2 3 4 5 6",
    "g365s-035-v1": "3 3 2 1 2 3 4",
    "g365s-035-v2": "3 3 3 1 2 3 4 5",
    "g365s-035-v3": "3 3 2 1 2 3 4 5",
}
