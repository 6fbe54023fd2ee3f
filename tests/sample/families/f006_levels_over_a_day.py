"""g365s-006: a barrel (or battery) filled and drained on a timetable.

Exact sets: the level is linear between the moments the total rate changes, so every
condition is checked at those moments; as a function of the unknown (the starting amount,
a rate) each such level is piecewise linear, and `kinks` finds exactly where it crosses a
threshold or where the battery's 80% cut-off starts to bite."""

from fractions import Fraction

from sample.harness import minutes, solve_set, verifies

FLOW = (r"(adds|drains|leaks) (\d+|r) (?:litres|percentage points|points) per hour"
        r"(?: \(r >= 0, to be chosen\))?(?: the whole time)? from (\d+:\d\d) to (\d+:\d\d)")


def levels(v0, flows, horizon, cap=None) -> list:
    """The level at every moment the total rate can change (times in hours from the start).

    flows: (start, end, rate per hour). With `cap`, inflow stops while the level is at or
    above cap (a battery saver), so a rising level stops at cap."""
    cuts = sorted({Fraction(0), Fraction(horizon)} | {Fraction(x) for s, e, _ in flows
                                                      for x in (s, e)})
    out, v = [(Fraction(0), Fraction(v0))], Fraction(v0)
    for a, b in zip(cuts, cuts[1:]):
        rate = sum(Fraction(r) for s, e, r in flows if s <= a and b <= e)
        if cap is not None and rate > 0:
            v = v if v >= cap else min(Fraction(cap), v + rate * (b - a))
        else:
            v = v + rate * (b - a)
        out.append((b, v))
    return out


def kinks(level_list, lo, hi, values, known=()) -> set:
    """Points x in [lo, hi] where some checkpoint level of level_list(x) equals one of
    `values`. Checkpoint k is linear in x between the kinks of checkpoints before it, so
    working through the checkpoints in time order makes every interpolation exact. `known`:
    points where the levels are already known to bend."""
    pts = {Fraction(lo), Fraction(hi)} | {Fraction(x) for x in known if lo <= x <= hi}
    for k in range(len(level_list(lo))):
        sp = sorted(pts)
        for a, b in zip(sp, sp[1:]):
            fa, fb = level_list(a)[k], level_list(b)[k]
            for level in values:
                if fa != fb and min(fa, fb) <= level <= max(fa, fb):
                    pts.add(a + (level - fa) * (b - a) / (fb - fa))
    return pts


def barrel_flows(q, origin, r=None):
    flows = []
    for m in q.findall(FLOW):
        sign = -1 if m.group(1) in ("drains", "leaks") else 1
        rate = r if m.group(2) == "r" else int(m.group(2))
        flows.append((Fraction(minutes(m.group(3)) - origin, 60),
                      Fraction(minutes(m.group(4)) - origin, 60), sign * rate))
    return flows


def barrel_rules(q):
    cap = q.int("A rain barrel that holds at most {} litres")
    assert q.int("must never hold more than {} litres") == cap
    empty_from, end = q.nums("never be completely empty at any moment from {t} to {t}")
    least, when = q.nums("must hold at least {} litres at {t}")
    assert when == end
    return cap, least, empty_from, end


@verifies("g365s-006")
def _(q):
    origin = q.nums("contains V0 litres at {t}")[0]
    q.has("V0")
    cap, least, empty_from, end = barrel_rules(q)
    assert empty_from == origin
    flows = barrel_flows(q, origin)
    lo, hi = q.nums("({} <= V0 <= {})")
    horizon = Fraction(end - origin, 60)

    def member(v0):
        pts = levels(v0, flows, horizon)
        return all(0 < v <= cap for _, v in pts) and pts[-1][1] >= least
    crit = kinks(lambda v0: [v for _, v in levels(v0, flows, horizon)], lo, hi, (0, cap, least))
    return solve_set(member, lo, hi, crit)


@verifies("g365s-006-v1")
def _(q):
    start, origin = q.nums("contains {} litres at {t}")
    cap, least, empty_from, end = barrel_rules(q)
    horizon = Fraction(end - origin, 60)

    def run(r):
        return levels(start, barrel_flows(q, origin, r), horizon)

    def member(r):
        pts = run(r)
        return all(0 < v <= cap for _, v in pts) and pts[-1][1] >= least
    crit = kinks(lambda r: [v for _, v in run(r)], 0, 1000, (0, cap, least))
    return solve_set(member, 0, None, crit)


@verifies("g365s-006-v2")
def _(q):
    origin = q.nums("battery is at B0 percent at {t}")[0]
    q.has("B0")
    flows = []
    charge = q.int("the charger adds {} percentage points per hour")
    saver = q.int("stops charging whenever the battery is at or above {}%")
    q.has("a charging battery stops rising at exactly 80%")
    q.has("a battery already above 80% just stays where it is")
    a, b = q.nums("From {t} to {t} the phone is on the charger and unused")
    flows.append((a, b, charge))
    a, b, use = q.nums("From {t} to {t} the phone is unplugged and normal use drains {} points")
    flows.append((a, b, -use))
    nav, a, b = q.nums("navigation drains another {} points per hour from {t} to {t}")
    flows.append((a, b, -nav))
    a, b = q.nums("From {t} to {t} the phone is back on the same charger, unused, with the "
                  "same 80% rule")
    flows.append((a, b, charge))
    a, b, use = q.nums("From {t} to {t} normal use drains {} points per hour")
    flows.append((a, b, -use))
    flows = [(Fraction(s - origin, 60), Fraction(e - origin, 60), r) for s, e, r in flows]
    off = q.int("switches off if the battery ever reaches {}%")
    least, end = q.nums("still has at least {}% at {t}")
    lo, hi = q.nums("({} <= B0 <= {})")
    horizon = Fraction(end - origin, 60)

    def member(b0):
        pts = levels(b0, flows, horizon, cap=saver)
        return all(v > off for _, v in pts) and pts[-1][1] >= least
    # The cut-off bends a level where it starts charging at the cap, or would pass it.
    bends = {saver - r * (e - s) for s, e, r in flows if r > 0} | {saver}
    crit = kinks(lambda b0: [v for _, v in levels(b0, flows, horizon, cap=saver)], lo, hi,
                 bends | {off, least})
    return solve_set(member, lo, hi, crit)


@verifies("g365s-006-v3")
def _(q):
    start, origin = q.nums("contains {} litres at {t}")
    cap = q.int("A rain barrel that holds at most {} litres")
    flows = barrel_flows(q, origin)
    lo, hi = q.nums("({} <= t <= {})")
    assert q.nums("measured in hours after {t}")[0] == origin
    above = q.int("at which the barrel holds more than {} litres")
    pts = levels(start, flows, hi)
    assert all(0 <= v <= cap for _, v in pts), "the story's barrel would overflow or run dry"

    def level(t):
        for (a, va), (b, vb) in zip(pts, pts[1:]):
            if a <= t <= b:
                return va + (vb - va) * (t - a) / (b - a)

    bends = [t for t, _ in pts]
    crit = kinks(lambda t: [level(t)], lo, hi, (above,), known=bends)
    return solve_set(lambda t: level(t) > above, lo, hi, crit)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-006": (
        "120 0 6 00 50 6 00 8 30 30 7 00 12 00 40 10 00 11 00 5 6 00 13 00 "
        "120 6 00 13 00 25 13 00 0 0 0 120"),
    "g365s-006-v1": (
        "120 50 6 00 50 6 00 8 30 0 7 00 12 00 40 10 00 11 00 5 6 00 13 00 "
        "120 6 00 13 00 25 13 00"),
    "g365s-006-v2": (
        "0 8 00 8 00 9 00 40 80 80 80 9 00 12 00 15 20 10 00 11 00 12 00 12 "
        "30 80 12 30 14 00 15 0 0 0 0 100 20 14 00"),
    "g365s-006-v3": (
        "120 30 6 00 50 6 00 8 30 30 7 00 12 00 40 10 00 11 00 5 6 00 13 00 "
        "6 00 0 7 46"),
}
