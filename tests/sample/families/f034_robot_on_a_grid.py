"""g365s-034: a cleaning robot (or mower) that follows fixed turning rules on a floor plan;
which statements about its run are true. The plan, the rules and the statements are read
from the question and the run is simulated move by move."""

import re

from sample.harness import verifies

HEADINGS = ["north", "east", "south", "west"]
STEP = {"north": (0, 1), "east": (1, 0), "south": (0, -1), "west": (-1, 0)}
WORDS = {"right": 1, "left": -1}


def plan(q):
    """Squares by name ('a1' = south-west corner) -> '.', '#' (furniture) or '~' (rug)."""
    q.has("a square is named by its column and row, so a1 is the south-west corner")
    lines = [(m.group(1), m.group(2).split()) for m in q.findall(r"^(\d) ((?:[.#~R] ?)+)$")]
    footer = q.find(r"^  ((?:[a-h] ?)+)$").group(1).split()
    squares = {}
    for row, cells in lines:            # squares are named by the printed labels
        assert len(cells) == len(footer)
        for col, ch in zip(footer, cells):
            squares[f"{col}{row}"] = ch
    return squares, sorted(footer)


def neighbour(sq, heading, cols):
    col, row = cols.index(sq[0]), int(sq[1:])
    dx, dy = STEP[heading]
    return f"{cols[col + dx]}{row + dy}" if 0 <= col + dx < len(cols) else None


def run(squares, cols, start, heading, moves, blocked_turn, rug_turn, every=None):
    """The squares occupied after each move (the start first) and the heading at the end.

    Blocked: turn a quarter turn to `blocked_turn` (+1 right, -1 left) and try again.
    After a move that ends on a rug, turn a quarter turn to `rug_turn` (0: no turn).
    every: (k, turn) - after every k-th move, also turn."""
    pos, h, path = start, HEADINGS.index(heading), [start]
    for n in range(1, moves + 1):
        for _ in range(4):
            ahead = neighbour(pos, HEADINGS[h], cols)
            if ahead in squares and squares[ahead] != "#":
                break
            h = (h + blocked_turn) % 4
        else:
            raise AssertionError("the robot is boxed in")
        pos = ahead
        path.append(pos)
        if squares[pos] == "~":
            h = (h + rug_turn) % 4
        if every and n % every[0] == 0:
            h = (h + every[1]) % 4
    return path, HEADINGS[h]


def statement(text, path, heading, squares):
    forms = [
        (r"The robot ends on (\w\d)\.", lambda s: path[-1] == s),
        (r"The robot makes exactly (\d+) moves\.", lambda n: len(path) - 1 == int(n)),
        (r"The robot is on (\w\d) at least twice \(the start counts\)\.",
         lambda s: path.count(s) >= 2),
        (r"The robot never enters (\w\d)\.", lambda s: s not in path[1:]),
        (r"At the end the robot faces (\w+)\.", lambda h: heading == h),
        (r"The robot (?:cleans|mows) exactly (\d+) different squares \(the start counts\)\.",
         lambda n: len(set(path)) == int(n)),
        (r"The robot's (\d+)\w\w move ends on (?:a rug|wet grass)\.",
         lambda n: squares[path[int(n)]] == "~"),
        (r"The robot enters (\w\d) before it first enters (\w\d)\.",
         lambda a, b: a in path[1:] and (b not in path[1:] or path.index(a, 1) < path.index(b, 1))),
    ]
    for regex, test in forms:
        if m := re.fullmatch(regex, text):
            return test(*m.groups())
    raise AssertionError(f"unknown statement {text!r}")


def answer(q, path, heading, squares):
    options = q.options()
    q.findall(r"^[A-H]\. .+$")
    return "".join(k for k, t in sorted(options.items()) if statement(t, path, heading, squares))


def legend(q):
    q.has("# is furniture, ~ is a rug, . is bare floor, R is the robot's starting square, which "
          "is bare floor")


def start_of(squares):
    (start,) = [s for s, ch in squares.items() if ch == "R"]
    squares[start] = "."
    return start


@verifies("g365s-034")
def _(q):
    legend(q)
    q.has("(north is at the top;", "Columns a-f run west to east and rows 1-5 south to north")
    squares, cols = plan(q)
    start = start_of(squares)
    heading = q.find(r"It starts facing (\w+)\.").group(1)
    moves = q.int("The battery lasts exactly {} moves")
    blocked = WORDS[q.find(r"it turns a quarter turn to its own (right|left) \(on the spot\) "
                           r"and tries again").group(1)]
    rug = WORDS[q.find(r"Whenever a move ends on a rug, the robot's brush snags and it turns a "
                       r"quarter turn to its own (left|right)").group(1)]
    q.has("Turning does not count as a move", "move takes it one square forward")
    path, end = run(squares, cols, start, heading, moves, blocked, rug)
    return answer(q, path, end, squares)


def run_unmowed(squares, cols, start, heading, moves, blocked_turn, slip_turn):
    """As `run`, but a square already occupied counts as blocked, and a mower that has
    turned all the way round without a free square stops for good."""
    pos, h, path = start, HEADINGS.index(heading), [start]
    for _ in range(moves):
        for _ in range(4):
            ahead = neighbour(pos, HEADINGS[h], cols)
            if ahead in squares and squares[ahead] != "#" and ahead not in path:
                break
            h = (h + blocked_turn) % 4
        else:
            break
        pos = ahead
        path.append(pos)
        if squares[pos] == "~":
            h = (h + slip_turn) % 4
    return path, HEADINGS[h]


@verifies("g365s-034-v1")
def _(q):
    q.has("(north is at the top; # is a flower bed, ~ is wet grass, . is dry grass, R is the "
          "mower's starting square, which is dry grass)", "Columns a-f run west to east and rows "
          "1-5 south to north", "Turning does not count as a move", "move takes it one square "
          "forward", "The mower never drives onto grass it has already mowed: a square it has "
          "been on (its starting square included) counts as blocked, just like a flower bed.",
          "if it has turned all the way round without finding a free square, it stops for good")
    squares, cols = plan(q)
    start = start_of(squares)
    heading = q.find(r"It starts facing (\w+)\.").group(1)
    moves = q.int("The battery would last {} moves")
    blocked = WORDS[q.find(r"If the square ahead is blocked or outside the plan, it turns a "
                           r"quarter turn to its own (right|left) \(on the spot\) and tries "
                           r"again").group(1)]
    slip = WORDS[q.find(r"Whenever a move ends on wet grass, its wheels slip and it turns a "
                        r"quarter turn to its own (left|right)").group(1)]
    path, end = run_unmowed(squares, cols, start, heading, moves, blocked, slip)
    return answer(q, path, end, squares)


@verifies("g365s-034-v2")
def _(q):
    legend(q)
    q.has("(north is at the top;", "Columns a-f run west to east and rows 1-5 south to north",
          "Turning does not count as a move", "move takes it one square forward",
          "Rugs are thin and make no difference to it.")
    squares, cols = plan(q)
    start = start_of(squares)
    heading = q.find(r"It starts facing (\w+)\.").group(1)
    moves = q.int("The battery lasts exactly {} moves")
    blocked = WORDS[q.find(r"it turns a quarter turn to its own (right|left) \(on the spot\) "
                           r"and tries again").group(1)]
    k = q.int("After every {}th move")
    q.has(f"(its {k}th, {2 * k}th, {3 * k}th and {4 * k}th moves)")
    assert 4 * k <= moves < 5 * k
    q.has("it makes a half turn on the spot")
    path, end = run(squares, cols, start, heading, moves, blocked, 0, every=(k, 2))
    return answer(q, path, end, squares)


@verifies("g365s-034-v3")
def _(q):
    legend(q)
    q.has("The plan is drawn as seen from the window on the south side, so north is at the "
          "BOTTOM of the drawing and east is on the LEFT.", "Columns a-f run west to east and "
          "rows 1-5 south to north", "Turning does not count as a move", "move takes it one "
          "square forward")
    squares, cols = plan(q)
    start = start_of(squares)
    heading = q.find(r"It starts facing (\w+)\.").group(1)
    moves = q.int("The battery lasts exactly {} moves")
    blocked = WORDS[q.find(r"it turns a quarter turn to its own (right|left) \(on the spot\) "
                           r"and tries again").group(1)]
    rug = WORDS[q.find(r"Whenever a move ends on a rug, the robot's brush snags and it turns a "
                       r"quarter turn to its own (left|right)").group(1)]
    path, end = run(squares, cols, start, heading, moves, blocked, rug)
    return answer(q, path, end, squares)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-034": "1 5 1 5 4 3 2 1 24 5 2 1 17 3 2",
    "g365s-034-v1": "1 5 1 5 4 3 2 1 22 4 14 4 14 9 5 4",
    "g365s-034-v2": "1 5 1 5 4 3 2 1 6 6 12 18 24 26 1 3 3 14 5 3",
    "g365s-034-v3": "1 5 1 1 2 3 4 5 20 5 1 2 15 14",
}
