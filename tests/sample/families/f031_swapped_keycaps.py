"""g365s-031: a calculator with two keycaps swapped (or a sticky key): work out the fault
from a few results, then predict another. Every possible fault is tried."""

import itertools
import re

from sample.harness import verifies

SWAPS = list(itertools.combinations("0123456789", 2))


def tokens(expr: str) -> list[str]:
    return re.findall(r"\d+|[+\-×]", expr.replace("−", "-"))


def left_to_right(toks, keep=None) -> int:
    """A basic calculator: each operation is done when the next operation key is pressed;
    with `keep` digits the display (and what it computes with) keeps only the last ones."""
    value = int(toks[0])
    for op, n in zip(toks[1::2], toks[2::2]):
        n = int(n)
        value = value + n if op == "+" else value - n if op == "-" else value * n
        if keep:
            value = int(str(value)[-keep:])
    return value


def precedence(toks) -> int:
    """× before + and −, then left to right."""
    terms, signs = [int(toks[0])], []
    for op, n in zip(toks[1::2], toks[2::2]):
        if op == "×":
            terms[-1] *= int(n)
        else:
            signs.append(op)
            terms.append(int(n))
    value = terms[0]
    for op, t in zip(signs, terms[1:]):
        value = value + t if op == "+" else value - t
    return value


def swap(expr: str, pair) -> str:
    a, b = pair
    return expr.translate(str.maketrans({a: b, b: a}))


def sticky(expr: str, digit) -> str:
    return expr.replace(digit, digit + digit)


def solve(q, faults, enter, evaluate):
    """The one fault consistent with every observed line, and the target's display."""
    q.has("calculator has the usual keys 0-9, +, −, × and =")
    seen = [(m.group(1), int(m.group(2))) for m in q.findall(r"^(.+?) = shows (\d+)$")]
    fits = [f for f in faults
            if all(evaluate(tokens(enter(e, f))) == shown for e, shown in seen)]
    assert len(fits) == 1, f"faults that fit: {fits}"
    target = q.find(r"types, by the labels, (.+?) = \?").group(1)
    return evaluate(tokens(enter(target, fits[0])))


def basic(q):
    q.has("it carries out each operation as soon as the next operation key is pressed")
    example, shows = q.nums("so typing {s} = shows {}")
    assert left_to_right(tokens(example)) == shows


def two_swapped(q):
    q.has("exactly two digit labels are now swapped (pressing the key labelled with one of "
          "those digits enters the other digit)")


@verifies("g365s-031")
def _(q):
    basic(q)
    two_swapped(q)
    return solve(q, SWAPS, swap, left_to_right)


@verifies("g365s-031-v1")
def _(q):
    q.has("it follows the usual order of operations: × is done before + and −")
    example, shows = q.nums("so typing {s} = shows {}")
    assert precedence(tokens(example)) == shows
    two_swapped(q)
    return solve(q, SWAPS, swap, precedence)


@verifies("g365s-031-v2")
def _(q):
    basic(q)
    q.has("exactly one digit key is sticky: every press of it enters its digit twice (pressing "
          "it once for 7, say, enters 77)")
    return solve(q, list("0123456789"), sticky, left_to_right)


@verifies("g365s-031-v3")
def _(q):
    basic(q)
    two_swapped(q)
    keep = {"three": 3}[q.find(r"the display has room for (three) digits only").group(1)]
    q.has("whenever a result has more digits, the calculator keeps only the last three (leading "
          "zeros dropped, so 1064 becomes 64) and carries on calculating with what it shows")
    return solve(q, SWAPS, swap, lambda toks: left_to_right(toks, keep))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-031": "0 9 2 3 4 20 33 22 726 3 90 270 93 39 15 1848 12 35 22 4",
    "g365s-031-v1": "0 9 2 3 4 14 90 85 5 22410 33 8 16 456 62 50 15 452 13 35 3 5",
    "g365s-031-v2": "0 9 2 3 4 20 7 77 41 27 63 9244 19 28 4332 26 4 230 52 12 3 20",
    "g365s-031-v3": "0 9 2 3 4 20 1064 64 57 10 47 13 56 64 74 30 164 39 47 93 3",
}
