"""g365s-028: which events have probability above one half (or are independent); exact
enumeration. Each option's thresholds are read from its text."""

import itertools
from fractions import Fraction

from sample.harness import verifies

THREE_DICE = [(w, Fraction(1, 216)) for w in itertools.product(range(1, 7), repeat=3)]


def prob(space, event, given=lambda w: True) -> Fraction:
    num = sum(p for w, p in space if given(w) and event(w))
    return num / sum(p for w, p in space if given(w))


def pair_sums_to(w, n):
    return any(a + b == n for a, b in itertools.combinations(w, 2))


def likely(q, space, events: dict) -> str:
    """events: letter -> (option template, function of the values read -> (event, given))."""
    half = q.num("is the probability strictly greater than {}?")
    out = ""
    for letter, (template, make) in sorted(events.items()):
        values = q.nums(f"{letter}. {template}") if "{}" in template else []
        if not values:
            q.has(f"{letter}. {template}")
        event, given = make(*values)
        if prob(space, event, given or (lambda w: True)) > half:
            out += letter
    assert sorted(q.options()) == sorted(events)
    return out


DICE_INTRO = "Three fair six-sided dice, coloured red, green, blue, are rolled together."


@verifies("g365s-028")
def _(q):
    q.has(DICE_INTRO)
    return likely(q, THREE_DICE, {
        "A": ("The sum of the three numbers is at least {}.",
              lambda n: (lambda w: sum(w) >= n, None)),
        "B": ("Some two of the three dice add up to exactly {}.",
              lambda n: (lambda w: pair_sums_to(w, n), None)),
        "C": ("The three dice show three different numbers.",
              lambda: (lambda w: len(set(w)) == 3, None)),
        "D": ("The middle value (the median of the three numbers) is at least {}.",
              lambda n: (lambda w: sorted(w)[1] >= n, None)),
        "E": ("The largest number minus the smallest number is at least {}.",
              lambda n: (lambda w: max(w) - min(w) >= n, None)),
        "F": ("Given that at least one die shows a {}, exactly one die shows a {}.",
              lambda a, b: (lambda w: w.count(b) == 1, lambda w: a in w)),
    })


@verifies("g365s-028-v1")
def _(q):
    lo, hi = q.nums("Ten cards numbered {} to {} are shuffled")
    assert hi - lo + 1 == 10
    q.has("two cards are drawn one after the other, without replacement")
    cards = range(lo, hi + 1)
    space = [(c, Fraction(1, 90)) for c in itertools.permutations(cards, 2)]
    return likely(q, space, {
        "A": ("The sum of the two numbers is at least {}.",
              lambda n: (lambda c: sum(c) >= n, None)),
        "B": ("The second card is larger than the first.", lambda: (lambda c: c[1] > c[0], None)),
        "C": ("One of the two numbers divides the other.",
              lambda: (lambda c: c[0] % c[1] == 0 or c[1] % c[0] == 0, None)),
        "D": ("The larger number is at least twice the smaller.",
              lambda: (lambda c: max(c) >= 2 * min(c), None)),
        "E": ("Given that the product of the two numbers is even, both numbers are even.",
              lambda: (lambda c: c[0] % 2 == 0 and c[1] % 2 == 0, lambda c: c[0] * c[1] % 2 == 0)),
        "F": ("Given that at least one of the cards is {} or more, the sum is at least {}.",
              lambda a, n: (lambda c: sum(c) >= n, lambda c: max(c) >= a)),
    })


@verifies("g365s-028-v2")
def _(q):
    q.has(DICE_INTRO)
    again = q.int("every die that shows a {} is rolled again once")
    q.has("its second result stands (even if it is another 1)")
    face = {k: (Fraction(1, 36) if k == again else Fraction(7, 36)) for k in range(1, 7)}
    assert sum(face.values()) == 1
    space = [(w, face[w[0]] * face[w[1]] * face[w[2]])
             for w in itertools.product(range(1, 7), repeat=3)]
    return likely(q, space, {
        "A": ("The sum of the three numbers is at least {}.",
              lambda n: (lambda w: sum(w) >= n, None)),
        "B": ("Some two of the three dice add up to exactly {}.",
              lambda n: (lambda w: pair_sums_to(w, n), None)),
        "C": ("The three dice show three different numbers.",
              lambda: (lambda w: len(set(w)) == 3, None)),
        "D": ("At least one die shows a {}.", lambda n: (lambda w: n in w, None)),
        "E": ("The largest number minus the smallest number is at least {}.",
              lambda n: (lambda w: max(w) - min(w) >= n, None)),
    })


@verifies("g365s-028-v3")
def _(q):
    q.has(DICE_INTRO, "Two events X and Y are called independent when P(X and Y) = P(X) * P(Y).")
    r_g, total = q.nums("B. X: red + green = {}; Y: the sum of all three dice is {}.")
    six = q.int("C. X: all three dice show the same number; Y: the red die shows {}.")
    pairs = {
        "A": ("X: the red die is even; Y: the sum of all three dice is even.",
              (lambda w: w[0] % 2 == 0, lambda w: sum(w) % 2 == 0)),
        "B": (f"X: red + green = {r_g}; Y: the sum of all three dice is {total}.",
              (lambda w: w[0] + w[1] == r_g, lambda w: sum(w) == total)),
        "C": (f"X: all three dice show the same number; Y: the red die shows {six}.",
              (lambda w: len(set(w)) == 1, lambda w: w[0] == six)),
        "D": ("X: red > green; Y: green > blue.", (lambda w: w[0] > w[1], lambda w: w[1] > w[2])),
        "E": ("X: red + green is even; Y: green + blue is even.",
              (lambda w: (w[0] + w[1]) % 2 == 0, lambda w: (w[1] + w[2]) % 2 == 0)),
    }
    q.options({k: t for k, (t, _) in pairs.items()})
    q.has("For which of the following pairs are the two events independent?")
    return "".join(k for k, (_, (a, b)) in sorted(pairs.items())
                   if prob(THREE_DICE, lambda w: a(w) and b(w))
                   == prob(THREE_DICE, a) * prob(THREE_DICE, b))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-028": "1 2 11 7 4 3 6 6",
    "g365s-028-v1": "1 10 1 2 11 8 11",
    "g365s-028-v2": "1 1 1 2 11 7 1 3",
    "g365s-028-v3": "7 10 6",
}
