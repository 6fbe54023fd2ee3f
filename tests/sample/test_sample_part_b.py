"""The bundled sample, part B (seeds g365s-016 ... g365s-030): shape checks and verifiers.

Each verifier re-solves one problem from its parameters (brute force, exact fractions,
game-tree search, simulation of the stated rules) and the result is compared with the gold
stored in general365/data/sample/part_b.jsonl. The parameters below are a second copy of
what the question says, so each verifier also names a few fragments of the question that
must appear in it: if someone edits the text and not the model (or the other way round),
a test fails instead of the gold silently drifting.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import deque
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import pytest

import general365
from general365.schema import AnswerType, Category, Problem

SAMPLE = Path(general365.__file__).parent / "data" / "sample" / "part_b.jsonl"
SEEDS = [f"g365s-{n:03d}" for n in range(16, 31)]
IDS = [i for s in SEEDS for i in (s, f"{s}-v1", f"{s}-v2", f"{s}-v3")]
MACHINE = ("general365 sample (original); answer machine-verified by "
           "tests/sample/test_sample_part_b.py")
BY_HAND = "general365 sample (original); answer reviewed twice by hand"


def _load() -> dict[str, dict]:
    rows = {}
    with SAMPLE.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                d = json.loads(line)
                rows[d["id"]] = d
    return rows


ROWS = _load()

# row id -> (function computing the answer, fragments the question must contain)
VERIFIERS: dict[str, tuple] = {}


def verifies(row_id: str, *mentions: str):
    def register(fn):
        VERIFIERS[row_id] = (fn, mentions)
        return fn
    return register


# ====================================================================================
# g365s-016: the lift with a skipped floor label
# ====================================================================================

def floor_labels(n: int, skipped: set[int], ground: str | None = None) -> list[str]:
    """Labels of storeys 1..n from the bottom; numbers in `skipped` are never used."""
    out = [ground] if ground else []
    k = 1
    while len(out) < n:
        if k not in skipped:
            out.append(str(k))
        k += 1
    return out


def lift_distances(n: int, up: int, down: int, start: int) -> dict[int, int]:
    """Fewest presses from storey `start` to every storey (presses leaving the building do
    nothing, so they never help and BFS can ignore them)."""
    dist = {start: 0}
    todo = deque([start])
    while todo:
        s = todo.popleft()
        for t in (s + up, s - down):
            if 1 <= t <= n and t not in dist:
                dist[t] = dist[s] + 1
                todo.append(t)
    return dist


def lift_trip(labels: list[str], up: int, down: int, stops: list[str]) -> int:
    storey = {lab: i + 1 for i, lab in enumerate(labels)}
    total = 0
    for a, b in zip(stops, stops[1:]):
        total += lift_distances(len(labels), up, down, storey[a])[storey[b]]
    return total


TOWER = floor_labels(20, {13})


@verifies("g365s-016", "20 storeys", "exactly 7 storeys", "exactly 5 storeys", "labelled 21")
def _():
    assert TOWER[-1] == "21"
    return lift_trip(TOWER, 7, 5, ["1", "21"])


@verifies("g365s-016-v1", "24 storeys", "exactly 9 storeys", "exactly 5 storeys", "4 and 14")
def _():
    labels = floor_labels(24, {4, 14}, ground="G")
    assert labels[-1] == "25"
    return lift_trip(labels, 9, 5, ["G", "25"])


@verifies("g365s-016-v2", "20 levels", "P4, P3, P2, P1, G, 1, 2", "exactly 7 levels",
          "exactly 5 levels")
def _():
    labels = ["P4", "P3", "P2", "P1", "G"] + [str(k) for k in range(1, 16)]
    assert len(labels) == 20
    return lift_trip(labels, 7, 5, ["G", "P4", "15"])


@verifies("g365s-016-v3", "20 storeys", "exactly 7 storeys", "exactly 5 storeys",
          "at most 6 presses")
def _():
    dist = lift_distances(20, 7, 5, 1)
    return sum(int(TOWER[s - 1]) for s, d in dist.items() if 0 < d <= 6)


# ====================================================================================
# g365s-017: round-robin league thresholds (5 teams, all 3^10 result patterns)
# ====================================================================================

@lru_cache(maxsize=None)
def league_tables(win: int, draw: int, teams: int = 5) -> tuple[tuple[int, ...], ...]:
    pairs = list(itertools.combinations(range(teams), 2))
    tables = set()
    for results in itertools.product((0, 1, 2), repeat=len(pairs)):
        pts = [0] * teams
        for (a, b), r in zip(pairs, results):
            if r == 0:
                pts[a] += win
            elif r == 1:
                pts[b] += win
            else:
                pts[a] += draw
                pts[b] += draw
        tables.add(tuple(pts))
    return tuple(tables)


def smallest_safe(win: int, draw: int, spots: int) -> int:
    """Smallest p such that every team finishing on p (or on any higher achievable score)
    has at most spots-1 rivals with as many points or more."""
    worst: dict[int, int] = {}
    for pts in league_tables(win, draw):
        rivals = sum(q >= pts[0] for q in pts[1:])
        worst[pts[0]] = max(worst.get(pts[0], 0), rivals)
    safe = [p for p in sorted(worst) if all(worst[q] <= spots - 1 for q in worst if q >= p)]
    return safe[0]


@verifies("g365s-017", "Five teams", "3 points", "two teams with the most points")
def _():
    return smallest_safe(3, 1, 2)


@verifies("g365s-017-v1", "Five players", "½ point", "top two")
def _():
    # 1 / ½ / 0 is the 2 / 1 / 0 system halved.
    return Fraction(smallest_safe(2, 1, 2), 2)


@verifies("g365s-017-v2", "five houses", "3 points", "top two")
def _():
    return max(pts[0] for pts in league_tables(3, 1) if sum(q > pts[0] for q in pts[1:]) >= 2)


@verifies("g365s-017-v3", "Five teams", "3 points", "fewest points")
def _():
    return max(pts[0] for pts in league_tables(3, 1) if all(q >= pts[0] for q in pts[1:]))


# ====================================================================================
# g365s-018: a 9-day meeting cycle through a leap year
# ====================================================================================

def held_dates(first: date, step: int, move, cancelled, *, restart: bool = False) -> list[date]:
    """Dates of the year of `first` on which a meeting is actually held."""
    year, s, out = first.year, first, []
    while s.year == year:
        a = move(s)
        if a.year == year and not cancelled(a):
            out.append(a)
        s = (a if restart else s) + timedelta(days=step)
    return out


def sunday_to_monday(d: date) -> date:
    return d + timedelta(days=1) if d.weekday() == 6 else d


def weekend_to_friday(d: date) -> date:
    return d - timedelta(days=d.weekday() - 4) if d.weekday() >= 5 else d


def in_august(d: date) -> bool:
    return d.month == 8


CLUB = dict(first=date(2028, 1, 6), step=9, move=sunday_to_monday, cancelled=in_august)


def _check_weekdays(first: date):
    assert first.weekday() == 3 and date(first.year, 1, 1).weekday() == 5  # Thu, Sat


@verifies("g365s-018", "Thursday 6 January", "every 9 days", "1 January 2028 is a Saturday",
          "August")
def _():
    _check_weekdays(CLUB["first"])
    return sum(d.weekday() == 0 for d in held_dates(**CLUB))


@verifies("g365s-018-v1", "Monday 4 January 2027", "every 10 days", "1 January 2027 is a Friday",
          "February")
def _():
    first = date(2027, 1, 4)
    assert first.weekday() == 0 and date(2027, 1, 1).weekday() == 4
    dates = held_dates(first, 10, weekend_to_friday, lambda d: d.month == 2)
    return sum(d.weekday() == 4 for d in dates)


@verifies("g365s-018-v2", "Thursday 6 January", "9 days after", "1 January 2028 is a Saturday",
          "August")
def _():
    return sum(d.weekday() == 0 for d in held_dates(**CLUB, restart=True))


@verifies("g365s-018-v3", "Thursday 6 January", "every 9 days", "1 January 2028 is a Saturday",
          "30 days")
def _():
    return sum(d.month in (4, 6, 9, 11) for d in held_dates(**CLUB))


# ====================================================================================
# g365s-019: ballots written from least to most preferred
# ====================================================================================

def ballots_from_text(question: str) -> list[tuple[int, list[str]]]:
    """The ballots exactly as the question prints them: `count: name, name, ...`."""
    out = []
    for count, names in re.findall(r"^(\d+) ballots?: ([A-Za-z, ]+)$", question, re.M):
        out.append((int(count), [n.strip() for n in names.split(",")]))
    assert out, "no ballots found in the question"
    return out


def reverse_elimination(ballots, *, majority: bool = False):
    """Each round the candidate least liked (listed earliest) on most ballots goes out; ties
    eliminate the alphabetically first. With `majority`, a candidate who is the favourite
    (listed last among those left) on more than half the ballots wins at once.
    Returns (winner, eliminated in order, whether any tie happened)."""
    alive = set(ballots[0][1])
    total = sum(c for c, _ in ballots)
    out, tie = [], False
    while len(alive) > 1:
        if majority:
            fav = {x: 0 for x in alive}
            for c, b in ballots:
                fav[[x for x in b if x in alive][-1]] += c
            top = [x for x in alive if 2 * fav[x] > total]
            if top:
                return top[0], out, tie
        marks = {x: 0 for x in alive}
        for c, b in ballots:
            marks[[x for x in b if x in alive][0]] += c
        most = max(marks.values())
        tied = sorted(x for x in alive if marks[x] == most)
        tie |= len(tied) > 1
        alive.discard(tied[0])
        out.append(tied[0])
    return alive.pop(), out, tie


def option_letter(question: str, text: str) -> str:
    m = re.search(r"^([A-F])\. " + re.escape(text) + r"$", question, re.M)
    assert m, f"option {text!r} not found"
    return m.group(1)


def _q(row_id):
    return ROWS[row_id]["question"]


@verifies("g365s-019", "LEAST preferred", "black mark", "32 ballots")
def _():
    q = _q("g365s-019")
    winner, _, tie = reverse_elimination(ballots_from_text(q))
    assert not tie
    return option_letter(q, winner)


@verifies("g365s-019-v1", "least preferred", "at least one third", "18 ballots")
def _():
    q = _q("g365s-019-v1")
    ballots = ballots_from_text(q)
    total = sum(c for c, _ in ballots)
    firsts, points = {}, {}
    for c, b in ballots:
        firsts[b[0]] = firsts.get(b[0], 0) + c
        for pos, name in enumerate(b):  # 0 points for first listed ... 4 for last
            points[name] = points.get(name, 0) + c * pos
    alive = {x: p for x, p in points.items() if 3 * firsts.get(x, 0) < total}
    best = max(alive.values())
    winners = [x for x, p in alive.items() if p == best]
    assert len(winners) == 1
    return option_letter(q, winners[0])


@verifies("g365s-019-v2", "LEAST preferred", "more than half", "32 ballots")
def _():
    q = _q("g365s-019-v2")
    winner, _, tie = reverse_elimination(ballots_from_text(q), majority=True)
    assert not tie
    return option_letter(q, winner)


@verifies("g365s-019-v3", "LEAST preferred", "second round", "32 ballots")
def _():
    q = _q("g365s-019-v3")
    _, order, tie = reverse_elimination(ballots_from_text(q))
    assert not tie
    return option_letter(q, order[1])


# ====================================================================================
# g365s-020: taking coins from the ends of a row
# ====================================================================================

COINS = (10, 25, 5, 1, 50, 10, 1, 25, 5, 10)


def end_game(coins, *, penny: bool = True, minimize: bool = False, takes=(1,)) -> int:
    """What the player to move collects with both sides playing optimally. Coins go to the
    mover; after a penny (if `penny`) the same player must move again while coins remain."""
    coins = tuple(coins)
    pick = min if minimize else max

    @lru_cache(maxsize=None)
    def mover_gets(lo, hi):
        if lo >= hi:
            return 0
        rest_total = sum(coins[lo:hi])
        options = []
        for k in takes:
            if lo + k > hi:
                continue
            for taken, nlo, nhi in ((coins[lo:lo + k], lo + k, hi), (coins[hi - k:hi], lo, hi - k)):
                got = sum(taken)
                if penny and taken[-1] == 1 and nlo < nhi:
                    options.append(got + mover_gets(nlo, nhi))
                else:
                    options.append(got + (rest_total - got) - mover_gets(nlo, nhi))
        return pick(options)

    return mover_gets(0, len(coins))


@verifies("g365s-020", "10, 25, 5, 1, 50, 10, 1, 25, 5, 10", "1-cent coin", "Ana first")
def _():
    return end_game(COINS)


@verifies("g365s-020-v1", "10, 25, 5, 1, 50, 10, 1, 25, 5, 10", "circular", "1-cent coin")
def _():
    best = None
    for i, c in enumerate(COINS):
        rest = COINS[i + 1:] + COINS[:i]
        if c == 1:
            got = c + end_game(rest)
        else:
            got = c + sum(rest) - end_game(rest)
        best = got if best is None else max(best, got)
    return best


@verifies("g365s-020-v2", "10, 25, 5, 1, 50, 10, 1, 25, 5, 10", "as few cents as possible",
          "1-cent coin")
def _():
    return end_game(COINS, minimize=True)


@verifies("g365s-020-v3", "10, 25, 5, 1, 50, 10, 1, 25, 5, 10", "one or two")
def _():
    return end_game(COINS, penny=False, takes=(1, 2))


# ====================================================================================
# g365s-021: a pawn on a snakes-and-ladders track
# ====================================================================================

def track_move(pos: int, roll: int, home: int, jumps: dict, bounce: bool) -> int:
    q = pos + roll
    if q > home:
        if not bounce:
            return pos
        q = home - (q - home)
    return jumps.get(q, q)


def p_home_within(rolls: int, home: int, jumps: dict, bounce: bool) -> Fraction:
    @lru_cache(maxsize=None)
    def p(pos, left):
        if pos == home:
            return Fraction(1)
        if left == 0:
            return Fraction(0)
        return sum(p(track_move(pos, r, home, jumps, bounce), left - 1) for r in range(1, 7)) / 6
    return p(0, rolls)


SEED_TRACK = dict(home=20, jumps={3: 11, 14: 4})


@verifies("g365s-021", "0 (start) to 20", "square 3", "square 11", "square 14", "square 4",
          "first 4 rolls")
def _():
    return p_home_within(4, bounce=True, **SEED_TRACK)


@verifies("g365s-021-v1", "0 (entrance) to 16 (treasure)", "Square 2", "square 9", "square 12",
          "square 5", "square 15", "square 10", "4 rolls")
def _():
    return p_home_within(4, 16, {2: 9, 12: 5, 15: 10}, bounce=False)


@verifies("g365s-021-v2", "0 (start) to 20", "bonus roll", "first 3 turns")
def _():
    home, jumps = SEED_TRACK["home"], SEED_TRACK["jumps"]

    @lru_cache(maxsize=None)
    def p(pos, turns_left, bonus_allowed):
        if pos == home:
            return Fraction(1)
        if turns_left == 0:
            return Fraction(0)
        total = Fraction(0)
        for r in range(1, 7):
            q = track_move(pos, r, home, jumps, True)
            if q == home:
                total += 1
            elif r == 6 and bonus_allowed:
                total += p(q, turns_left, False)
            else:
                total += p(q, turns_left - 1, True)
        return total / 6

    return p(0, 3, True)


@verifies("g365s-021-v3", "0 (start) to 20", "snake", "first 4 rolls")
def _():
    home, jumps = SEED_TRACK["home"], SEED_TRACK["jumps"]

    @lru_cache(maxsize=None)
    def p(pos, left):
        if pos == home or left == 0:
            return Fraction(0)
        total = Fraction(0)
        for r in range(1, 7):
            q = pos + r
            if q > home:
                q = home - (q - home)
            total += 1 if q == 14 else p(jumps.get(q, q), left - 1)
        return total / 6

    return p(0, 4)


# ====================================================================================
# g365s-022: a lock code from feedback on wrong guesses
# ====================================================================================

def feedback(code, guess) -> tuple[int, int]:
    hits = sum(c == g for c, g in zip(code, guess))
    common = sum(min(code.count(d), guess.count(d)) for d in set(guess))
    return hits, common - hits


def digits(s: str) -> tuple[int, ...]:
    return tuple(int(ch) for ch in s)


def lock_codes(*, distinct=True, increasing=False):
    for code in itertools.product(range(10), repeat=4):
        if code[0] == 0 or (distinct and len(set(code)) < 4):
            continue
        if increasing and any(a >= b for a, b in zip(code, code[1:])):
            continue
        yield code


SEED_CLUES = [("8249", (1, 0)), ("7621", (1, 1)), ("4873", (0, 2)), ("2651", (1, 0)),
              ("1452", (0, 1))]


def clue_mentions(clues):
    return tuple(f"{g}: {h} hit{'s' if h != 1 else ''}, {n} near" for g, (h, n) in clues)


def consistent_codes(clues, **kw):
    return [c for c in lock_codes(**kw) if all(feedback(c, digits(g)) == f for g, f in clues)]


@verifies("g365s-022", "all different", *clue_mentions(SEED_CLUES))
def _():
    (code,) = consistent_codes(SEED_CLUES)
    return int("".join(map(str, code)))


V1_CLUES = [("1671", 1), ("1122", 1), ("9925", 1), ("5255", 1)]


@verifies("g365s-022-v1", "may repeat", "add up to 6",
          *(f"{g}: {h} hit" for g, h in V1_CLUES))
def _():
    found = [c for c in lock_codes(distinct=False) if sum(c) == 6
             and all(feedback(c, digits(g))[0] == h for g, h in V1_CLUES)]
    (code,) = found
    return int("".join(map(str, code)))


@verifies("g365s-022-v2", "all different", *clue_mentions(SEED_CLUES[:3]))
def _():
    return len(consistent_codes(SEED_CLUES[:3]))


V3_CLUES = [("1853", (1, 0)), ("6543", (0, 2)), ("9637", (0, 1))]


@verifies("g365s-022-v3", "strictly increasing", *clue_mentions(V3_CLUES))
def _():
    (code,) = consistent_codes(V3_CLUES, increasing=True)
    return int("".join(map(str, code)))


# ====================================================================================
# g365s-023: timetables with time zones, running days and change times
# ====================================================================================

def hhmm(s: str) -> int:
    h, m = s.split(":")
    return int(h) * 60 + int(m)


def timetable_from_text(question: str) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """Lines like `R1 (daily): Ardley 06:55 – Bexton 07:40 – ...` as printed."""
    out = []
    for name, days, stops in re.findall(r"^([RN]\d) \(([^)]*)\): (.+)$", question, re.M):
        legs = [tuple(part.strip().rsplit(" ", 1)) for part in stops.split("–")]
        out.append((name, days, legs))
    assert out, "no timetable lines found"
    return out


def journeys(trains, start, end, earliest, min_change, guaranteed=()):
    """Every itinerary (first departure, arrival, trains) on an absolute clock. `trains` hold
    absolute times already; a listed time is both arrival and departure."""
    found = []

    def go(station, now, used, first_dep):
        if station == end:
            found.append((first_dep, now, tuple(used)))
            return
        for name, stops in trains:
            if name in used:
                continue
            for i, (s, t) in enumerate(stops[:-1]):
                if s != station:
                    continue
                if used:
                    need = 0 if (used[-1], name) in guaranteed else min_change
                    if t - now < need:
                        continue
                elif t < earliest:
                    continue
                for s2, t2 in stops[i + 1:]:
                    go(s2, t2, used + [name], first_dep if used else t)

    go(start, None, [], None)
    return found


WEST = {"Colm", "Dorrin", "Elsfield"}  # clocks one hour behind Ardley and Bexton


def rail(question: str, weekday: bool, cancelled=()):
    runs = {"daily": True, "Mon–Fri": weekday, "Sat and Sun": not weekday}
    trains = []
    for name, days, stops in timetable_from_text(question):
        if runs[days] and name not in cancelled:
            trains.append((name, [(s, hhmm(t) + (60 if s in WEST else 0)) for s, t in stops]))
    return trains


def earliest_then_latest(found) -> int:
    arrive = min(a for _, a, _ in found)
    leave = max(d for d, a, _ in found if a == arrive)
    return arrive - leave


@verifies("g365s-023", "one hour behind", "Saturday", "at least 6 minutes", "06:50")
def _():
    found = journeys(rail(_q("g365s-023"), weekday=False), "Ardley", "Elsfield", hhmm("06:50"), 6)
    return earliest_then_latest(found)


@verifies("g365s-023-v1", "Friday evening", "22:30", "at least 5 minutes", "calendar day")
def _():
    runs = {"daily": lambda d: True, "Fridays": lambda d: d == "Fri",
            "Mondays to Fridays": lambda d: d != "Sat", "Saturdays": lambda d: d == "Sat"}
    trains = []
    for name, days, stops in timetable_from_text(_q("g365s-023-v1")):
        # minutes from Friday 00:00; a time before noon on a night bus is after midnight
        times = [(s, hhmm(t) + (1440 if hhmm(t) < 720 else 0)) for s, t in stops]
        day = "Fri" if times[0][1] < 1440 else "Sat"
        if runs[days](day):
            trains.append((name, times))
    found = journeys(trains, "Harbor", "Tollgate", hhmm("22:30"), 5)
    return earliest_then_latest(found)


@verifies("g365s-023-v2", "one hour behind", "Wednesday", "at least 6 minutes", "09:45")
def _():
    found = journeys(rail(_q("g365s-023-v2"), weekday=True), "Ardley", "Elsfield", 0, 6)
    return max(d for d, a, _ in found if a <= hhmm("09:45")) - hhmm("07:00")


@verifies("g365s-023-v3", "one hour behind", "Saturday", "R6 is cancelled", "R5 waits for R4")
def _():
    trains = rail(_q("g365s-023-v3"), weekday=False, cancelled={"R6"})
    found = journeys(trains, "Ardley", "Elsfield", hhmm("06:50"), 6, guaranteed={("R4", "R5")})
    return earliest_then_latest(found)


# ====================================================================================
# g365s-024: tilings with trominoes
# ====================================================================================

L_TROMINO = [((0, 0), (1, 0), (1, 1)), ((0, 0), (0, 1), (1, 0)), ((0, 0), (0, 1), (1, 1)),
             ((0, 0), (1, 0), (1, -1))]
I_TROMINO = [((0, 0), (0, 1), (0, 2)), ((0, 0), (1, 0), (2, 0))]


def tilings(rows, cols, pieces, blocked=frozenset(), keep=None) -> int:
    """Count tilings by always covering the first empty cell (row-major), so each tiling is
    built exactly once; `keep(grid)` filters finished tilings."""
    cells = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in blocked]
    grid: dict = {}

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


@verifies("g365s-024", "4 rows and 6 columns", "L-shaped")
def _():
    return tilings(4, 6, L_TROMINO)


@verifies("g365s-024-v1", "3 rows and 4 columns", "L-shaped", "straight")
def _():
    return tilings(3, 4, L_TROMINO + I_TROMINO)


@verifies("g365s-024-v2", "5 rows and 5 columns", "centre", "L-shaped")
def _():
    return tilings(5, 5, L_TROMINO, blocked=frozenset({(2, 2)}))


@verifies("g365s-024-v3", "4 rows and 6 columns", "L-shaped", "fault line")
def _():
    return tilings(4, 6, L_TROMINO, keep=lambda g: not has_fault_line(g, 4, 6))


# ====================================================================================
# interval answers: exact sets built from piecewise-constant or piecewise-linear rules
# ====================================================================================

Seg = tuple  # (lo, hi, lo_closed, hi_closed); hi None means +infinity


def solve_set(pred, lo, hi, critical, *, lo_included=True, hi_included=True):
    """The subset of [lo, hi] (hi may be None) where `pred` holds, for a `pred` whose truth
    can change only at the `critical` points: test each point and each open gap between
    neighbouring points (beyond the last point: one test far away)."""
    pts = sorted({x for x in critical if lo <= x and (hi is None or x <= hi)} | {lo}
                 | ({hi} if hi is not None else set()))
    segs: list[list] = []

    def add(a, b, ac, bc):
        if segs and segs[-1][1] == a and (segs[-1][3] or ac):
            segs[-1][1], segs[-1][3] = b, bc
        else:
            segs.append([a, b, ac, bc])

    for i, p in enumerate(pts):
        inside = not ((p == lo and not lo_included) or (p == hi and not hi_included))
        if inside and pred(p):
            add(p, p, True, True)
        nxt = pts[i + 1] if i + 1 < len(pts) else None
        if nxt is not None:
            if pred((p + nxt) / 2):
                add(p, nxt, False, False)
        elif hi is None and pred(p + 10**6):
            add(p, None, False, False)
    return [tuple(s) for s in segs]


_NUM = r"-?\\frac\{\d+\}\{\d+\}|-?\d+(?:\.\d+)?|[+-]?\\infty"


def parse_interval_gold(text: str) -> list[Seg]:
    def num(s):
        s = s.strip()
        if "infty" in s:
            return None
        m = re.fullmatch(r"(-?)\\frac\{(\d+)\}\{(\d+)\}", s)
        if m:
            return Fraction(int(m.group(2)), int(m.group(3))) * (-1 if m.group(1) else 1)
        return Fraction(s)

    out = []
    for part in text.replace(" ", "").split(r"\cup"):
        m = re.fullmatch(rf"([\[(])({_NUM}),({_NUM})([\])])", part)
        assert m, f"cannot read interval {part!r}"
        out.append((num(m.group(2)), num(m.group(3)), m.group(1) == "[", m.group(4) == "]"))
    return out


def ceil_frac(x: Fraction) -> int:
    return math.ceil(x)


def taxi_fare(d: Fraction, *, per_unit=Fraction(60, 100), waiting_units=0) -> Fraction:
    units = 0 if d <= 2 else ceil_frac((d - 2) / Fraction(1, 2))
    fare = Fraction(320, 100) + per_unit * (units + waiting_units)
    return fare - 3 if d > 10 else fare


TAXI_BREAKS = [Fraction(2) + Fraction(k, 2) for k in range(0, 60)]


@verifies("g365s-025", "$3.20", "$0.60 for each started 500 m", "strictly longer than 10 km",
          "$3.00 discount", "at most $10.40")
def _():
    return solve_set(lambda d: taxi_fare(d) <= Fraction(1040, 100), Fraction(0), None,
                     TAXI_BREAKS, lo_included=False)


@verifies("g365s-025-v1", "$5", "first 2 GB", "$3 for each started GB", "$20", "$12",
          "up to 6 GB", "$1 for each started 0.5 GB")
def _():
    def plan_a(u):
        return 5 if u <= 2 else min(20, 5 + 3 * ceil_frac(u - 2))

    def plan_b(u):
        return 12 if u <= 6 else 12 + ceil_frac((u - 6) / Fraction(1, 2))

    breaks = [Fraction(k, 2) for k in range(0, 80)]
    return solve_set(lambda u: plan_b(u) < plan_a(u), Fraction(0), None, breaks,
                     lo_included=False)


@verifies("g365s-025-v2", "$3.20", "each started 2 minutes", "3 minutes", "at most $12.50")
def _():
    waiting = ceil_frac(Fraction(3, 2))  # 3 minutes = 2 started 2-minute blocks
    return solve_set(lambda d: taxi_fare(d, waiting_units=waiting) <= Fraction(1250, 100),
                     Fraction(0), None, TAXI_BREAKS, lo_included=False)


@verifies("g365s-025-v3", "$3.20", "7.3 km", "12.2 km", "at most $10.40", "at least $10.40")
def _():
    # Both fares are linear in p: fare = 3.20 + units * p (- 3 over 10 km).
    short_units = ceil_frac((Fraction(73, 10) - 2) / Fraction(1, 2))
    long_units = ceil_frac((Fraction(122, 10) - 2) / Fraction(1, 2))
    hi = (Fraction(1040, 100) - Fraction(320, 100)) / short_units
    lo = (Fraction(1040, 100) - Fraction(320, 100) + 3) / long_units
    assert 0 < lo < hi
    return [(lo, hi, True, True)]


def hand_angle(t, hour_start, hour_speed) -> Fraction:
    d = (6 * t - (hour_start + hour_speed * t)) % 360
    return min(d, 360 - d)


def clock_critical(hour_start, hour_speed, angles, until):
    rel = 6 - hour_speed
    pts = [Fraction(15 * k) for k in range(0, until // 15 + 1)]  # 3, 6, 9, 12 positions
    for k in range(-2, 12):
        for a in tuple(angles) + (0, 180):  # 0 and 180: where the angle folds over
            for x in (a, -a, 360 - a):
                pts.append((x + 360 * k + hour_start) / rel)
    return pts


def minute_upper_half(t) -> bool:
    m = (6 * t) % 360
    return m >= 270 or m <= 90


@verifies("g365s-026", "minutes after 2:00", "0 \\le t \\le 120", "at most 30", "upper half")
def _():
    h0, hs = Fraction(60), Fraction(1, 2)
    return solve_set(lambda t: hand_angle(t, h0, hs) <= 30 and minute_upper_half(t),
                     Fraction(0), Fraction(120), clock_critical(h0, hs, (30,), 120))


@verifies("g365s-026-v1", "24-hour dial", "minutes after 12:00", "0 \\le t \\le 180",
          "at most 30")
def _():
    h0, hs = Fraction(180), Fraction(1, 4)  # noon points down; 360 degrees per 1440 minutes
    return solve_set(lambda t: hand_angle(t, h0, hs) <= 30, Fraction(0), Fraction(180),
                     clock_critical(h0, hs, (30,), 180))


@verifies("g365s-026-v2", "minutes after 2:00", "0 \\le t \\le 120", "at least 150",
          "lower half")
def _():
    h0, hs = Fraction(60), Fraction(1, 2)

    def lower_half(t):
        m = (6 * t) % 360
        return 90 <= m <= 270

    return solve_set(lambda t: hand_angle(t, h0, hs) >= 150 and lower_half(t),
                     Fraction(0), Fraction(120), clock_critical(h0, hs, (150,), 120))


@verifies("g365s-026-v3", "minutes after 2:00", "0 \\le t \\le 120", "clockwise", "at most 90")
def _():
    h0, hs = Fraction(60), Fraction(1, 2)
    return solve_set(lambda t: (6 * t - (h0 + hs * t)) % 360 <= 90, Fraction(0), Fraction(120),
                     clock_critical(h0, hs, (90,), 120))


# ====================================================================================
# g365s-027: knights, knaves and switchers
# ====================================================================================

TYPES = ("knight", "knave", "switcher")


def worlds(people, statements):
    """Every type assignment consistent with what each speaker said (in order)."""
    ok = []
    for combo in itertools.product(TYPES, repeat=len(people)):
        w = dict(zip(people, combo))
        good = True
        for who, said in statements.items():
            vals = [s(w) for s in said]
            t = w[who]
            if (t == "knight" and not all(vals)) or (t == "knave" and any(vals)) or \
               (t == "switcher" and any(a == b for a, b in zip(vals, vals[1:]))):
                good = False
                break
        if good:
            ok.append(w)
    assert ok, "the statements admit no world"
    return ok


def count(w, t):
    return sum(v == t for v in w.values())


VELL = ("Ansel", "Brin", "Cora", "Dov")
VELL_SAID = {
    "Ansel": [lambda w: count(w, "switcher") == 0, lambda w: w["Ansel"] == w["Brin"]],
    "Brin": [lambda w: w["Dov"] != "knight", lambda w: count(w, "knave") == 1],
    "Cora": [lambda w: w["Dov"] != "knave", lambda w: w["Ansel"] == "knave"],
    "Dov": [lambda w: count(w, "knight") == 2, lambda w: w["Dov"] != "switcher"],
}
VELL_MENTIONS = ("None of us four is a switcher.", "Brin and I are the same type.",
                 "Dov is not a knight.", "Exactly one of us four is a knave.",
                 "Dov is not a knave.", "Ansel is a knave.",
                 "Exactly two of us four are knights.", "I am not a switcher.")


def letters_where(options: dict, ws, *, must: bool) -> str:
    test = all if must else any
    return "".join(k for k, f in sorted(options.items()) if test(f(w) for w in ws))


@verifies("g365s-027", *VELL_MENTIONS, "must be true")
def _():
    options = {
        "A": lambda w: w["Ansel"] == "knave",
        "B": lambda w: w["Brin"] == "knight",
        "C": lambda w: w["Dov"] == "switcher",
        "D": lambda w: w["Brin"] != w["Dov"],
        "E": lambda w: w["Cora"] == "switcher",
    }
    return letters_where(options, worlds(VELL, VELL_SAID), must=True)


@verifies("g365s-027-v1", "Axle", "Bolt", "Cog", "Dynamo", "green", "red", "amber",
          "Dynamo is not red.", "Cog is red.", "Axle and Cog are the same colour.",
          "Axle and I are the same colour.", "Dynamo is green.", "I am not red.",
          "Exactly two of us four are red.", "I am green.")
def _():
    said = {
        "Axle": [lambda w: w["Dynamo"] != "knave", lambda w: w["Cog"] == "knave"],
        "Bolt": [lambda w: w["Axle"] == w["Cog"], lambda w: w["Axle"] == w["Bolt"]],
        "Cog": [lambda w: w["Dynamo"] == "knight", lambda w: w["Cog"] != "knave"],
        "Dynamo": [lambda w: count(w, "knave") == 2, lambda w: w["Dynamo"] == "knight"],
    }
    options = {  # knight = green, knave = red, switcher = amber
        "A": lambda w: w["Axle"] == "knight",
        "B": lambda w: w["Bolt"] == "knave",
        "C": lambda w: w["Cog"] == "knave",
        "D": lambda w: w["Dynamo"] == "switcher",
        "E": lambda w: count(w, "switcher") == 1,
    }
    return letters_where(options, worlds(("Axle", "Bolt", "Cog", "Dynamo"), said), must=True)


@verifies("g365s-027-v2", *VELL_MENTIONS, "Brin's first statement was true", "must be true")
def _():
    ws = [w for w in worlds(VELL, VELL_SAID) if VELL_SAID["Brin"][0](w)]
    options = {
        "A": lambda w: w["Ansel"] == "knave",
        "B": lambda w: w["Brin"] == "knight",
        "C": lambda w: w["Dov"] == "knight",
        "D": lambda w: VELL_SAID["Cora"][0](w),
        "E": lambda w: count(w, "knave") == 2,
    }
    return letters_where(options, ws, must=True)


@verifies("g365s-027-v3", *VELL_MENTIONS, "could be true")
def _():
    options = {
        "A": lambda w: w["Brin"] == "knight",
        "B": lambda w: w["Dov"] == "knight",
        "C": lambda w: w["Ansel"] == "switcher",
        "D": lambda w: w["Brin"] == w["Dov"],
        "E": lambda w: count(w, "knight") == 3,
    }
    return letters_where(options, worlds(VELL, VELL_SAID), must=False)


# ====================================================================================
# g365s-028: which events are likely
# ====================================================================================

THREE_DICE = list(itertools.product(range(1, 7), repeat=3))


def prob(space, event, given=lambda w: True, weight=lambda w: 1) -> Fraction:
    num = sum(Fraction(weight(w)) for w in space if given(w) and event(w))
    den = sum(Fraction(weight(w)) for w in space if given(w))
    return num / den


def pair_sums_to(w, n):
    return any(a + b == n for a, b in itertools.combinations(w, 2))


@verifies("g365s-028", "red, green, blue", "strictly greater than 1/2")
def _():
    events = {
        "A": (lambda w: sum(w) >= 11, None),
        "B": (lambda w: pair_sums_to(w, 7), None),
        "C": (lambda w: len(set(w)) == 3, None),
        "D": (lambda w: sorted(w)[1] >= 4, None),
        "E": (lambda w: max(w) - min(w) >= 3, None),
        "F": (lambda w: w.count(6) == 1, lambda w: 6 in w),
    }
    return "".join(k for k, (e, g) in sorted(events.items())
                   if prob(THREE_DICE, e, g or (lambda w: True)) > Fraction(1, 2))


@verifies("g365s-028-v1", "numbered 1 to 10", "without replacement", "strictly greater than 1/2")
def _():
    draws = list(itertools.permutations(range(1, 11), 2))
    events = {
        "A": (lambda c: sum(c) >= 11, None),
        "B": (lambda c: c[1] > c[0], None),
        "C": (lambda c: c[0] % c[1] == 0 or c[1] % c[0] == 0, None),
        "D": (lambda c: max(c) >= 2 * min(c), None),
        "E": (lambda c: c[0] % 2 == 0 and c[1] % 2 == 0, lambda c: c[0] * c[1] % 2 == 0),
        "F": (lambda c: sum(c) >= 11, lambda c: max(c) >= 8),
    }
    return "".join(k for k, (e, g) in sorted(events.items())
                   if prob(draws, e, g or (lambda c: True)) > Fraction(1, 2))


@verifies("g365s-028-v2", "red, green, blue", "rolled again once", "strictly greater than 1/2")
def _():
    face = {k: Fraction(1, 36) if k == 1 else Fraction(1, 6) + Fraction(1, 36) for k in range(1, 7)}
    assert sum(face.values()) == 1
    weight = lambda w: face[w[0]] * face[w[1]] * face[w[2]]  # noqa: E731
    events = {
        "A": lambda w: sum(w) >= 11,
        "B": lambda w: pair_sums_to(w, 7),
        "C": lambda w: len(set(w)) == 3,
        "D": lambda w: 1 in w,
        "E": lambda w: max(w) - min(w) >= 3,
    }
    return "".join(k for k, e in sorted(events.items())
                   if prob(THREE_DICE, e, weight=weight) > Fraction(1, 2))


@verifies("g365s-028-v3", "red, green, blue", "independent")
def _():
    pairs = {
        "A": (lambda w: w[0] % 2 == 0, lambda w: sum(w) % 2 == 0),
        "B": (lambda w: w[0] + w[1] == 7, lambda w: sum(w) == 10),
        "C": (lambda w: len(set(w)) == 1, lambda w: w[0] == 6),
        "D": (lambda w: w[0] > w[1], lambda w: w[1] > w[2]),
        "E": (lambda w: (w[0] + w[1]) % 2 == 0, lambda w: (w[1] + w[2]) % 2 == 0),
    }
    return "".join(k for k, (a, b) in sorted(pairs.items())
                   if prob(THREE_DICE, lambda w: a(w) and b(w))
                   == prob(THREE_DICE, a) * prob(THREE_DICE, b))


# ====================================================================================
# g365s-029: how many to bake
# ====================================================================================

DEMAND_DAYS = {0: 1, 1: 2, 2: 3, 3: 5, 4: 4, 5: 3, 6: 2}  # customers wanting one : days seen


def demand_mentions():
    return tuple(f"{d} on {n} day{'s' if n > 1 else ''}" for d, n in DEMAND_DAYS.items())


def profit(q, d, *, price=10, cost=lambda q: 4 * q, leftover=lambda n: n):
    sold = min(q, d)
    return price * sold + leftover(q - sold) - cost(q)


def best_option(question: str, score) -> str:
    """The option letter whose quantity scores highest (and uniquely so)."""
    opts = {int(n): k for k, n in re.findall(r"^([A-E])\. (\d+) \w+$", question, re.M)}
    assert len(opts) == 5
    scores = {q: score(q) for q in opts}
    top = max(scores.values())
    winners = [q for q, s in scores.items() if s == top]
    assert len(winners) == 1, scores
    return opts[winners[0]]


def expected(q, **kw) -> Fraction:
    days = sum(DEMAND_DAYS.values())
    return sum(Fraction(n, days) * profit(q, d, **kw) for d, n in DEMAND_DAYS.items())


def bulk_cost(q):
    return (3 if q >= 5 else 4) * q


@verifies("g365s-029", "$10", "$4 per cake", "5 or more", "$3 per cake", "$1 each",
          *demand_mentions())
def _():
    return best_option(_q("g365s-029"), lambda q: expected(q, cost=bulk_cost))


@verifies("g365s-029-v1", "$10", "$4", "$1 each to dispose", *demand_mentions())
def _():
    return best_option(_q("g365s-029-v1"), lambda q: expected(q, leftover=lambda n: -n))


@verifies("g365s-029-v2", "$10", "6 or more", "$3 per cake", "at most 2", *demand_mentions())
def _():
    return best_option(_q("g365s-029-v2"),
                       lambda q: expected(q, cost=lambda q: (3 if q >= 6 else 4) * q,
                                          leftover=lambda n: min(n, 2)))


@verifies("g365s-029-v3", "$10", "5 or more", "at least $18", *demand_mentions())
def _():
    days = sum(DEMAND_DAYS.values())
    return best_option(_q("g365s-029-v3"), lambda q: Fraction(
        sum(n for d, n in DEMAND_DAYS.items() if profit(q, d, cost=bulk_cost) >= 18), days))


# ====================================================================================
# g365s-030: a five-by-three logic grid
# ====================================================================================

def grid_solutions(people, places, items, clues):
    """All assignments of people/places/items to the five slots (earliest first) that
    satisfy every clue; each clue declares the layers it reads so it can prune early."""
    layers = [("p", people), ("t", places), ("i", items)]
    sols = []

    def go(k, s):
        if k == 3:
            sols.append(dict(s))
            return
        key, values = layers[k]
        for perm in itertools.permutations(values):
            s[key] = perm
            if all(f(s) for need, f in clues if key in need and set(need) <= set(s)):
                go(k + 1, s)
            del s[key]

    go(0, {})
    return sols


def slot(s, layer, value):
    return s[layer].index(value)


def station_clues(*, dina_before_ada=True, dina_not_lute=True, bela_lute=False,
                  emil_not_kite=True):
    P = lambda s, x: slot(s, "p", x)  # noqa: E731
    T = lambda s, x: slot(s, "t", x)  # noqa: E731
    I = lambda s, x: slot(s, "i", x)  # noqa: E731,E741
    clues = [
        ("pt", lambda s: T(s, "Harrow") == P(s, "Bela") + 2),
        ("pti", lambda s: I(s, "lute") < P(s, "Emil") < T(s, "Islay")),
        ("i", lambda s: I(s, "map") in (2, 4)),
        ("pi", lambda s: I(s, "kite") != P(s, "Ada") and P(s, "Ada") != 0),
        ("ti", lambda s: T(s, "Fenwick") == I(s, "oboe")),
        ("pt", lambda s: P(s, "Cyrus") == T(s, "Galley") + 1),
        ("p", (lambda s: P(s, "Dina") < P(s, "Ada")) if dina_before_ada
         else (lambda s: P(s, "Dina") > P(s, "Ada"))),
        ("i", lambda s: I(s, "novel") == 1),
        ("ti", lambda s: abs(I(s, "kite") - T(s, "Jarrow")) == 1),
    ]
    if emil_not_kite:
        clues.append(("pi", lambda s: I(s, "kite") != P(s, "Emil")))
    if dina_not_lute:
        clues.append(("pi", lambda s: I(s, "lute") != P(s, "Dina")))
    if bela_lute:
        clues.append(("pi", lambda s: I(s, "lute") == P(s, "Bela")))
    return clues


STATION = (["Ada", "Bela", "Cyrus", "Dina", "Emil"],
           ["Fenwick", "Galley", "Harrow", "Islay", "Jarrow"],
           ["kite", "lute", "map", "novel", "oboe"])
# Every clue as printed: the verifier's clue list above must match these sentences.
STATION_MENTIONS = ("8:00, 8:15, 8:30, 8:45 and 9:00",
                    "The train to Harrow leaves exactly 30 minutes after Bela's train.",
                    "The person with the lute leaves before Emil, and Emil leaves before the "
                    "person going to Islay.",
                    "The map is on the 8:30 train or on the 9:00 train.",
                    "Ada does not carry the kite, and Ada is not on the 8:00 train.",
                    "The person going to Fenwick carries the oboe.",
                    "Cyrus's train leaves exactly 15 minutes after the train to Galley.",
                    "The novel is on the 8:15 train.",
                    "The kite's train and the Jarrow train leave exactly 15 minutes apart.")


@verifies("g365s-030", *STATION_MENTIONS, "Dina leaves before Ada.",
          "Emil does not carry the kite.", "Dina does not carry the lute.",
          "Who travels to Harrow?")
def _():
    (s,) = grid_solutions(*STATION, station_clues())
    return s["p"][s["t"].index("Harrow")]


@verifies("g365s-030-v1", "1:00, 1:20, 1:40, 2:00 and 2:20",
          "The talk on dams starts exactly 40 minutes after Lena's talk.",
          "The talk with the model comes before Omar's talk, and Omar's talk comes before the "
          "talk on glaciers.", "The slideshow is used at 1:40 or at 2:20.",
          "Kofi does not use the poster, and Kofi does not speak at 1:00.",
          "The talk on bees uses the quiz.",
          "Milo speaks exactly 20 minutes after the talk on comets.",
          "Nia speaks after Kofi.", "The video is used at 1:20.",
          "The poster talk and the volcanoes talk start exactly 20 minutes apart.",
          "Lena uses the model.", "Who gives the talk on dams?")
def _():
    # The same grid in other words: people, topics and aids map one-to-one onto the
    # station puzzle, 20-minute gaps stand for 15-minute ones.
    names = dict(zip(STATION[0], ["Kofi", "Lena", "Milo", "Nia", "Omar"]))
    topics = dict(zip(STATION[1], ["bees", "comets", "dams", "glaciers", "volcanoes"]))
    (s,) = grid_solutions(*STATION, station_clues(dina_before_ada=False, dina_not_lute=False,
                                                  bela_lute=True, emil_not_kite=False))
    assert topics["Harrow"] == "dams"
    return names[s["p"][s["t"].index("Harrow")]]


@verifies("g365s-030-v2", *STATION_MENTIONS, "Dina leaves before Ada.",
          "Emil does not carry the kite.", "Bela carries the lute.", "Who carries the map?")
def _():
    (s,) = grid_solutions(*STATION, station_clues(dina_not_lute=False, bela_lute=True))
    return s["p"][s["i"].index("map")]


@verifies("g365s-030-v3", *STATION_MENTIONS, "Dina leaves after Ada.",
          "Emil does not carry the kite.", "Who travels to Harrow?")
def _():
    (s,) = grid_solutions(*STATION, station_clues(dina_before_ada=False, dina_not_lute=False))
    return s["p"][s["t"].index("Harrow")]


# ====================================================================================
# comparing a computed answer with the stored gold
# ====================================================================================

def gold_number(text: str) -> Fraction:
    m = re.fullmatch(r"(-?)\\frac\{(\d+)\}\{(\d+)\}", text.strip())
    if m:
        return Fraction(int(m.group(2)), int(m.group(3))) * (-1 if m.group(1) else 1)
    return Fraction(text.strip())


def rounded(x: Fraction, places: int) -> Decimal:
    exact = Decimal(x.numerator) / Decimal(x.denominator)
    return exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def matches(row: dict, computed) -> bool:
    kind, gold, k = row["answer_type"], row["answer"], row["float_round"]
    if kind == "number":
        value = Fraction(computed)
        if k:
            return Decimal(gold) == rounded(value, k) and len(gold.split(".")[1]) == k
        return gold_number(gold) == value
    if kind == "interval":
        return parse_interval_gold(gold) == list(computed)
    if kind in ("single_choice", "multiple_choice"):
        return set(gold) == set(computed)
    return gold.strip() == computed


@pytest.mark.parametrize("row_id", sorted(VERIFIERS))
def test_gold_is_recomputed(row_id):
    fn, mentions = VERIFIERS[row_id]
    row = ROWS[row_id]
    for m in mentions:
        assert m in row["question"], f"{row_id}: the question no longer says {m!r}"
    computed = fn()
    assert matches(row, computed), f"{row_id}: gold {row['answer']!r}, recomputed {computed!r}"


def test_verifiers_cover_exactly_the_rows_labelled_machine_verified():
    labelled = {i for i, r in ROWS.items() if r["source"] == MACHINE}
    assert set(VERIFIERS) == labelled
    assert all(ROWS[i]["source"] == BY_HAND for i in set(ROWS) - labelled)
    assert len(labelled) >= 45


def test_the_comparison_can_fail():
    row = dict(ROWS["g365s-021"])
    assert matches(row, Fraction(67, 1296))
    assert not matches(row, Fraction(68, 1296))
    assert not matches(dict(ROWS["g365s-025"]), [(Fraction(0), Fraction(8), False, False)])
    assert not matches(dict(ROWS["g365s-027"]), "A")


# ====================================================================================
# shape of the file
# ====================================================================================

def test_rows_are_problems_with_the_expected_ids():
    problems = []
    with SAMPLE.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            problems.append(Problem.from_dict(json.loads(line), path=str(SAMPLE), line=n))
    assert [p.id for p in problems] == IDS
    by_id = {p.id: p for p in problems}
    for p in problems:
        seed = by_id[p.seed_id]
        assert p.variant == (0 if p.id == p.seed_id else int(p.id[-1]))
        assert p.categories == seed.categories and p.categories
        assert p.answer_type == seed.answer_type
        assert p.reasoning.strip(), f"{p.id}: no reasoning"
    for s in SEEDS:
        assert len(by_id[s].reasoning) > 300, f"{s}: the seed needs a real reasoning trace"


def test_file_is_human_readable_utf8():
    raw = SAMPLE.read_text(encoding="utf-8")
    assert "\\u00" not in raw and "\\u2" not in raw
    assert "½" in raw or "–" in raw


def test_category_and_answer_type_mix():
    seeds = [Problem.from_dict(ROWS[s]) for s in SEEDS]
    for c in Category:
        assert sum(c in p.categories for p in seeds) >= 3, c
    assert sum(len(p.categories) >= 2 for p in seeds) >= 11
    kinds = [p.answer_type for p in seeds]
    assert kinds.count(AnswerType.INTERVAL) >= 2
    assert kinds.count(AnswerType.NUMBER) + kinds.count(AnswerType.INTERVAL) == 10
    assert kinds.count(AnswerType.SINGLE_CHOICE) == 2
    assert kinds.count(AnswerType.MULTIPLE_CHOICE) == 2
    assert kinds.count(AnswerType.TEXT) == 1
    assert sum(1 for r in ROWS.values() if r["float_round"] > 0) >= 3


INSTRUCTION = {
    "number": "Put your final answer in \\boxed{}.",
    "interval": "Give the interval in \\boxed{} using interval notation.",
    "single_choice": "Select the one correct option and put its letter in \\boxed{}.",
    "multiple_choice": "Select all correct options and put their letters in \\boxed{}, "
                       "e.g. \\boxed{AC}.",
    "text": "State your final answer in \\boxed{}.",
}


@pytest.mark.parametrize("row_id", IDS)
def test_question_ends_with_its_format_instruction(row_id):
    row = ROWS[row_id]
    q = row["question"]
    assert q.rstrip().endswith(INSTRUCTION[row["answer_type"]])
    if row["answer_type"] in ("single_choice", "multiple_choice"):
        listed = re.findall(r"^([A-F])\. ", q, re.M)
        assert listed == sorted(listed) and listed[0] == "A" and len(listed) >= 4
        assert set(row["answer"]) <= set(listed)
        assert list(row["answer"]) == sorted(row["answer"])
        if row["answer_type"] == "single_choice":
            assert len(row["answer"]) == 1


def test_rule_graded_golds_parse_with_math_verify():
    math_verify = pytest.importorskip("math_verify")
    for row in ROWS.values():
        if row["answer_type"] in ("number", "interval"):
            parsed = math_verify.parse("$" + row["answer"] + "$")
            assert parsed, f"{row['id']}: math-verify cannot read {row['answer']!r}"
            assert math_verify.verify(parsed, parsed)
