"""g365s-033: cars (canoes, bikes) parked in single file must be shuffled so that each can
leave on time; the fewest moves over the whole day, by Dijkstra over every arrangement.

Places are stacks (only the outermost item can come out, and an item going in becomes the
outermost) or open spots; a place may be closed for a period (it must then be empty).
Between two events any number of moves may be made; leaving and coming home are free,
and an item coming home may be put in any open place with room."""

import heapq
import re
from dataclasses import dataclass

from sample.harness import minutes, verifies


@dataclass(frozen=True)
class Place:
    name: str
    kind: str            # "stack", "two doors" (a row open at both ends) or "spots"
    capacity: int
    closed: tuple = ()   # (from, to) minutes: the place must be empty then


def best_moves(places, start: dict, events) -> int | None:
    """The fewest moves; events: (minute, item, 'leaves' | 'comes home')."""
    names = [p.name for p in places]
    by_name = {p.name: p for p in places}
    marks = [(t, None, "open" if i else "close", p.name)
             for p in places for a, b in p.closed for i, t in enumerate((a, b))]
    timeline = sorted([(t, item, kind, None) for t, item, kind in events] + marks,
                      key=lambda e: (e[0], e[2] != "close"))
    closed = set()

    def state_of(contents):
        return tuple(tuple(contents[n]) if by_name[n].kind != "spots"
                     else tuple(sorted(contents[n])) for n in names)

    def outer(state, event=False):
        """(place index, item) for every item that can be taken out (by a move, or with
        `event` by leaving: a two-door row lets items leave through its outer door only)."""
        for i, content in enumerate(state):
            if content:
                kind = places[i].kind
                items = ([content[-1]] if kind == "stack" or (kind == "two doors" and event)
                         else list(dict.fromkeys((content[0], content[-1])))
                         if kind == "two doors" else content)
                for it in items:
                    yield i, it

    def take(state, i, item):
        content = list(state[i])
        if places[i].kind == "stack" or (places[i].kind == "two doors" and content[-1] == item):
            content.pop()
        elif places[i].kind == "two doors":
            content.pop(0)
        else:
            content.remove(item)
        return state[:i] + (tuple(content),) + state[i + 1:]

    def puts(state, i, item, event=False):
        """Every state after putting `item` into place i (a two-door row: at either end by
        a move, at the outer end by coming home)."""
        ends = [state[i] + (item,)]
        if places[i].kind == "spots":
            ends = [tuple(sorted(ends[0]))]
        elif places[i].kind == "two doors" and not event:
            ends.append((item,) + state[i])
        return [state[:i] + (content,) + state[i + 1:] for content in ends]

    def room(state, i):
        return len(state[i]) < places[i].capacity and places[i].name not in closed

    frontier = {state_of({n: start.get(n, []) for n in names}): 0}
    for t, item, kind, place in timeline:
        dist, todo = dict(frontier), [(c, s) for s, c in frontier.items()]
        heapq.heapify(todo)
        while todo:
            cost, s = heapq.heappop(todo)
            if dist[s] < cost:
                continue
            for i, it in outer(s):
                base = take(s, i, it)
                for j in range(len(places)):
                    if j != i and room(base, j):
                        for s2 in puts(base, j, it):
                            if cost + 1 < dist.get(s2, float("inf")):
                                dist[s2] = cost + 1
                                heapq.heappush(todo, (cost + 1, s2))
        nxt = {}
        for s, cost in dist.items():
            if kind == "close":
                options = [s] if not s[names.index(place)] else []
            elif kind == "open":
                options = [s]
            elif kind == "leaves":
                options = [take(s, i, it) for i, it in outer(s, event=True) if it == item]
            else:
                options = [s2 for j in range(len(places)) if room(s, j)
                           for s2 in puts(s, j, item, event=True)]
            for s2 in options:
                nxt[s2] = min(nxt.get(s2, float("inf")), cost)
        if kind == "close":
            closed.add(place)
        elif kind == "open":
            closed.discard(place)
        frontier = nxt
        if not frontier:
            return None
    return min(frontier.values())


NUMBER = {"one": 1, "two": 2, "three": 3, "four": 4}


def read_places(q):
    places = []
    for m in q.findall(r"^- the ([a-z ]+?): holds (\w+) (\w+)(.*)$"):
        name, cap, rest = m.group(1), NUMBER.get(m.group(2)) or int(m.group(2)), m.group(4)
        kind = ("two doors" if re.search(r"with a door at each end", rest) else
                "stack" if re.search(r"in single file|on one rail", rest) else "spots")
        closed = tuple((minutes(a), minutes(b)) for a, b in
                       re.findall(r"from (\d+:\d\d) to (\d+:\d\d)", rest))
        places.append(Place(name, kind, cap, closed))
    return places


def read_events(q):
    return [(minutes(m.group(1)), m.group(2), m.group(3))
            for m in q.findall(r"^(\d+:\d\d) (\w+) (leaves|comes home)\.$")]


def names(text: str) -> list[str]:
    return [x for x in re.split(r", | and ", text) if x]


RULES = ("A move means taking one {thing} out of one place and putting it into another; "
         "leaving and coming home are not moves, and a {thing} that comes home may be put into "
         "any place with room (if it is open). Any number of moves may be made between the "
         "events below.")


@verifies("g365s-033")
def _(q):
    q.has(RULES.format(thing="car"), "only the car nearest the street can drive out, and a car "
          "that drives in parks nearest the street", "so it must be empty for that whole hour")
    places = read_places(q)
    m = q.find(r"At (\d+:\d\d) the driveway holds, from the house end to the street end, "
               r"([\w, ]+); (\w+) is on the street spot; the lawn is empty\.")
    start = {"driveway": names(m.group(2)), "street spot": [m.group(3)], "lawn": []}
    events = read_events(q)
    assert minutes(m.group(1)) < events[0][0]
    return best_moves(places, start, events)


@verifies("g365s-033-v1")
def _(q):
    # a shed with a door at each end: moves use either door, the river only the water door
    q.has(RULES.format(thing="canoe"), "with a door at each end: the water door and the path "
          "door. A canoe can be carried out through either door, but only the canoe nearest "
          "that door, and a canoe carried in is put nearest the door it came through.",
          "Canoes go out on the river, and come back from it, only through the water door; the "
          "path door is for moving canoes between the shed and the other places.",
          "so it must be empty for that whole hour")
    places = read_places(q)
    assert places[0].kind == "two doors"
    m = q.find(r"At (\d+:\d\d) the shed holds, from the path door to the water door, ([\w, ]+); "
               r"(\w+) is on the jetty; the bank is empty\.")
    events = read_events(q)
    assert minutes(m.group(1)) < events[0][0]
    return best_moves(places, {"shed": names(m.group(2)), "jetty": [m.group(3)], "bank": []},
                      events)


@verifies("g365s-033-v2")
def _(q):
    q.has(RULES.format(thing="bike"), "only the bike nearest the door can be lifted off, and a "
          "bike hung on it goes nearest the door", "it works the same way as the left rail",
          "so the hook must be empty for that whole hour")
    places = read_places(q)
    m = q.find(r"At (\d+:\d\d) the left rail holds, from the wall to the door, ([\w, ]+); the "
               r"right rail holds, from the wall to the door, ([\w, ]+); (\w+)'s bike is on the "
               r"hook\.")
    events = read_events(q)
    assert minutes(m.group(1)) < events[0][0]
    start = {"left rail": names(m.group(2)), "right rail": names(m.group(3)),
             "hook": [m.group(4)]}
    return best_moves(places, start, events)


@verifies("g365s-033-v3")
def _(q):
    q.has(RULES.format(thing="car"), "only the car nearest the street can drive out, and a car "
          "that drives in parks nearest the street", "so it must be empty during those times",
          "every car must be parked legally for the night", "over the whole day, up to midnight")
    places = read_places(q)
    m = q.find(r"At (\d+:\d\d) the driveway holds, from the house end to the street end, "
               r"([\w, ]+); (\w+) is on the street spot; the lawn is empty\.")
    start = {"driveway": names(m.group(2)), "street spot": [m.group(3)], "lawn": []}
    events = read_events(q)
    assert minutes(m.group(1)) < events[0][0]
    return best_moves(places, start, events)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-033": "3 1 8 00 9 00 1 6 30 7 15 7 30 8 35 9 10 10 40 12 30 15 50 17 15",
    "g365s-033-v1": (
        "3 1 1 10 00 11 00 9 00 10 05 10 35 10 40 11 00 12 10 12 50 13 45 14 "
        "55"),
    "g365s-033-v2": (
        "2 2 1 12 00 13 00 7 00 7 10 10 00 11 45 12 30 12 50 13 40 16 15 16 "
        "20 17 20 18 35"),
    "g365s-033-v3": (
        "3 1 8 00 9 00 20 00 23 59 1 7 00 7 45 7 50 8 05 8 20 9 25 10 00 14 "
        "50 16 05"),
}
