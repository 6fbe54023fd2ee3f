"""g365s-012: a seven-segment clock with dead (or stuck) segments; which times fit."""

import re

from sample.harness import verifies

DRAWN = ("Each digit is drawn in the usual way: 0 uses every segment except the middle one; "
         "1 uses the two right-hand segments; 2 uses top, upper-right, middle, lower-left, "
         "bottom; 3 uses top, upper-right, middle, lower-right, bottom; 4 uses upper-left, "
         "upper-right, middle, lower-right; 5 uses top, upper-left, middle, lower-right, "
         "bottom; 6 is 5 plus lower-left; 7 uses top, upper-right, lower-right; 8 uses all "
         "seven; 9 is 5 plus upper-right.")
NAMES = {"top": "a", "upper-right": "b", "lower-right": "c", "bottom": "d",
         "lower-left": "e", "upper-left": "f", "middle": "g"}


def segments_from_text(text: str) -> dict[int, frozenset]:
    """The digits' segments as the question describes them."""
    out = {}
    body = text.removeprefix("Each digit is drawn in the usual way: ").rstrip(".")
    for clause in body.split("; "):
        d, rest = int(clause[0]), clause[2:]
        if rest == "uses every segment except the middle one":
            out[d] = frozenset("abcdef")
        elif rest == "uses the two right-hand segments":
            out[d] = frozenset("bc")
        elif rest == "uses all seven":
            out[d] = frozenset("abcdefg")
        elif m := re.fullmatch(r"is (\d) plus ([\w-]+)", rest):
            out[d] = out[int(m.group(1))] | {NAMES[m.group(2)]}
        else:
            out[d] = frozenset(NAMES[n] for n in rest.removeprefix("uses ").split(", "))
    assert sorted(out) == list(range(10))
    return out


def setup(q):
    q.has("A digital clock shows 24-hour time as four seven-segment digits HH:MM (with "
          "leading zeros, 00:00 to 23:59; the colon is always fine)", DRAWN)
    return segments_from_text(DRAWN)


DAY = [(h, m) for h in range(24) for m in range(60)]
ONE = [(p, s) for p in range(4) for s in "abcdefg"]     # one faulty segment: digit, segment


def digits(t):
    h, m = t
    return (h // 10, h % 10, m // 10, m % 10)


def shown(seg, t, dead=None, stuck=None):
    """What the display shows at true time t with one dead (never lit) or stuck (always
    lit) segment."""
    out = [seg[d] for d in digits(t)]
    if dead:
        out[dead[0]] = out[dead[0]] - {dead[1]}
    if stuck:
        out[stuck[0]] = out[stuck[0]] | {stuck[1]}
    return tuple(out)


def near(seg, pattern):
    """Times whose true display differs from `pattern` in at most one digit (one faulty
    segment cannot change more)."""
    return [t for t in DAY if sum(a != b for a, b in zip(shown(seg, t), pattern)) <= 1]


def looks(seg, clock: int):
    return shown(seg, divmod(clock, 60))


def later(t, minutes):
    return divmod((t[0] * 60 + t[1] + minutes) % 1440, 60)


@verifies("g365s-012")
def _(q):
    seg = setup(q)
    q.has("exactly one of the 28 segments of the display is dead")
    first, gap, second = q.nums("see what looks exactly like {t}; exactly {} minutes later you "
                                "see what looks exactly like {t}")
    return len({t for t in near(seg, looks(seg, first)) for dead in ONE
                if shown(seg, t, dead=dead) == looks(seg, first)
                and shown(seg, later(t, gap), dead=dead) == looks(seg, second)})


@verifies("g365s-012-v1")
def _(q):
    seg = setup(q)
    q.has("exactly one of its 28 segments is stuck ON")
    first, gap, second = q.nums("You see what looks exactly like {t}, and exactly {} minutes "
                                "later what looks exactly like {t}.")
    return len({t for t in near(seg, looks(seg, first)) for stuck in ONE
                if shown(seg, t, stuck=stuck) == looks(seg, first)
                and shown(seg, later(t, gap), stuck=stuck) == looks(seg, second)})


@verifies("g365s-012-v2")
def _(q):
    seg = setup(q)
    assert q.find(r"at most (two) of the display's 28 segments may be dead").group(1) == "two"
    reading = looks(seg, q.nums("You see what looks exactly like {t}.")[0])
    # Dead segments only hide lit ones: the reading must lie inside the true display, and
    # the hidden segments (all of them dead) number at most two.
    return sum(all(r <= a for r, a in zip(reading, shown(seg, t)))
               and sum(len(a - r) for r, a in zip(reading, shown(seg, t))) <= 2 for t in DAY)


@verifies("g365s-012-v3")
def _(q):
    seg = setup(q)
    q.has("Exactly one of the 28 segments is dead", "How many of the 28 segments")
    checks = [divmod(x, 60) for x in q.nums("at the actual times {t}, {t} and {t} the display")]
    return sum(all(shown(seg, t, dead=dead) == shown(seg, t) for t in checks) for dead in ONE)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-012": "24 00 00 23 59 0 1 2 3 4 5 6 5 7 8 9 5 28 15 45 10 15 55",
    "g365s-012-v1": "24 00 00 23 59 0 1 2 3 4 5 6 5 7 8 9 5 28 18 48 10 18 58",
    "g365s-012-v2": "24 00 00 23 59 0 1 2 3 4 5 6 5 7 8 9 5 28 10 51",
    "g365s-012-v3": "24 00 00 23 59 0 1 2 3 4 5 6 5 7 8 9 5 28 07 41 11 17 20 03 28",
}
