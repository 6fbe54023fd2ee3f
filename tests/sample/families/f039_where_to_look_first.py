"""g365s-039: searching for lost keys (glasses, a book) before a deadline: each look may miss
them, places are far apart, and the best plan is found by trying every number of looks per
place and every order of visiting the places (exact probabilities)."""

import itertools
from fractions import Fraction

from sample.harness import to_number, verifies


def places(q):
    """name -> (probability it is there, minutes per look, chance a look finds it if there)."""
    out = {}
    for m in q.findall(r"^- (?:the |in the )?([a-z][a-z ]*?): (?:it is there with probability|"
                       r"probability) (\d+/\d+); a look takes (\d+) minutes and finds it with "
                       r"probability (\d+/\d+) if it is there\.$"):
        out[m.group(1)] = (to_number(m.group(2)), int(m.group(3)), to_number(m.group(4)))
    return out


def walks(q):
    """Walking minutes between places (both ways), from 'A to B: n' items."""
    out = {}
    for m in q.findall(r"^- (?:the )?([a-z][a-z ]*?) to (?:the )?([a-z][a-z ]*?): (\d+) "
                       r"minutes?\.$"):
        out[frozenset((m.group(1), m.group(2)))] = int(m.group(3))
    return out


def chance(found_at: dict, counts: dict) -> Fraction:
    return sum(p * (1 - (1 - d) ** counts.get(name, 0)) for name, (p, _, d) in found_at.items())


def route_time(start, order, counts, spots, walk, opens, back=False) -> int:
    """Minutes to do all the looks, visiting the places in `order` (waiting for a place that
    is not open yet), and with `back` the walk from the last place back to the start."""
    clock, here = 0, start
    for name in order:
        if name != here:
            clock += walk[frozenset((here, name))]
        clock = max(clock, opens.get(name, 0))
        clock += counts[name] * spots[name][1]
        here = name
    if back and here != start:
        clock += walk[frozenset((here, start))]
    return clock


def shortest(start, chosen, counts, spots, walk, opens, back=False) -> int:
    return min(route_time(start, order, counts, spots, walk, opens, back)
               for order in itertools.permutations(chosen))


def best_chance(spots, walk, start, deadline, *, searchers=1, opens=None, back=False):
    """The greatest chance of finding it in time, over every number of looks per place and
    every way to walk (with two searchers, every split of the places between them; with
    `back`, every route ends at the start)."""
    opens = opens or {}
    names = sorted(spots)
    ranges = [range(deadline // spots[n][1] + 1) for n in names]
    best = Fraction(0)

    def fits(part, counts):
        return shortest(start, part, counts, spots, walk, opens, back) <= deadline

    for combo in itertools.product(*ranges):
        counts = dict(zip(names, combo))
        if sum(counts[n] * spots[n][1] for n in names) > searchers * deadline:
            continue
        value = chance(spots, counts)
        if value <= best:
            continue
        chosen = [n for n in names if counts[n]]
        if searchers == 1:
            ok = fits(chosen, counts)
        else:
            ok = any(fits(list(a), counts) and fits([n for n in chosen if n not in a], counts)
                     for k in range(len(chosen) + 1) for a in itertools.combinations(chosen, k))
        if ok:
            best = value
    return best


WALK = ("Walking between places takes the times below (the same in both directions); looks "
        "at the same place can follow one another without walking.")


def common(q):
    spots, walk = places(q), walks(q)
    q.has(WALK, "Each look is independent of the others")
    deadline = q.int("you must leave in {} minutes")
    assert q.int("within the {} minutes") == deadline
    names = set(spots) | {"front door"}
    assert all(frozenset(p) in walk for p in itertools.combinations(names, 2))
    return spots, walk, deadline


def four_places(q):
    q.has("You start at the front door.")


@verifies("g365s-039")
def _(q):
    spots, walk, deadline = common(q)
    four_places(q)
    return best_chance(spots, walk, "front door", deadline)


@verifies("g365s-039-v1")
def _(q):
    # the route must end back at the front door by the deadline
    q.has("They are in exactly one of four places:")
    spots, walk, deadline = common(q)
    assert sum(p for p, _, _ in spots.values()) == 1
    q.has("You start at the front door, and you must be back at the front door, ready to "
          "leave, when the 18 minutes are up: the walk back from your last place counts too.",
          "being back at the front door within the 18 minutes")
    assert q.int("ready to leave, when the {} minutes are up") == deadline
    return best_chance(spots, walk, "front door", deadline, back=True)


@verifies("g365s-039-v2")
def _(q):
    spots, walk, deadline = common(q)
    q.has("You and your brother both start at the front door and search at the same time, each "
          "walking and looking on your own; a place can be searched by only one of you.")
    return best_chance(spots, walk, "front door", deadline, searchers=2)


@verifies("g365s-039-v3")
def _(q):
    spots, walk, deadline = common(q)
    four_places(q)
    place, opens = q.nums("The {w} is locked until your neighbour brings its key, {} minutes from "
                          "now")
    q.has("(you may wait for the key there)")
    return best_chance(spots, walk, "front door", deadline, opens={place: opens})


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-039": (
        "20 3 10 3 1 2 1 5 2 1 2 2 5 5 9 10 1 10 4 1 2 2 5 5 3 3 2 1 3 2 1 "
        "20 4"),
    "g365s-039-v1": (
        "18 1 8 5 2 3 1 4 2 2 3 3 8 2 3 4 1 4 5 2 3 4 5 1 5 2 1 2 4 3 2 18 "
        "18 4"),
    "g365s-039-v2": (
        "20 3 8 2 2 3 1 4 6 4 5 1 4 4 3 4 1 8 2 3 4 4 2 4 5 5 1 2 5 5 3 20 "
        "4"),
    "g365s-039-v3": (
        "20 1 5 3 1 2 1 10 3 1 2 2 5 6 1 2 3 10 3 2 3 5 1 4 5 2 4 4 3 2 5 8 "
        "20 4"),
}
