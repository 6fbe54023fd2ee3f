"""g365s-009: which probability claims are true, under a game's own definitions.

Each option's claimed value is read from its text and compared with the exact value."""

import itertools
from fractions import Fraction

from sample.harness import verifies


def prob(space, event, given=lambda o: True) -> Fraction:
    num = sum(p for o, p in space if event(o) and given(o))
    den = sum(p for o, p in space if given(o))
    return num / den


def expect(space, value) -> Fraction:
    return sum(p * value(o) for o, p in space)


def uniform(outcomes):
    outcomes = list(outcomes)
    return [(o, Fraction(1, len(outcomes))) for o in outcomes]


def true_options(q, claims: dict) -> str:
    """claims: letter -> (option text with {} where its value stands, exact value)."""
    out = ""
    for letter, (template, exact) in sorted(claims.items()):
        if q.num(f"{letter}. {template}") == exact:
            out += letter
    assert sorted(q.options()) == sorted(claims)
    return out


@verifies("g365s-009")
def _(q):
    q.has("rolls two fair six-sided dice", 'exactly when the two numbers differ by exactly 1: '
          "for example, 3 and 4 is a double, while 5 and 5 is NOT a double")
    roll = uniform(itertools.product(range(1, 7), repeat=2))
    double = lambda o: abs(o[0] - o[1]) == 1  # noqa: E731
    two = [((a, b), p * r) for (a, p), (b, r) in itertools.product(roll, roll)]
    return true_options(q, {
        "A": ("The probability that a roll is a double is {}.", prob(roll, double)),
        "B": ("Given that the two numbers add up to 7, the probability that the roll is a "
              "double is {}.", prob(roll, double, lambda o: sum(o) == 7)),
        "C": ("If you roll twice, the probability that at least one of the two rolls is a "
              "double is {}.", prob(two, lambda o: double(o[0]) or double(o[1]))),
        "D": ("Given that a roll is a double, the probability that its total is odd is {}.",
              prob(roll, lambda o: sum(o) % 2 == 1, double)),
        "E": ("Given that both dice show at least 3, the probability that the roll is a "
              "double is {}.", prob(roll, double, lambda o: min(o) >= 3)),
        "F": ("Given that at least one die shows a 6, the probability that the roll is a "
              "double is {}.", prob(roll, double, lambda o: 6 in o)),
    })


@verifies("g365s-009-v1")
def _(q):
    n = q.int("A fair coin is tossed {} times")
    q.has("HHTH has three runs (HH, T, H) and HHHH has one")
    space = uniform(itertools.product("HT", repeat=n))
    runs = lambda o: 1 + sum(a != b for a, b in zip(o, o[1:]))  # noqa: E731

    def longest(o):
        return max(len(list(g)) for _, g in itertools.groupby(o))
    two_runs = q.int("B. The probability of exactly {} runs")
    at_least = q.int("some run has length at least {}")
    given_runs = q.int("Given that there are exactly {} runs")
    mixed_runs = q.int("the probability of exactly {} runs is 3/7")
    four = q.int("F. The probability of exactly {} runs")
    return true_options(q, {
        "A": ("The expected number of runs is {}.", expect(space, runs)),
        "B": (f"The probability of exactly {two_runs} runs is {{}}.",
              prob(space, lambda o: runs(o) == two_runs)),
        "C": (f"The probability that some run has length at least {at_least} is {{}}.",
              prob(space, lambda o: longest(o) >= at_least)),
        "D": (f"Given that there are exactly {given_runs} runs, the probability that the first "
              "toss is H is {}.", prob(space, lambda o: o[0] == "H",
                                      lambda o: runs(o) == given_runs)),
        "E": (f"Given that both H and T occur at least once, the probability of exactly "
              f"{mixed_runs} runs is {{}}.", prob(space, lambda o: runs(o) == mixed_runs,
                                                 lambda o: len(set(o)) == 2)),
        "F": (f"The probability of exactly {four} runs is {{}}.",
              prob(space, lambda o: runs(o) == four)),
    })


@verifies("g365s-009-v2")
def _(q):
    q.has("one fair six-sided die", "if the first roll is a 6, you must roll the die again, "
          "exactly once, and the second roll is your final number (even if it is another 6). "
          "If the first roll is 1-5, it is your final number.")
    space = []        # (first roll, final number)
    for a in range(1, 7):
        if a == 6:
            space += [((a, b), Fraction(1, 36)) for b in range(1, 7)]
        else:
            space.append(((a, a), Fraction(1, 6)))
    final = lambda o: o[1]  # noqa: E731
    rerolled = lambda o: o[0] == 6  # noqa: E731
    six, one, given6, given3 = (q.int("A. The probability that your final number is {} is"),
                                q.int("C. The probability that your final number is {} is"),
                                q.int("D. Given that your final number is {},"),
                                q.int("E. Given that your final number is {},"))
    return true_options(q, {
        "A": (f"The probability that your final number is {six} is {{}}.",
              prob(space, lambda o: final(o) == six)),
        "B": ("The expected value of your final number is {}.", expect(space, final)),
        "C": (f"The probability that your final number is {one} is {{}}.",
              prob(space, lambda o: final(o) == one)),
        "D": (f"Given that your final number is {given6}, the probability that you rerolled "
              "is {}.", prob(space, rerolled, lambda o: final(o) == given6)),
        "E": (f"Given that your final number is {given3}, the probability that you rerolled "
              "is {}.", prob(space, rerolled, lambda o: final(o) == given3)),
        "F": ("The probability that your final number is even is {}.",
              prob(space, lambda o: final(o) % 2 == 0)),
    })


@verifies("g365s-009-v3")
def _(q):
    sectors = q.nums("four sectors numbered {}, {}, {} and {}")
    den = q.int("the chance of landing on sector k is k/{}")
    q.has("(so 4 is four times as likely as 1)")
    one = {k: Fraction(k, den) for k in sectors}
    assert sum(one.values()) == 1
    space = [((a, b), one[a] * one[b]) for a in sectors for b in sectors]
    total_a, total_c, first_c, at_least = (q.int("two results add up to {} is"),
                                          q.int("C. Given that the two results add up to {},"),
                                          q.int("the probability that the first result is {} is"),
                                          q.int("at least one result is {} is"))
    return true_options(q, {
        "A": (f"The probability that the two results add up to {total_a} is {{}}.",
              prob(space, lambda o: sum(o) == total_a)),
        "B": ("The probability that the two results are equal is {}.",
              prob(space, lambda o: o[0] == o[1])),
        "C": (f"Given that the two results add up to {total_c}, the probability that the first "
              f"result is {first_c} is {{}}.", prob(space, lambda o: o[0] == first_c,
                                                   lambda o: sum(o) == total_c)),
        "D": ("The expected value of the sum of the two results is {}.", expect(space, sum)),
        "E": (f"The probability that at least one result is {at_least} is {{}}.",
              prob(space, lambda o: at_least in o)),
        "F": ("The probability that the second result is larger than the first is {}.",
              prob(space, lambda o: o[1] > o[0])),
    })


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-009": "1 3 4 5 5 5 18 7 0 5 9 1 3 3 8 6 1 6",
    "g365s-009-v1": "4 5 2 2 3 8 3 1 4 2 1 2 2 3 7 4 1 4",
    "g365s-009-v2": "6 6 1 5 6 1 36 37 12 1 1 5 6 1 6 3 1 7 1 2",
    "g365s-009-v3": "1 2 3 4 10 4 1 5 1 4 3 10 7 4 1 2 6 1 1 5 7 20",
}
