"""g365s-032: an organiser fixes a five-player (or four-player) knockout draw to help or to
stop one player; every draw is evaluated exactly from the head-to-head chances."""

import itertools
import re

from sample.harness import to_number, verifies


def players(q) -> list[str]:
    m = q.find(r"^(?:Five|Four) players, ((?:\w+, )+\w+ and \w+), enter")
    return re.split(r", | and ", m.group(1))


def chances(q, names) -> dict:
    """beat[a][b]: the chance that a beats b, from lines 'A beats B with probability p, ...'."""
    beat = {a: {} for a in names}
    for m in q.findall(r"^(\w+) beats (.+)\.$"):
        for b, p in re.findall(r"(\w+) with probability (\d+/\d+)", m.group(2)):
            beat[m.group(1)][b] = to_number(p)
            beat[b][m.group(1)] = 1 - to_number(p)
    assert all(len(beat[a]) == len(names) - 1 for a in names), "a pair's chance is missing"
    example = q.find(r"\(So, for example, (\w+) beats (\w+) with probability (\d+/\d+)\.\)")
    assert beat[example.group(1)][example.group(2)] == to_number(example.group(3))
    return beat


def match(beat, a, b) -> dict:
    return {a: beat[a][b], b: beat[b][a]}


def play(beat, left: dict, right: dict) -> dict:
    """Winner distribution of a match between the winners of two earlier matches."""
    out = {}
    for a, pa in left.items():
        for b, pb in right.items():
            for w, pw in match(beat, a, b).items():
                out[w] = out.get(w, 0) + pa * pb * pw
    return out


def five_player_draws(names):
    """(round-1 pair, bye player who meets its winner, the other semi-final pair)."""
    for a, b in itertools.combinations(names, 2):
        rest = [p for p in names if p not in (a, b)]
        for w in rest:
            yield (a, b), w, tuple(p for p in rest if p != w)


def champion(beat, draw) -> dict:
    (a, b), w, (c, d) = draw
    return play(beat, play(beat, match(beat, a, b), {w: 1}), match(beat, c, d))


FORMAT = ("In round 1 two of the players play a match and the other three have a bye. In the "
          "semi-finals the winner of round 1 plays one of the three bye players, and the other "
          "two bye players play each other; the two semi-final winners meet in the final.")


def intro(q):
    q.has("Every match has a winner, and results of different matches are independent.")


@verifies("g365s-032")
def _(q):
    intro(q)
    names = players(q)
    beat = chances(q, names)
    q.has(FORMAT, "fixes the whole draw before any match is played: she chooses which two players "
          "meet in round 1 and which bye player meets the round-1 winner")
    hero = q.find(r"the draw that gives (\w+) the greatest chance of winning the "
                  r"tournament").group(1)
    return max(champion(beat, d).get(hero, 0) for d in five_player_draws(names))


@verifies("g365s-032-v1")
def _(q):
    intro(q)
    names = players(q)
    beat = chances(q, names)
    q.has(FORMAT, "chooses the round-1 pair before play starts, but waits for the round-1 result "
          "before deciding which bye player meets its winner")
    hero = q.find(r"to give (\w+) the greatest chance of winning the tournament").group(1)
    best = 0
    for a, b in itertools.combinations(names, 2):
        rest = [p for p in names if p not in (a, b)]
        total = 0
        for winner, p in match(beat, a, b).items():
            total += p * max(play(beat, play(beat, {winner: 1}, {w: 1}),
                                  match(beat, *[x for x in rest if x != w])).get(hero, 0)
                             for w in rest)
        best = max(best, total)
    return best


@verifies("g365s-032-v2")
def _(q):
    intro(q)
    names = players(q)
    games = chances(q, names)
    q.has("Every match is played as the best of three games: the first player to win two games "
          "wins the match. The chances below are for a single game, and games are independent.")
    beat = {a: {b: p * p * (3 - 2 * p) for b, p in row.items()} for a, row in games.items()}
    q.has("two semi-finals and a final", "chooses the two semi-final pairs")
    hero = q.find(r"greatest chance that (\w+) wins the tournament").group(1)
    best = 0
    for opp in names:
        if opp == hero:
            continue
        others = [p for p in names if p not in (hero, opp)]
        best = max(best, play(beat, match(beat, hero, opp), match(beat, *others)).get(hero, 0))
    return best


@verifies("g365s-032-v3")
def _(q):
    intro(q)
    names = players(q)
    beat = chances(q, names)
    q.has(FORMAT, "fixes the whole draw before any match is played")
    villain = q.find(r"the smallest possible chance that (\w+) wins the tournament").group(1)
    return min(champion(beat, d).get(villain, 0) for d in five_player_draws(names))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-032": "3 5 1 4 3 4 1 2 2 5 3 5 1 3 1 3 2 3 1 2 2 5 1 1 1 1",
    "g365s-032-v1": "1 4 1 2 2 3 1 2 2 5 1 4 3 4 3 4 2 3 2 3 3 4 1 1 1 1",
    "g365s-032-v2": "2 5 1 2 2 3 3 4 1 3 2 3 3 5 4",
    "g365s-032-v3": "1 2 1 2 2 3 2 3 3 5 2 3 1 3 3 5 1 4 3 4 1 2 1 1",
}
