"""g365s-001: labels that are not floor counts (skipped numbers), with lifts and stairs."""

from fractions import Fraction

from sample.harness import verifies


def labels(keep, upto=200) -> list[int]:
    return [n for n in range(1, upto) if keep(n)]


def check_examples(q, regex, label_list):
    """Each 'the floor directly above floor X is labelled Y' in the text holds."""
    for m in q.findall(regex):
        below, above = int(m.group(1)), int(m.group(2))
        assert label_list[label_list.index(below) + 1] == above, m.group(0)


@verifies("g365s-001")
def _(q):
    unlucky, digit = q.nums("no floor carries the label {} or any label containing the digit {}")
    ok = labels(lambda n: n != unlucky and str(digit) not in str(n))
    check_examples(q, r"the floor directly above floor (\d+) is labelled (\d+)", ok)
    storey = {lab: i + 1 for i, lab in enumerate(ok)}        # G is storey 0
    height = q.num("Every storey is exactly {} m high")
    speed = q.num("moving at a constant {} m/s")
    a, b, wait1, c, wait2, d = q.nums(
        "leaves the floor labelled {}, travels without intermediate stops to the floor "
        "labelled {}, waits there {} seconds, travels to the floor labelled {}, waits there {} "
        "seconds, and then travels to the floor labelled {}, where the trip ends")
    assert q.nums("from the moment the elevator leaves floor {} until it arrives at floor {}?") \
        == [a, d]
    trip = [a, b, c, d]
    storeys = sum(abs(storey[x] - storey[y]) for x, y in zip(trip, trip[1:]))
    return storeys * height / speed + wait1 + wait2


@verifies("g365s-001-v1")
def _(q):
    q.has("Above the lobby the floors are labelled 1, 2, 3, ... except")
    unlucky = q.int("except that the label {} is not used")
    ok = labels(lambda n: n != unlucky)
    check_examples(q, r"\(the floor above (\d+) is labelled (\d+)\)", ok)
    storey = {str(lab): i + 1 for i, lab in enumerate(ok)}   # the lobby L is storey 0
    q.has("P1 directly under the lobby, P2 under P1, P3 under P2")
    storey.update({"P1": -1, "P2": -2, "P3": -3})
    height = q.num("Floor-to-floor height is {} m everywhere")
    start = "P" + str(q.int("leaves parking level P{} going up"))
    speed = q.num("going up at a constant {} m/s")
    climbed = Fraction(q.num("stops after exactly {} seconds of travel") * speed, height)
    assert climbed.denominator == 1, "the lift would stop between floors"
    (label,) = [lab for lab, s in storey.items() if s == storey[start] + climbed]
    return int(label)


@verifies("g365s-001-v2")
def _(q):
    q.has("the street-level floor is labelled 1 (there is no floor 0)")
    digit = q.int("every label containing the digit {} is skipped")
    ok = labels(lambda n: str(digit) not in str(n))
    m = q.find(r"The floors above it continue 2, 3, 5, \.\.\.: ")
    assert ok[:4] == [1, 2, 3, 5], m.group(0)
    gone = q.find(r"\(so (\d+), (\d+), (\d+), (\d+) and all of (\d+) to (\d+) do not exist\), "
                  r"while (\d+) is used normally")
    g = [int(x) for x in gone.groups()]
    assert not set(g[:4] + list(range(g[4], g[5] + 1))) & set(ok) and g[6] in ok
    storey = {lab: i for i, lab in enumerate(ok)}            # label 1 is street level, 0
    q.has("B1 (directly under floor 1) and B2 (under B1)")
    storey.update({"B1": -1, "B2": -2})
    steps = q.int("has exactly {} steps")
    top = q.int("walks from B2 up to the floor labelled {}")
    return (storey[top] - storey["B2"]) * steps


@verifies("g365s-001-v3")
def _(q):
    first = q.int("only odd numbers, starting at {} and increasing along the road: 1, 3, 5, ...")
    unlucky, digit = q.nums("refused to issue the number {} or any number containing the digit {}")
    last = q.int("The last house on that side is number {}")
    houses = [n for n in range(first, last + 1, 2) if n != unlucky and str(digit) not in str(n)]
    assert houses[-1] == last
    gap = q.num("exactly {} m between neighbouring houses")
    route = q.nums("walks from house {} along the row to house {}, and then back along the row "
                   "to house {}")
    pos = {h: i for i, h in enumerate(houses)}
    return sum(abs(pos[a] - pos[b]) for a, b in zip(route, route[1:])) * gap


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-001": "13 4 12 15 23 25 3 5 1 75 9 31 10 5 10 17 9 17",
    "g365s-001-v1": "1 2 3 13 12 14 1 2 1 3 2 4 2 2 38",
    "g365s-001-v2": "1 0 2 3 5 4 4 14 24 34 40 49 13 1 1 2 1 18 2 52",
    "g365s-001-v3": "1 1 3 5 13 4 15 59 7 59 21",
}
