"""g365s-040: sorting a stack of plates (or a row of books) with one move, turning over the
top k as a block; the unique shortest sequence, found by BFS that counts shortest paths."""

import re
from collections import deque

from sample.harness import verifies


def flip(state, k):
    """Turn over the top k items: their order reverses and each one is turned upside down."""
    top = tuple((size, not up) for size, up in reversed(state[:k]))
    return top + state[k:]


def unique_shortest(start, goal, allowed) -> str:
    """`allowed`: flip sizes k, or (name, move) pairs for other moves."""
    moves = [m if isinstance(m, tuple) else (str(m), lambda s, k=m: flip(s, k)) for m in allowed]
    dist, ways, back = {start: 0}, {start: 1}, {start: None}
    todo = deque([start])
    while todo:
        s = todo.popleft()
        for k, move in moves:
            t = move(s)
            if t not in dist:
                dist[t], ways[t], back[t] = dist[s] + 1, ways[s], (s, k)
                todo.append(t)
            elif dist[t] == dist[s] + 1:
                ways[t] += ways[s]
    assert goal in dist, "the goal cannot be reached"
    assert ways[goal] == 1, f"{ways[goal]} shortest sequences"
    out, s = [], goal
    while back[s]:
        s, k = back[s]
        out.append(k)
    return ",".join(reversed(out))


def stack(q, regex, up_word):
    """The items in order, e.g. '3 (rim up), 1 (rim down)' -> ((3, True), (1, False))."""
    text = q.find(regex).group(1)
    items = re.findall(r"(\d+) \((?:rim|spine to the) (\w+)\)", text)
    assert ", ".join(f"{n} (x)" for n, _ in items) == re.sub(r"\([^)]*\)", "(x)", text)
    return tuple((int(n), w == up_word) for n, w in items)


PLATES = ("Each plate has a gold rim painted on one face only.", "The only move: slide a spatula "
          "under the top k plates and turn that block over in one go, so the order of those k "
          "plates reverses and each of them ends up the other way up")
ANSWER = ("There is exactly one shortest sequence of moves. Write it as the values of k in "
          "order, separated by commas with no spaces (for example 2,4,1).")


def plates(q):
    n = {"five": 5, "six": 6}[q.find(r"a stack of (five|six) plates of different sizes").group(1)]
    q.has(f"numbered 1 (smallest) to {n} (largest)", *PLATES, ANSWER)
    start = stack(q, r"From top to bottom the stack is: ([^.]+)\.", "up")
    assert sorted(s for s, _ in start) == list(range(1, n + 1))
    return n, start


@verifies("g365s-040")
def _(q):
    n, start = plates(q)
    most = q.int("the spatula can lift at most {} plates")
    q.has(f"(so k is {', '.join(str(k) for k in range(1, most))} or {most})")
    q.has("from the smallest on top to the largest at the bottom, every rim facing up")
    goal = tuple((size, True) for size in range(1, n + 1))
    return unique_shortest(start, goal, range(1, most + 1))


@verifies("g365s-040-v1")
def _(q):
    # two kinds of move: a flip (Fk) and a cut (Ck: the top k set under the rest, unturned)
    q.has("numbered 1 (smallest) to 5 (largest)", PLATES[0], "She has two kinds of move.",
          "- A flip: slide a spatula under the top k plates and turn that block over in one go, "
          "so the order of those k plates reverses and each of them ends up the other way up",
          "- A cut: lift the top k plates as a block without turning it over and set it down "
          "under the remaining plates, so those k plates keep their order and stay the same "
          "way up", "It is written Fk.", "It is written Ck.",
          "There is exactly one shortest sequence of moves. Write it as its moves in order, "
          "separated by commas with no spaces (for example F2,C1,F4).")
    start = stack(q, r"From top to bottom the stack is: ([^.]+)\.", "up")
    n = len(start)
    assert sorted(s for s, _ in start) == list(range(1, n + 1))
    flips = [int(k) for k in re.findall(r"\d", q.find(r"\(k can be (1, 2, 3, 4 or 5)\)\. "
                                                       r"It is written Fk").group(1))]
    cuts = [int(k) for k in re.findall(r"\d", q.find(r"\(k can be (1, 2, 3 or 4)\)\. It is "
                                                      r"written Ck").group(1))]
    q.has("the largest plate on top and the smallest at the bottom, every rim facing up")
    goal = tuple((size, True) for size in range(n, 0, -1))
    moves = [(f"F{k}", lambda s, k=k: flip(s, k)) for k in flips] + \
        [(f"C{k}", lambda s, k=k: s[k:] + s[:k]) for k in cuts]
    return unique_shortest(start, goal, moves)


@verifies("g365s-040-v2")
def _(q):
    q.has("numbered 1 (shortest) to 5 (tallest)", "each book's spine faces either the room or the "
          "wall", ANSWER.replace("moves", "moves"))
    start = stack(q, r"From left to right: ([^.]+)\.", "room")
    least = q.int("the shelf's bracket means at least {} books")
    most = len(start)
    q.has(f"up to {most}", "put them back in the same place in reverse order, each book turned "
          "round (so a spine that faced the wall now faces the room, and the other way round)")
    q.has("heights increasing from left to right (book 1 at the left end), every spine facing "
          "the room")
    goal = tuple((size, True) for size in range(1, most + 1))
    return unique_shortest(start, goal, range(least, most + 1))


@verifies("g365s-040-v3")
def _(q):
    n, start = plates(q)
    odd = [int(k) for k in re.findall(r"\d", q.find(r"it always lifts an odd number of plates: "
                                                     r"(1, 3 or 5)").group(1))]
    assert all(k % 2 for k in odd) and max(odd) == n
    q.has("from the smallest on top to the largest at the bottom, every rim facing up")
    goal = tuple((size, True) for size in range(1, n + 1))
    return unique_shortest(start, goal, odd)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-040": "1 5 1 3 2 4 5 4 1 2 3 4 2 4 1",
    "g365s-040-v1": "1 5 4 2 5 3 1 1 2 3 4 5 1 2 3 4 2 1 4",
    "g365s-040-v2": "1 5 2 5 4 3 1 2 5 1 2 4 1",
    "g365s-040-v3": "1 5 3 4 1 2 5 1 3 5 2 4 1",
}
