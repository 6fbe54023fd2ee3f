"""g365s-010: a die (or cube) tipped from cell to cell; which face ends where."""

import itertools
import re

from sample.harness import verifies

# A quarter turn about the bottom edge on the side of the move: the face on the far side
# goes down, the top goes to the far side, the near side comes up.
FAR = {"north": ("N", "S"), "south": ("S", "N"), "east": ("E", "W"), "west": ("W", "E")}


def tip(state: dict, move: str) -> dict:
    far, near = FAR[move]
    s = dict(state)
    s["top"], s[far], s["bottom"], s[near] = state[near], state["top"], state[far], state["bottom"]
    return s


def die(top, north, east) -> dict:
    """A standard die: opposite faces add up to 7 (the rule the questions leave unsaid)."""
    return {"top": top, "N": north, "E": east, "bottom": 7 - top, "S": 7 - north, "W": 7 - east}


def number_letter(q, value) -> str:
    options = {int(m.group(2)): m.group(1) for m in q.findall(r"^([A-H])\. (\d)$")}
    assert sorted(options) == [1, 2, 3, 4, 5, 6]
    return options[value]


@verifies("g365s-010")
def _(q):
    q.has("stands on the south-west corner cell of a 4 x 4 board")
    state = die(*q.nums("Its top face shows {}, the face pointing north shows {} and the face "
                        "pointing east shows {}."))
    pos, size = (0, 0), 4
    step = {"north": (0, 1), "east": (1, 0), "south": (0, -1), "west": (-1, 0)}
    for m in q.findall(r"(\d+) cells (north|east|south|west) along the (\w+) edge"):
        for _ in range(int(m.group(1))):
            state = tip(state, m.group(2))
            dx, dy = step[m.group(2)]
            pos = (pos[0] + dx, pos[1] + dy)
            assert 0 <= min(pos) and max(pos) < size, "the die would leave the board"
    assert pos == (0, 0), "the story says it arrives back on its starting cell"
    return number_letter(q, state["top"])


@verifies("g365s-010-v1")
def _(q):
    route = q.find(r"It is moved one cell north, then one cell east, one more cell east, one "
                   r"cell south, one cell west and finally one cell north\.").group(0)
    moves = re.findall(r"north|east|south|west", route)
    assert q.find(r"After these (six) moves").group(1) == "six" and len(moves) == 6
    end = die(*q.nums("its top face shows {}, the face pointing north shows {} and the face "
                      "pointing east shows {}."))
    starts = []
    for top, north in itertools.permutations(range(1, 7), 2):
        if top + north == 7:
            continue
        for east in set(range(1, 7)) - {top, north, 7 - top, 7 - north}:
            s = die(top, north, east)
            t = s
            for mv in moves:
                t = tip(t, mv)
            if t == end:
                starts.append(s)
    # Tipping never mirrors a die, so any start that tips into the end state has the
    # end state's handedness; all of them must agree on the top face.
    (top,) = {s["top"] for s in starts}
    return number_letter(q, top)


@verifies("g365s-010-v2")
def _(q):
    q.has("A 5 x 5 board has columns a to e from west to east and rows 1 to 5 from south to "
          "north.")
    ice = set(q.find(r"Four of its cells, (\w\d), (\w\d), (\w\d) and (\w\d), are made of ice\.")
              .groups())
    start, top, north, east = q.nums("starts on {w} with {} on top, {} facing north and {} "
                                     "facing east")
    state = die(top, north, east)
    col, row = "abcde".index(start[0]), int(start[1]) - 1
    step = {"north": (0, 1), "east": (1, 0), "south": (0, -1), "west": (-1, 0)}
    for m in q.findall(r"(east|north|west|south) (\d+) times \((\w\d) to (\w\d)\)"):
        assert m.group(3) == "abcde"[col] + str(row + 1)
        for _ in range(int(m.group(2))):
            dx, dy = step[m.group(1)]
            col, row = col + dx, row + dy
            cell = "abcde"[col] + str(row + 1)
            if cell not in ice:          # ending on ice: a slide, no turn
                state = tip(state, m.group(1))
        assert m.group(4) == "abcde"[col] + str(row + 1)
    return number_letter(q, state["bottom"])


@verifies("g365s-010-v3")
def _(q):
    # the tiles a wet face touches: position and orientation tracked together
    m = q.find(r"with (\w+) on top, (\w+) on the bottom, (\w+) facing north, (\w+) facing "
               r"south, (\w+) facing east and (\w+) facing west")
    state = dict(zip(("top", "bottom", "N", "S", "E", "W"), m.groups()))
    order = q.find(r"in this order: ((?:(?:north|east|south|west)(?:, )?)+)\.").group(1)
    wet = q.find(r"The (\w+) face has just been painted and is still wet: every tile that the "
                 r"\1 face rests on, even for a moment, gets a \1 mark\.").group(1)
    step = {"north": (0, 1), "east": (1, 0), "south": (0, -1), "west": (-1, 0)}
    pos = (0, 0)
    marked = {pos} if state["bottom"] == wet else set()
    for mv in order.split(", "):
        state = tip(state, mv)
        pos = (pos[0] + step[mv][0], pos[1] + step[mv][1])
        if state["bottom"] == wet:
            marked.add(pos)
    q.has(f"How many different tiles have a {wet} mark when the cube stops?")
    return number_letter_any(q, len(marked))


def number_letter_any(q, value) -> str:
    options = {int(m.group(2)): m.group(1) for m in q.findall(r"^([A-H])\. (\d)$")}
    return options[value]


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-010": "4 4 1 2 3 3 3 3 3 4 2 6 1 5 3",
    "g365s-010-v1": "6 4 5 3 5 1 6 2 4",
    "g365s-010-v2": "5 5 1 5 1 1 3 5 1 1 2 3 4 1 1 4 1 5 4 5 5 5 3 1 2 6 4",
    "g365s-010-v3": "1 2 3 4 0 5",
}
