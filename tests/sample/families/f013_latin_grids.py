"""g365s-013: Latin grids with extra clues, solved by backtracking (the solution must be
unique)."""

import itertools
import re

from sample.harness import verifies

WORDS = {"seven": 7, "eight": 8, "nine": 9, "ten": 10}


def latin_solutions(n, clues, limit=2) -> list[dict]:
    """Backtracking over an n x n Latin square (digits 1..n, row-major order, 0-based
    cells). clues: (cells, test); a test gets those cells' digits once all are filled."""
    grid, found = {}, []
    by_last = {}
    for cells, test in clues:
        by_last.setdefault(max(cells), []).append((cells, test))
    order = [(r, c) for r in range(n) for c in range(n)]

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


def the_solution(n, clues) -> dict:
    sols = latin_solutions(n, clues)
    assert len(sols) == 1, f"{len(sols)} solutions"
    return sols[0]


CELL = r"\((\d),(\d)\)"


def cell(r, c):
    return (int(r) - 1, int(c) - 1)


def grid_intro(q) -> int:
    n, hi = q.nums("Fill a {} x {} grid with the digits 1 to")
    assert q.int(f"Fill a {n} x {n} grid with the digits 1 to {{}}") == n
    q.has(f"Rows are numbered 1-{n} from top to bottom and columns 1-{n} from left to right; "
          "(r,c) is the cell in row r, column c.")
    return n


@verifies("g365s-013")
def _(q):
    n = grid_intro(q)
    line = q.find(rf"^{CELL} < {CELL}(?:; {CELL} < {CELL})*\.$").group(0)
    clues = [((cell(a, b), cell(c, d)), lambda u, v: u < v)
             for a, b, c, d in re.findall(rf"{CELL} < {CELL}", line)]
    assert WORDS[q.find(r"these (\w+) clues").group(1)] == len(clues)
    sol = the_solution(n, clues)
    q.has("Read the main diagonal (1,1), (2,2), (3,3), (4,4), (5,5) as a five-digit number.")
    return int("".join(str(sol[(i, i)]) for i in range(n)))


@verifies("g365s-013-v1")
def _(q):
    n = grid_intro(q)
    listed = q.find(r"The bars are between: (.+)\. Also").group(1)
    bars = {frozenset((cell(a, b), cell(c, d))) for a, b, c, d in
            re.findall(rf"{CELL}-{CELL}", listed)}
    r0, c0, corner = q.nums("Also, ({},{}) = {}.")
    clues = [((cell(r0, c0),), lambda x: x == corner)]
    for r, c in itertools.product(range(n), repeat=2):
        for other in ((r, c + 1), (r + 1, c)):
            if max(other) < n:
                want = frozenset(((r, c), other)) in bars
                clues.append((((r, c), other), lambda x, y, w=want: (abs(x - y) == 1) == w))
    assert all(max(max(p) for p in b) < n for b in bars)
    q.has("A bar means the two digits are consecutive (they differ by exactly 1).")
    sol = the_solution(n, clues)
    q.has("Read the bottom row from left to right as a four-digit number.")
    return int("".join(str(sol[(n - 1, c)]) for c in range(n)))


@verifies("g365s-013-v2")
def _(q):
    n = grid_intro(q)
    line = q.find(rf"^{CELL} \+ {CELL} = \d+(?:; {CELL} \+ {CELL} = \d+)*\.$").group(0)
    clues = [((cell(a, b), cell(c, d)), lambda x, y, s=int(s): x + y == s)
             for a, b, c, d, s in re.findall(rf"{CELL} \+ {CELL} = (\d+)", line)]
    assert WORDS[q.find(r"(\w+) clues give the sum", 0).group(1).lower()] == len(clues)
    sol = the_solution(n, clues)
    q.has("Read the bottom row from left to right as a five-digit number.")
    return int("".join(str(sol[(n - 1, c)]) for c in range(n)))


@verifies("g365s-013-v3")
def _(q):
    listed = q.find(r"^Four teams, ((?:\w+, )+\w+ and \w+), train on").group(1)
    teams = re.split(r", | and ", listed)
    n = len(teams)
    q.has("four courts numbered 1 to 4 in a row (neighbouring courts have consecutive numbers)",
          "Training has four rounds. In every round each court is used by exactly one team, and "
          "over the four rounds each team trains exactly once on every court.")
    T = {t: i for i, t in enumerate(teams)}
    clues = []
    for m in q.findall(r"^\d+\. (.+)$"):
        s = m.group(1)
        if f := re.fullmatch(r"In round (\d), (\w+) and (\w+) are on neighbouring courts\.", s):
            r, a, b = int(f[1]) - 1, T[f[2]], T[f[3]]
            clues.append((((a, r), (b, r)), lambda x, y: abs(x - y) == 1))
        elif f := re.fullmatch(r"In round (\d), (\w+)'s court number is exactly one more than "
                               r"(\w+)'s\.", s):
            r, a, b = int(f[1]) - 1, T[f[2]], T[f[3]]
            clues.append((((a, r), (b, r)), lambda x, y: x == y + 1))
        elif f := re.fullmatch(r"(\w+) is not on court (\d) in round (\d) or in round (\d)\.", s):
            a, c, r1, r2 = T[f[1]], int(f[2]), int(f[3]) - 1, int(f[4]) - 1
            clues.append((((a, r1), (a, r2)), lambda x, y, c=c: c not in (x, y)))
        elif f := re.fullmatch(r"(\w+)'s court in round (\d) has a higher number than its court "
                               r"in round (\d)\.", s):
            a, r1, r2 = T[f[1]], int(f[2]) - 1, int(f[3]) - 1
            clues.append((((a, r1), (a, r2)), lambda x, y: x > y))
        else:
            raise AssertionError(f"unknown clue {s!r}")
    sol = the_solution(n, clues)
    team = q.find(r"Write (\w+)'s court numbers in rounds 1, 2, 3 and 4, in that order, "
                  r"as a four-digit number\.").group(1)
    return int("".join(str(sol[(T[team], r)]) for r in range(n)))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-013": (
        "5 5 1 5 1 5 1 5 3 3 3 2 1 5 2 5 1 2 2 2 4 3 4 2 4 1 5 1 2 3 3 3 1 "
        "1 2 1 1 3 1 4 4 2 4 1 1 1 2 2 3 3 4 4 5 5"),
    "g365s-013-v1": (
        "4 4 1 4 1 4 1 4 1 2 2 2 3 3 3 3 4 4 1 4 2 1 1 2 1 3 1 4 1 1 2 2 2 "
        "3 2 4 2 1 3 2 3 2 3 3 3 3 3 4 3 1 4 2 4 3 4 4 4 1 1 3"),
    "g365s-013-v2": (
        "5 5 1 5 1 5 1 5 3 4 3 5 5 3 5 4 5 5 3 1 4 1 9 2 3 2 4 9 1 4 1 5 6 "
        "4 1 5 1 7 5 1 5 2 6"),
    "g365s-013-v3": "1 4 1 4 2 1 3 2 4 3 5 2 2 4 6 1 3 1 2 3 4",
}
