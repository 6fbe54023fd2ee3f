"""g365s-019: ballots written from least to most preferred, counted under several rules.

The ballots are read from the question exactly as printed."""

import itertools
import re

from sample.harness import verifies

WORDS = {"one third": 3, "one quarter": 4, "half": 2}


def ballots(q) -> list[tuple[int, list[str]]]:
    out = [(int(m.group(1)), [n.strip() for n in m.group(2).split(",")])
           for m in q.findall(r"^(\d+) ballots?: ([A-Za-z, ]+)$")]
    total = q.int("The {} ballots, exactly as written, were:")
    assert sum(c for c, _ in out) == total
    return out


def reverse_elimination(bs, *, majority=False):
    """Each round the candidate listed earliest (least liked) among those left on most
    ballots goes out; ties: the alphabetically first goes. With `majority`, before each
    round a candidate who is the favourite (listed last among those left) on more than half
    the ballots wins at once. Returns (winner, eliminated in order, any tie?)."""
    alive, total = set(bs[0][1]), sum(c for c, _ in bs)
    out, tie = [], False
    while len(alive) > 1:
        if majority:
            fav = {x: 0 for x in alive}
            for c, b in bs:
                fav[[x for x in b if x in alive][-1]] += c
            top = [x for x in alive if 2 * fav[x] > total]
            if top:
                return top[0], out, tie
        marks = {x: 0 for x in alive}
        for c, b in bs:
            marks[[x for x in b if x in alive][0]] += c
        most = max(marks.values())
        tied = sorted(x for x in alive if marks[x] == most)
        tie |= len(tied) > 1
        alive.discard(tied[0])
        out.append(tied[0])
    return alive.pop(), out, tie


def guild(q):
    q.has("by Guild custom a ballot is written from LEAST preferred to MOST preferred",
          "every ballot gives one black mark to the candidate it likes least among those still "
          "in the race; the candidate with the most black marks is eliminated (if several tie "
          "for the most, the one whose name comes first alphabetically is eliminated)")


@verifies("g365s-019")
def _(q):
    guild(q)
    winner, _, tie = reverse_elimination(ballots(q))
    assert not tie
    return q.letter_of(winner)


@verifies("g365s-019-v1")
def _(q):
    q.has("Class 7B", "each ballot lists all five destinations from least preferred to most "
          "preferred (first = least wanted, last = most wanted)")
    share = WORDS[q.find(r"^1\. Veto: a destination that is listed first on at least (one "
                         r"third) of all ballots is vetoed and cannot win\.$").group(1)]
    worth = q.nums("earns {} points if it is listed first, {} if second, {} if third, {} if "
                   "fourth and {} if fifth")
    q.has("2. Points: on each ballot", "(positions are counted on the ballot as written, "
          "including any vetoed destinations)",
          "3. The destination with the most points among those not vetoed wins.")
    bs = ballots(q)
    total = sum(c for c, _ in bs)
    firsts, points = {}, {}
    for c, b in bs:
        firsts[b[0]] = firsts.get(b[0], 0) + c
        for pos, name in enumerate(b):
            points[name] = points.get(name, 0) + c * worth[pos]
    alive = {x: p for x, p in points.items() if share * firsts.get(x, 0) < total}
    best = max(alive.values())
    (winner,) = [x for x, p in alive.items() if p == best]
    return q.letter_of(winner)


@verifies("g365s-019-v2")
def _(q):
    guild(q)
    q.has("if some candidate still in the race is the favourite (the last-listed among those "
          "still in the race) on more than half of all ballots, that candidate becomes Keeper "
          "at once")
    winner, _, tie = reverse_elimination(ballots(q), majority=True)
    assert not tie
    return q.letter_of(winner)


@verifies("g365s-019-v3")
def _(q):
    q.has("each ballot is written from least to most preferred: the first title listed is the "
          "one the member likes least, and the last title listed is the member's favourite",
          "a title missing from a ballot counts as liked less than every title written on it "
          "(titles missing from the same ballot are liked equally)",
          "each ballot supports the book it likes more (a ballot that likes both equally "
          "supports neither), and the book supported by more ballots wins; equal support makes "
          "the duel a draw")
    win, draw = q.nums("A book earns {} point for each duel it wins and {} point for each draw")
    books = re.split(r", | and ", q.find(r"from five books: ((?:\w+, )+\w+ and \w+)\.").group(1))
    bs = ballots(q)

    def liking(ballot, book):
        return ballot.index(book) if book in ballot else -1
    points = {b: 0 for b in books}
    for a, b in itertools.combinations(books, 2):
        for_a = sum(c for c, x in bs if liking(x, a) > liking(x, b))
        for_b = sum(c for c, x in bs if liking(x, b) > liking(x, a))
        if for_a == for_b:
            points[a] += draw
            points[b] += draw
        else:
            points[a if for_a > for_b else b] += win
    best = max(points.values())
    (chosen,) = [b for b, p in points.items() if p == best]
    return q.letter_of(chosen)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-019": "32 4 2 7 5 6 8",
    "g365s-019-v1": "7 1 2 0 1 2 3 4 3 18 3 1 4 4 6",
    "g365s-019-v2": "32 4 2 7 5 6 8",
    "g365s-019-v3": "1 ½ 24 4 2 2 5 3 8",
}
