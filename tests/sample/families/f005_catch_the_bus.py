"""g365s-005: which walking speeds (or departure times) get Mira to school on time.

Exact sets: the rules can change their verdict only where Mira reaches the stop exactly as
a bus arrives or leaves (or as the waiting window opens), or reaches school exactly at the
deadline; `solve_set` tests those points and every gap between them."""

from fractions import Fraction

from sample.harness import solve_set, verifies


def on_time(at_stop, walk_on, buses, stay, ride, deadline, wait_limit=None) -> bool:
    """at_stop: when she reaches the stop; walk_on: when she would reach school on foot."""
    for a in buses:
        if a <= at_stop <= a + stay:
            return a + stay + ride <= deadline
    if wait_limit is not None:
        for a in buses:
            if at_stop < a <= at_stop + wait_limit:
                return a + stay + ride <= deadline
    return walk_on <= deadline


def read_common(q):
    buses = q.nums("Buses arrive at the stop at exactly {t}, {t} and {t} (no other")
    stay = q.int("each stays exactly {} minute")
    deadline = q.nums("at or before {t}")[0]
    return buses, stay, deadline


@verifies("g365s-005")
def _(q):
    start = q.nums("leaves home at exactly {t}")[0]
    q.has("(v > 0)")
    to_stop = q.num("to a bus stop {} km away")
    beyond = q.num("to her school, {} km beyond the stop")
    buses, stay, deadline = read_common(q)
    ride = q.int("Every bus takes exactly {} minutes from its departure")

    def member(v):   # km/h; times in minutes of the day
        return on_time(start + 60 * to_stop / v, start + 60 * (to_stop + beyond) / v,
                       buses, stay, ride, deadline)
    critical = [Fraction(60 * to_stop, t - start) for a in buses for t in (a, a + stay)]
    critical.append(Fraction(60 * (to_stop + beyond), deadline - start))
    return solve_set(member, 0, None, critical, lo_included=False)


@verifies("g365s-005-v1")
def _(q):
    start = q.nums("leaves home at exactly {t}")[0]
    q.has("(v > 0)")
    to_stop = q.num("to a bus stop {} km away")
    beyond = q.num("to her school, {} km beyond the stop")
    buses, stay, deadline = read_common(q)
    ride = q.int("it reaches the school exactly {} minutes after it departs")
    wait = q.int("if the next bus is due to arrive within {} minutes (inclusive)")

    def member(v):
        return on_time(start + 60 * to_stop / v, start + 60 * (to_stop + beyond) / v,
                       buses, stay, ride, deadline, wait_limit=wait)
    critical = [Fraction(60 * to_stop, t - start) for a in buses
                for t in (a, a + stay, a - wait) if t > start]
    critical.append(Fraction(60 * (to_stop + beyond), deadline - start))
    return solve_set(member, 0, None, critical, lo_included=False)


@verifies("g365s-005-v2")
def _(q):
    lo, hi = q.nums("{} <= v <= {}")
    q.has("passes the starting line at exactly 12:00:00")
    lights = []   # (metres, green from, green until) in seconds past the minute
    for m in q.findall(r"^- Light [ABC], (\d+) m past the start: green from (\d+) s "
                       r"(?:to (\d+) s past the minute|past one minute until (\d+) s past the "
                       r"next minute), red otherwise\.$"):
        until = int(m.group(3) or m.group(4)) + (60 if m.group(4) else 0)
        lights.append((int(m.group(1)), int(m.group(2)), until))
    q.has("repeating the same pattern every minute")
    assert len(lights) == 3

    def green(t, start, until):   # start included, the red instant excluded
        return (t - start) % 60 < until - start

    def member(v):
        return all(green(Fraction(x) / v, s, u) for x, s, u in lights)
    critical = [Fraction(x, 60 * k + edge) for x, s, u in lights
                for k in range(int(x / lo / 60) + 2) for edge in (s, u) if 60 * k + edge > 0]
    return solve_set(member, lo, hi, critical)


@verifies("g365s-005-v3")
def _(q):
    speed = q.num("always walks at exactly {} km/h")
    earliest, latest = q.nums("at some moment between {t} and {t} inclusive")
    to_stop = q.num("to a bus stop {} km away")
    beyond = q.num("to her school, {} km beyond the stop")
    buses, stay, deadline = read_common(q)
    ride = q.int("it reaches the school exactly {} minutes after it departs")
    origin = q.nums("her departure time measured in minutes after {t}")[0]
    lo, hi = q.nums("(so {} <= d <= {})")
    assert (lo, hi) == (earliest - origin, latest - origin)
    walk1, walk_all = 60 * to_stop / speed, 60 * (to_stop + beyond) / speed

    def member(d):
        leave = origin + d
        return on_time(leave + walk1, leave + walk_all, buses, stay, ride, deadline)
    critical = [a + x - origin - walk1 for a in buses for x in (0, stay)]
    critical.append(deadline - origin - walk_all)
    return solve_set(member, lo, hi, critical)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-005": "7 40 0 2 3 8 00 8 12 8 24 1 15 8 30",
    "g365s-005-v1": "7 40 0 2 2 5 8 00 8 12 8 24 1 15 5 8 30",
    "g365s-005-v2": "3 10 12 00 00 200 20 50 400 45 20 1300 40 10 3 10",
    "g365s-005-v3": "5 7 00 8 00 2 3 8 00 8 12 8 24 1 15 8 30 7 00 0 60",
}
