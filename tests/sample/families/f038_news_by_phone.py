"""g365s-038: spreading news by phone across time zones, where nobody calls while asleep and
each phone carries one call at a time; the fastest plan is found by trying every order of
calls (each call placed as early as it can be)."""

from functools import lru_cache

from sample.harness import minutes, verifies


def friends(q) -> dict[str, int]:
    """name -> clock offset in minutes from the first friend's clock."""
    out = {}
    for m in q.findall(r"^- (\w+): (?:same clock as \w+|(\d+) hours? (ahead of|behind) (\w+))\.$"):
        sign = 1 if m.group(3) == "ahead of" else -1
        out[m.group(1)] = 0 if not m.group(2) else sign * 60 * int(m.group(2))
    return out


def awake_ok(start, length, offset, wake, sleep) -> bool:
    """A call from `start` (reference clock, may exceed a day) fits in the person's waking
    hours wake..sleep (local clock, the same every day)."""
    local = start + offset
    if sleep < wake:                       # awake across midnight (a night shift)
        sleep += 1440
    day_start = (local // 1440) * 1440
    return any(d + wake <= local and local + length <= d + sleep
               for d in (day_start - 1440, day_start))


def earliest(t, length, people, zone, hours):
    """The first moment >= t when a call of `length` suits everyone: t itself or the moment
    someone's waking hours begin (the set of good moments starts at one of those)."""
    starts = {t} | {d + hours[p][0] - zone[p] for p in people
                    for d in range((t // 1440 - 1) * 1440, t + 3 * 1440, 1440)}
    for s in sorted(x for x in starts if x >= t):
        if all(awake_ok(s, length, zone[p], *hours[p]) for p in people):
            return s
    return None


def fastest(zone, first, learns, length, hours, *, group=1, refuse=frozenset(), most=None):
    """The earliest moment (reference clock) when everyone knows, or None. hours: name ->
    (from, to) local clock when that person takes calls; `group`: how many people who do not
    know yet may be on one call; refuse: pairs who never call each other; most: the most
    calls one person may make."""
    names = sorted(zone)

    @lru_cache(maxsize=None)
    def best(free: tuple, made: tuple):
        """free: ((name, moment this informed person is free), ...); the others do not know.
        made: ((name, calls made), ...)."""
        knows, calls = dict(free), dict(made)
        rest = [n for n in names if n not in knows]
        if not rest:
            return max(knows.values())
        result = None
        for caller, at in knows.items():
            if most is not None and calls.get(caller, 0) >= most:
                continue
            for size in range(1, group + 1):
                for callees in combos(rest, size):
                    if any(frozenset((caller, c)) in refuse for c in callees):
                        continue
                    start = earliest(at, length, (caller,) + callees, zone, hours)
                    if start is None:
                        continue
                    end = start + length
                    nxt = dict(knows, **{caller: end}, **{c: end for c in callees})
                    value = best(tuple(sorted(nxt.items())),
                                 tuple(sorted({**calls, caller: calls.get(caller, 0) + 1}.items())))
                    if value is not None:
                        result = value if result is None else min(result, value)
        return result

    return best(((first, learns),), ())


def combos(items, k):
    if k == 0:
        yield ()
        return
    for i, x in enumerate(items):
        for rest in combos(items[i + 1:], k - 1):
            yield (x,) + rest


def clock(minute: int) -> str:
    return f"{minute // 60 % 24:02d}:{minute % 60:02d}"


def setup(q):
    m = q.find(r"^(\w+)(?:, [^,]+,)? has just learned some news at (\d+:\d\d) by (?:her|his) clock")
    first, learns = m.group(1), minutes(m.group(2))
    zone = {first: 0, **friends(q)}
    wake, sleep = q.nums("while awake, from {t} to {t} by their own clock")
    q.has("a call must start and end within those hours for both people on it",
          "Nobody can be on two calls at once.", "once someone knows, they can pass it on")
    length = q.int("lasts exactly {} minutes")
    q.has("at what time by", "Give the time as HH:MM on a 24-hour clock.")
    return zone, first, learns, length, {p: (wake, sleep) for p in zone}


@verifies("g365s-038")
def _(q):
    q.has("Each call is between two people")
    return clock(fastest(*setup(q)))


@verifies("g365s-038-v1")
def _(q):
    # one person keeps other waking hours (a night shift, across midnight)
    m = q.find(r"^(\w+) has just learned some news at (\d+:\d\d) by (?:her|his) clock")
    first, learns = m.group(1), minutes(m.group(2))
    zone = {first: 0, **friends(q)}
    other, wake, sleep = q.nums("Everyone except {w}, ")[0], *q.nums(
        "takes and makes calls only while awake, from {t} to {t} by their own clock.")
    night = q.nums("{w} works night shifts: she is awake from {t} until {t} the next morning "
                   "by her own clock, and takes and makes calls only then.")
    assert night[0] == other and night[2] < night[1]
    q.has("A call must start and end within the waking hours of both people on it.",
          "Nobody can be on two calls at once.", "once someone knows, they can pass it on",
          "Each call is between two people", "at what time by",
          "Give the time as HH:MM on a 24-hour clock.")
    length = q.int("lasts exactly {} minutes")
    hours = {p: (wake, sleep) for p in zone}
    hours[other] = (night[1], night[2])
    return clock(fastest(zone, first, learns, length, hours))


@verifies("g365s-038-v2")
def _(q):
    # conference calls: the caller and one or two people who do not know yet
    q.has("Each call is placed by someone who already knows the news and joins that person "
          "with one or two people who do not (a conference call with two listeners is "
          "allowed)", "tells the news to everyone on it")
    return clock(fastest(*setup(q), group=2))


@verifies("g365s-038-v3")
def _(q):
    q.has("Each call is between two people")
    # the cap binds everyone, Sol too, and only people who know place calls: the solver's
    # model (a caller is always informed; `most` counts every caller's calls)
    q.has("each of the six, Sol included, can make at most two calls",
          "a call is always made by someone who already knows the news to someone who does not")
    return clock(fastest(*setup(q), most=2))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-038": "17 00 7 1 9 8 3 7 00 22 00 30 24",
    "g365s-038-v1": "19 30 2 1 3 3 9 7 00 22 00 22 00 6 00 25 24",
    "g365s-038-v2": "20 30 2 1 1 3 6 7 00 22 00 20 24",
    "g365s-038-v3": "13 00 9 9 8 9 8 7 00 22 00 30 24",
}
