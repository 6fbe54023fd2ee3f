"""g365s-022: a lock code from hit/near feedback on wrong guesses; every code tried."""

import itertools
import re

from sample.harness import verifies


def feedback(code, guess) -> tuple[int, int]:
    hits = sum(c == g for c, g in zip(code, guess))
    common = sum(min(code.count(d), guess.count(d)) for d in set(guess))
    return hits, common - hits


def codes(*, distinct=True, increasing=False):
    for code in itertools.product(range(10), repeat=4):
        if code[0] == 0 or (distinct and len(set(code)) < 4):
            continue
        if increasing and any(a >= b for a, b in zip(code, code[1:])):
            continue
        yield code


def clues(q):
    """(guess digits, (hits, near)) for every `dddd: h hit(s), n near` line."""
    return [(tuple(int(c) for c in m.group(1)), (int(m.group(2)), int(m.group(3))))
            for m in q.findall(r"^(\d{4}): (\d) hits?, (\d) near$")]


def intro(q):
    q.has("a 'hit' is a digit of the guess that appears in the code in the same position, and "
          "a 'near' is a digit of the guess that appears in the code but in a different "
          "position")


def number(code):
    return int("".join(map(str, code)))


@verifies("g365s-022")
def _(q):
    intro(q)
    q.has("Kit's bike lock has a 4-digit code. The four digits are all different and the first "
          "digit is not 0.", "Give it as a 4-digit number.")
    got = clues(q)
    (code,) = [c for c in codes() if all(feedback(c, g) == f for g, f in got)]
    return number(code)


@verifies("g365s-022-v1")
def _(q):
    q.has("four dials, each showing a digit 0-9; the digits may repeat, but the first dial is "
          "not 0", "Give it as a 4-digit number.", "only counts hits")
    total = q.int("the four digits of the code add up to {}")
    hits = [(tuple(int(c) for c in m.group(1)), int(m.group(2)))
            for m in q.findall(r"^(\d{4}): (\d) hits?$")]
    (code,) = [c for c in codes(distinct=False) if sum(c) == total
               and all(feedback(c, g)[0] == h for g, h in hits)]
    return number(code)


@verifies("g365s-022-v2")
def _(q):
    intro(q)
    q.has("Kit's bike lock has a 4-digit code. The four digits are all different and the first "
          "digit is not 0.")
    got = clues(q)
    assert re.search(r"only (three) of the clues", q.text) and len(got) == 3
    return sum(all(feedback(c, g) == f for g, f in got) for c in codes())


@verifies("g365s-022-v3")
def _(q):
    intro(q)
    q.has("a 4-digit code whose digits are strictly increasing from left to right, and its "
          "first digit is not 0", "Give it as a 4-digit number.")
    got = clues(q)
    (code,) = [c for c in codes(increasing=True) if all(feedback(c, g) == f for g, f in got)]
    return number(code)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-022": "4 0 8249 1 0 7621 1 1 4873 0 2 2651 1 0 1452 0 1 4",
    "g365s-022-v1": "0 9 0 6 1671 1 1122 1 9925 1 5255 1 4",
    "g365s-022-v2": "4 0 8249 1 0 7621 1 1 4873 0 2",
    "g365s-022-v3": "4 0 1853 1 0 6543 0 2 9637 0 1 4",
}
