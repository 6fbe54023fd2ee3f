"""g365s-016: a lift with only UP k and DOWN j buttons, in a building whose labels skip
numbers; fewest presses by BFS over storeys."""

from collections import deque

from sample.harness import verifies


def distances(n: int, up: int, down: int, start: int) -> dict[int, int]:
    """Fewest presses from storey `start` (1..n) to every storey (a press that would leave
    the building does nothing, so it never helps and BFS can ignore it)."""
    dist, todo = {start: 0}, deque([start])
    while todo:
        s = todo.popleft()
        for t in (s + up, s - down):
            if 1 <= t <= n and t not in dist:
                dist[t] = dist[s] + 1
                todo.append(t)
    return dist


def larkspur(q):
    n = q.int("The Larkspur Tower has {} storeys")
    skipped = q.int("the builders skipped the number {}")
    labels, k = [], 1
    while len(labels) < n:
        labels += [str(k)] if k != skipped else []
        k += 1
    q.has("Its floor buttons are labelled 1, 2, 3, ..., 12, 14, 15, ..., 21")
    below, above, top = q.nums("the storey directly above the one labelled {} is labelled {}, "
                               "and the top storey is labelled {}")
    assert labels[labels.index(str(below)) + 1] == str(above) and labels[-1] == str(top)
    up, down = q.nums("UP moves the car up exactly {} storeys, and DOWN moves it down exactly "
                      "{} storeys")
    q.has("A press that would take the car above the top storey or below the bottom storey "
          "does nothing (but still counts as a press)")
    return labels, up, down


@verifies("g365s-016")
def _(q):
    labels, up, down = larkspur(q)
    start = q.int("The car is at the floor labelled {}.")
    goal = q.int("brings the car to the floor labelled {}?")
    storey = {lab: i + 1 for i, lab in enumerate(labels)}
    return distances(len(labels), up, down, storey[str(start)])[storey[str(goal)]]


@verifies("g365s-016-v1")
def _(q):
    n = q.int("has {} storeys")
    gone = q.nums("the numbers {} and {} are never used")
    labels, k = ["G"], 1
    while len(labels) < n:
        labels += [str(k)] if k not in gone else []
        k += 1
    q.has("above it the labels run 1, 2, 3, 5, 6, ..., 13, 15, 16, ...")
    assert labels[-1] == str(q.int("so the top storey is labelled {}"))
    up, down, hop = q.nums("UP moves the car up exactly {} storeys, DOWN moves it down exactly "
                           "{} storeys, and HOP moves it up exactly {} storeys.")
    q.has("HOP is a service button that works only once per trip: after its first press, "
          "pressing it again does nothing (but still counts as a press).")
    q.has("does nothing (but still counts as a press)", "The car is at G.")
    goal = q.int("brings the car to the floor labelled {}?")
    storey = {lab: i + 1 for i, lab in enumerate(labels)}
    # BFS over (storey, HOP used): a dead HOP press only wastes a press
    start, dist = (storey["G"], False), {(storey["G"], False): 0}
    todo = deque([start])
    while todo:
        s, used = todo.popleft()
        for t, u in [(s + up, used), (s - down, used)] + ([(s + hop, True)] if not used else []):
            if 1 <= t <= n and (t, u) not in dist:
                dist[(t, u)] = dist[(s, used)] + 1
                todo.append((t, u))
    return min(d for (t, _), d in dist.items() if t == storey[str(goal)])


@verifies("g365s-016-v2")
def _(q):
    n = q.int("A parking garage has {} levels")
    top = q.int("labelled P4, P3, P2, P1, G, 1, 2, ..., {} (there is no level 0")
    q.has("G sits directly on top of P1, and level 15 is the top")
    labels = ["P4", "P3", "P2", "P1", "G"] + [str(k) for k in range(1, top + 1)]
    assert len(labels) == n
    up, down = q.nums("UP raises it exactly {} levels and DOWN lowers it exactly {} levels")
    q.has("does nothing (but still counts as a press)", "Sam is in the lift at level G.")
    low = "P" + str(q.int("first go down to level P{} to fetch"))
    high = str(q.int("then go up to level {}."))
    storey = {lab: i + 1 for i, lab in enumerate(labels)}
    trip = ["G", low, high]
    return sum(distances(n, up, down, storey[a])[storey[b]] for a, b in zip(trip, trip[1:]))


@verifies("g365s-016-v3")
def _(q):
    labels, up, down = larkspur(q)
    start = q.int("The car starts at the floor labelled {}.")
    assert q.int("every floor other than the floor labelled {}") == start
    most = q.int("using at most {} presses")
    storey = {lab: i + 1 for i, lab in enumerate(labels)}
    dist = distances(len(labels), up, down, storey[str(start)])
    return sum(int(labels[s - 1]) for s, d in dist.items() if 0 < d <= most)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-016": "20 1 2 3 12 14 15 21 13 12 14 21 7 5 1 21",
    "g365s-016-v1": "24 1 2 3 5 6 13 15 16 4 14 25 9 5 2 25",
    "g365s-016-v2": "20 4 3 2 1 1 2 15 0 1 15 7 5 4 15",
    "g365s-016-v3": "20 1 2 3 12 14 15 21 13 12 14 21 7 5 1 1 6",
}
