"""g365s-024: tilings of a tray by trominoes, counted by exhaustive search."""

from sample.harness import verifies

L_TROMINO = [((0, 0), (1, 0), (1, 1)), ((0, 0), (0, 1), (1, 0)), ((0, 0), (0, 1), (1, 1)),
             ((0, 0), (1, 0), (1, -1))]
I_TROMINO = [((0, 0), (0, 1), (0, 2)), ((0, 0), (1, 0), (2, 0))]
L_SHAPE = ("an L-shaped piece made of three unit squares (a 2 by 2 square with one corner "
           "square removed); pieces may be rotated and flipped")
FIXED = ("whenever some piece covers a different set of squares (fillings that are rotations "
         "or reflections of each other are counted separately)")


def tilings(rows, cols, pieces, blocked=frozenset(), keep=None) -> int:
    """Count tilings by always covering the first empty cell (row-major), so that each
    tiling is built exactly once; keep(grid) filters finished tilings."""
    cells = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in blocked]
    grid = {}

    def go(k):
        cell = next((x for x in cells if x not in grid), None)
        if cell is None:
            return 1 if keep is None or keep(grid) else 0
        r, c = cell
        n = 0
        for shape in pieces:
            placed = [(r + dr, c + dc) for dr, dc in shape]
            if all(0 <= a < rows and 0 <= b < cols and (a, b) not in blocked
                   and (a, b) not in grid for a, b in placed):
                for x in placed:
                    grid[x] = k
                n += go(k + 1)
                for x in placed:
                    del grid[x]
        return n
    return go(0)


def has_fault_line(grid, rows, cols) -> bool:
    vertical = any(all(grid[(r, c - 1)] != grid[(r, c)] for r in range(rows))
                   for c in range(1, cols))
    horizontal = any(all(grid[(r - 1, c)] != grid[(r, c)] for c in range(cols))
                     for r in range(1, rows))
    return vertical or horizontal


def tray(q):
    rows, cols, copies = q.nums("divided into unit squares in {} rows and {} columns. It must "
                                "be filled exactly with {} copies of " + L_SHAPE)
    assert 3 * copies == rows * cols
    q.has(FIXED)
    return rows, cols


@verifies("g365s-024")
def _(q):
    return tilings(*tray(q), L_TROMINO)


@verifies("g365s-024-v1")
def _(q):
    rows, cols = q.nums("divided into unit squares in {} rows and {} columns")
    q.has("L-shaped stones made of three unit squares (a 2 by 2 square with one corner square "
          "removed; they may be rotated and flipped), and straight stones made of three unit "
          "squares in a line (horizontal or vertical)", "whenever some stone covers a different "
          "set of squares")
    return tilings(rows, cols, L_TROMINO + I_TROMINO)


@verifies("g365s-024-v2")
def _(q):
    rows, cols, left, copies = q.nums(
        "divided into unit squares in {} rows and {} columns; the centre square holds a fixed "
        "candle, so only the other {} squares are to be filled. They must be filled exactly "
        "with {} copies of " + L_SHAPE)
    assert left == rows * cols - 1 == 3 * copies and rows % 2 == cols % 2 == 1
    q.has(FIXED)
    return tilings(rows, cols, L_TROMINO, blocked=frozenset({(rows // 2, cols // 2)}))


@verifies("g365s-024-v3")
def _(q):
    rows, cols = tray(q)
    q.has("A fault line is a straight line running right across the tray along the grid lines "
          "(from one side to the opposite side) that does not cut through any piece.")
    return tilings(rows, cols, L_TROMINO, keep=lambda g: not has_fault_line(g, rows, cols))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-024": "4 6 8 2 2",
    "g365s-024-v1": "3 4 2 2",
    "g365s-024-v2": "5 5 24 8 2 2",
    "g365s-024-v3": "4 6 8 2 2",
}
