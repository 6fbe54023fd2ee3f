"""g365s-011: the unique shortest sequence of presses (or moves), found by BFS."""

from collections import deque

from sample.harness import verifies


def unique_shortest(start, done, ops: dict) -> str:
    """BFS over states, counting shortest paths. ops: name -> (state -> next state, or None
    when the press is not allowed); done(state): the goal is reached. Exactly one shortest
    sequence must exist."""
    dist, ways, back = {start: 0}, {start: 1}, {start: None}
    todo = deque([start])
    while todo:
        s = todo.popleft()
        for name, op in ops.items():
            t = op(s)
            if t is None:
                continue
            if t not in dist:
                dist[t], ways[t], back[t] = dist[s] + 1, ways[s], (s, name)
                todo.append(t)
            elif dist[t] == dist[s] + 1:
                ways[t] += ways[s]
    goals = [s for s in dist if done(s)]
    assert goals, "the goal cannot be reached"
    best = min(dist[s] for s in goals)
    ends = [s for s in goals if dist[s] == best]
    assert sum(ways[s] for s in ends) == 1, f"{sum(ways[s] for s in ends)} shortest sequences"
    out, s = [], ends[0]
    while back[s]:
        s, name = back[s]
        out.append(name)
    return "".join(reversed(out))


def reverse_digits(n: int) -> int:
    return int(str(n)[::-1])


def check_examples(q, regex, op):
    for m in q.findall(regex):
        assert op(int(m.group(1))) == int(m.group(2)), m.group(0)


def safe_buttons(q):
    add = q.int("Button A adds {} to the displayed number")
    q.has("Button B doubles it")
    q.has("Button C reverses its digits, dropping any leading zeros")
    check_examples(q, r"(\d+) becomes (\d+)", reverse_digits)
    q.has("and 7 stays 7")
    sub = q.int("Button D subtracts {}")
    top = q.int("if the result would be negative or larger than {}")
    start, goal = q.nums("The display shows {}, and the safe opens when it shows {}.")
    raw = {"A": lambda n: n + add, "B": lambda n: 2 * n, "C": reverse_digits,
           "D": lambda n: n - sub}
    ops = {k: (lambda op: lambda n: op(n) if 0 <= op(n) <= top else None)(op)
           for k, op in raw.items()}
    return ops, start, goal


@verifies("g365s-011")
def _(q):
    ops, start, goal = safe_buttons(q)
    return unique_shortest(start, lambda n: n == goal, ops)


@verifies("g365s-011-v1")
def _(q):
    ops, start, goal = safe_buttons(q)
    q.has("the same button may never be pressed twice in a row")
    # The state is (number, last button pressed).
    pair_ops = {k: (lambda k, op: lambda s: None if s[1] == k or op(s[0]) is None
                    else (op(s[0]), k))(k, op) for k, op in ops.items()}
    return unique_shortest((start, None), lambda s: s[0] == goal, pair_ops)


@verifies("g365s-011-v2")
def _(q):
    q.has("Button A appends a 0 to the number (multiplies it by 10)")
    add = q.int("Button B adds {}")
    q.has("Button C deletes the last digit (so 37 becomes 3 and a single digit becomes 0)")
    q.has("Button D swaps the first and last digits (for example 124 becomes 421, 120 becomes "
          "21 because the leading zero is dropped, and a one-digit number is unchanged)")
    top = q.int("if the result would be larger than {}")
    start, goal = q.nums("The display shows {}, and the box opens at {}.")

    def swap_ends(n):
        s = str(n)
        return n if len(s) < 2 else int(s[-1] + s[1:-1] + s[0])
    assert 37 // 10 == 3 and 5 // 10 == 0 and swap_ends(124) == 421 and swap_ends(120) == 21
    raw = {"A": lambda n: n * 10, "B": lambda n: n + add, "C": lambda n: n // 10, "D": swap_ends}
    ops = {k: (lambda op: lambda n: op(n) if op(n) <= top else None)(op) for k, op in raw.items()}
    return unique_shortest(start, lambda n: n == goal, ops)


@verifies("g365s-011-v3")
def _(q):
    rows, cols = q.nums("on the square marked R of this {} x {} floor plan")
    grid = [m.group(0).split() for m in q.findall(r"^[R#G.12](?: [R#G.12])+$")]
    assert len(grid) == rows and all(len(r) == cols for r in grid)
    q.has("The squares marked 1 are a pair of portals, and so are the squares marked 2")
    cells = {(r, c): ch for r, line in enumerate(grid) for c, ch in enumerate(line)}
    portal = {}
    for mark in "12":
        a, b = [x for x, ch in cells.items() if ch == mark]
        portal[a], portal[b] = b, a
    (start,) = [x for x, ch in cells.items() if ch == "R"]
    (goal,) = [x for x, ch in cells.items() if ch == "G"]
    step = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}

    def move(d):
        def op(x):
            t = (x[0] + step[d][0], x[1] + step[d][1])
            if cells.get(t, "#") == "#":
                return None
            return portal.get(t, t)
        return op
    return unique_shortest(start, lambda x: x == goal, {d: move(d) for d in "NSEW"})


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-011": "3 25 52 120 21 7 7 1 999 2 189",
    "g365s-011-v1": "3 25 52 120 21 7 7 1 999 2 189",
    "g365s-011-v2": "0 10 4 37 3 0 124 421 120 21 999 1 421",
    "g365s-011-v3": "6 6 2 1 1 2 1 2",
}
