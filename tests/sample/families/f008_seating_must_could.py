"""g365s-008: seatings at a round table or in a cinema row; what must or could be true.

The clues and the options are English sentences of a few fixed shapes, parsed here into
tests on a seating; every seating is tried."""

import itertools
import re

from sample.harness import verifies

COUNT = {"six": 6, "seven": 7, "eight": 8}
GAP = {"one": 1, "two": 2, "three": 3}


class Layout:
    """Seats 0..n-1. Round table: numbered clockwise seen from above; facing the centre, a
    diner's left hand points clockwise, so the seat on X's left is X + 1. Row: numbered
    left to right as the audience sees them; the seat on X's left is X - 1."""

    def __init__(self, n, round_table):
        self.n, self.round = n, round_table

    def left(self, s):
        return (s + 1) % self.n if self.round else s - 1

    def right(self, s):
        return (s - 1) % self.n if self.round else s + 1

    def next_to(self, a, b):
        return b in (self.left(a), self.right(a))

    def opposite(self, a, b):
        return self.round and (a - b) % self.n == self.n // 2


def seat_of(at, who, layout):
    if who == "the empty seat":
        (free,) = set(range(layout.n)) - set(at.values())
        return free
    return at[who]


NAME = r"(\w+|the empty seat)"


def sentence(text: str, layout: Layout):
    """A test on `at` (person -> seat) for one clue or option sentence."""
    s = lambda at, w: seat_of(at, w, layout)  # noqa: E731
    L = layout
    rules = [
        (rf"{NAME} sits directly opposite either (\w+) or (\w+)\.",
         lambda a, b, c: lambda at: (L.opposite(s(at, a), s(at, b))
                                     or L.opposite(s(at, a), s(at, c)))),
        (rf"{NAME} sits directly opposite {NAME}\.",
         lambda a, b: lambda at: L.opposite(s(at, a), s(at, b))),
        (rf"{NAME} does not sit directly opposite {NAME}\.",
         lambda a, b: lambda at: not L.opposite(s(at, a), s(at, b))),
        (r"(\w+) sits immediately to (\w+)'s left\.",
         lambda a, b: lambda at: s(at, a) == L.left(s(at, b))),
        (r"(\w+) sits immediately to (\w+)'s right\.",
         lambda a, b: lambda at: s(at, a) == L.right(s(at, b))),
        (rf"{NAME} sits next to {NAME}\.",
         lambda a, b: lambda at: L.next_to(s(at, a), s(at, b))),
        (rf"{NAME} does not sit next to {NAME}\.",
         lambda a, b: lambda at: not L.next_to(s(at, a), s(at, b))),
        (r"(\w+) and (\w+) both sit next to (\w+)\.",
         lambda a, b, c: lambda at: (L.next_to(s(at, a), s(at, c))
                                     and L.next_to(s(at, b), s(at, c)))),
        (r"(\w+) sits next to (\w+) and also next to (\w+)\.",
         lambda a, b, c: lambda at: (L.next_to(s(at, a), s(at, b))
                                     and L.next_to(s(at, a), s(at, c)))),
        (r"Exactly (one|two|three) seats? lies? between (\w+)'s seat and (\w+)'s seat\.",
         lambda k, a, b: lambda at: abs(s(at, a) - s(at, b)) == GAP[k] + 1),
        (r"(\w+) sits in a seat at one end of the row\.",
         lambda a: lambda at: s(at, a) in (0, L.n - 1)),
        (r"The empty seat is at one end of the row\.",
         lambda: lambda at: s(at, "the empty seat") in (0, L.n - 1)),
        (r"(\w+) sits somewhere to the left of (\w+)\.",
         lambda a, b: lambda at: s(at, a) < s(at, b)),
        (r"(\w+) sits in the middle seat of the row\.",
         lambda a: lambda at: s(at, a) == L.n // 2),
        (r"(\w+) sits in the right-hand end seat\.",
         lambda a: lambda at: s(at, a) == L.n - 1),
    ]
    for regex, make in rules:
        if m := re.fullmatch(regex, text):
            return make(*m.groups())
    raise AssertionError(f"unknown sentence {text!r}")


def solve(q, mode):
    m = q.find(r"^\w+ \w+, ((?:\w+, )+\w+ and \w+), sit (at a round table|in a cinema row) "
               r"(?:with|of) exactly (six|seven|eight) seats")
    names = re.split(r", | and ", m.group(1))
    layout = Layout(COUNT[m.group(3)], m.group(2) == "at a round table")
    if layout.round:
        q.has('facing the centre of the table. "Immediately to X\'s left" means the '
              "neighbouring seat on X's left-hand side from X's own point of view")
    else:
        q.has("\"immediately to X's left\" means the adjacent seat on X's left-hand side as "
              "X faces the screen", "(two people with the empty seat between them are not "
              "next to each other)")
    clues = [sentence(c.group(1), layout) for c in q.findall(r"^\d+\. (.+)$")]
    seatings = []
    for seats in itertools.permutations(range(layout.n), len(names)):
        at = dict(zip(names, seats))
        if all(c(at) for c in clues):
            seatings.append(at)
    assert seatings, "the clues admit no seating"
    options = q.options()
    q.findall(r"^[A-H]\. .+$")
    if mode == "must be false":
        return "".join(k for k, t in options.items()
                       if not any(sentence(t, layout)(at) for at in seatings))
    test = {"must": all, "could": any}[mode]
    return "".join(k for k, t in options.items()
                   if test(sentence(t, layout)(at) for at in seatings))


@verifies("g365s-008", "g365s-008-v2")
def _(q):
    q.has("Which of the following statements MUST be true?")
    return solve(q, "must")


@verifies("g365s-008-v1")
def _(q):
    q.has("Which of the following COULD be true?")
    return solve(q, "could")


@verifies("g365s-008-v3")
def _(q):
    q.has("Which of the following statements MUST be FALSE")
    return solve(q, "must be false")


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-008": "1 2 3 4",
    "g365s-008-v1": "1 2 3 4 5 6",
    "g365s-008-v2": "1 2 3 4 5 6",
    "g365s-008-v3": "1 2 3 4",
}
