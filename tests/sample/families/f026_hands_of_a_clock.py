"""g365s-026: when the hands of a clock (12-hour or 24-hour dial) are close, far apart, or
in some half of the dial; exact sets.

Both hands turn at constant speeds, so each condition can change only where the angle
between them, or the minute hand, passes one of a few angles; those instants are solved
exactly and `solve_set` tests each of them and every gap between."""

from fractions import Fraction
from math import floor

from sample.harness import solve_set, verifies


def gap(t, hour_start, hour_speed) -> Fraction:
    """The clockwise angle from the hour hand to the minute hand, in [0, 360)."""
    return (6 * t - (hour_start + hour_speed * t)) % 360


def smaller_angle(t, hour_start, hour_speed) -> Fraction:
    d = gap(t, hour_start, hour_speed)
    return min(d, 360 - d)


def instants(hour_start, hour_speed, angles, until):
    """Every t in [0, until] where the clockwise gap equals an angle or 360 minus it (and 0,
    180: where the smaller angle folds), or the minute hand is at a quarter of the dial."""
    rel = 6 - hour_speed
    pts = [Fraction(15 * k) for k in range(0, until // 15 + 1)]
    for k in range(-2, until // 50 + 3):
        for a in tuple(angles) + (0, 180):
            for x in (a, 360 - a):
                pts.append((x + 360 * k + hour_start) / rel)
    return pts


def twelve_hour(q):
    q.has("An ordinary analogue clock has a 12-hour dial and both hands move continuously.")
    start = q.nums("Let t be the number of minutes after {t}")[0]
    hi = q.int("with $0 \\le t \\le {}$")
    end = q.nums("(so up to {t})")[0]
    assert end - start == hi and start < 12 * 60
    return Fraction(start % 720, 2), Fraction(1, 2), hi


def minute_in(t, lo_deg, hi_deg) -> bool:
    m = (6 * t) % 360
    return lo_deg <= m <= hi_deg if lo_deg <= hi_deg else (m >= lo_deg or m <= hi_deg)


HALF = {("9", "3", "12"): (270, 90), ("3", "9", "6"): (90, 270)}


def half_of_dial(q):
    m = q.find(r"points? into the (upper|lower) half of the dial, (?:that is, )?at or between the "
               r"(\d+) and the (\d+), passing through the (\d+)")
    return HALF[m.groups()[1:]]


def smaller(q):
    q.has("The angle between the hands means the smaller angle, from 0° to 180°.")


@verifies("g365s-026")
def _(q):
    h0, hs, hi = twelve_hour(q)
    smaller(q)
    most = q.int("the angle between the hour hand and the minute hand is at most {}°")
    lo_deg, hi_deg = half_of_dial(q)
    return solve_set(lambda t: smaller_angle(t, h0, hs) <= most and minute_in(t, lo_deg, hi_deg),
                     0, hi, instants(h0, hs, (most,), hi))


@verifies("g365s-026-v1")
def _(q):
    q.has("A designer clock has a 24-hour dial: its hour hand makes one full turn every 24 "
          "hours, pointing straight up at midnight and straight down at noon.",
          "one full turn every hour, pointing straight up on the hour")
    start = q.nums("Let t be the number of minutes after {t} (noon)")[0]
    hi = q.int("with $0 \\le t \\le {}$")
    smaller(q)
    h0, hs = Fraction(start, 4), Fraction(1, 4)       # 360 degrees per 1440 minutes
    assert start == 12 * 60 and h0 == 180
    most = q.int("For which t is the angle between the hands at most {}°?")
    return solve_set(lambda t: smaller_angle(t, h0, hs) <= most, 0, hi,
                     instants(h0, hs, (most,), hi))


@verifies("g365s-026-v2")
def _(q):
    # the minute hand jumps at the end of each minute; the hour hand moves continuously
    q.has("a 12-hour dial", "Its hour hand moves continuously, but its minute hand jumps: it "
          "stands still during each minute and jumps forward by one minute mark")
    step = q.int("by one minute mark ({}°) at the instant the minute ends")
    assert step == 6
    start, end = q.nums("at some moment between {t} and {t}.")
    assert q.nums("Let t be the number of minutes after {t}")[0] == start
    hi = q.int("with $0 \\le t \\le {}$")
    assert end - start == hi
    at, mark, until = q.nums("so at exactly {t} it already points at the {}-minute mark and "
                             "stays there until {t}.")
    assert at % 60 == mark and until == at + 1 and start <= at <= end
    h0, hs = Fraction(start % 720, 2), Fraction(1, 2)
    least = q.int("the smaller angle between the hour hand and the minute hand (a value from 0° "
                  "to 180°) must be at least {}°")
    lo_deg, hi_deg = half_of_dial(q)

    def ok(t):
        shown = Fraction(floor(start % 60 + t))   # the minute mark the hand points at
        d = (6 * shown - (h0 + hs * t)) % 360
        return min(d, 360 - d) >= least and minute_in(shown, lo_deg, hi_deg)
    crit = [Fraction(k) for k in range(hi + 1)]
    for m in range(start % 60, start % 60 + hi + 1):   # where the angle to mark m crosses
        for k in range(-3, 4):                          # `least`
            for a in (least, 360 - least):
                crit.append((6 * m + 360 * k - a - h0) / hs)
    return solve_set(ok, 0, hi, crit)


@verifies("g365s-026-v3")
def _(q):
    h0, hs, hi = twelve_hour(q)
    q.has("Measure the angle clockwise from the hour hand to the minute hand (a value from 0° up "
          "to, but not including, 360°")
    at, example = q.nums("for example at {t} it is {}°")
    assert gap(0, Fraction(at % 720, 2), hs) == example
    most = q.int("For which t is this clockwise angle at most {}°?")
    return solve_set(lambda t: gap(t, h0, hs) <= most, 0, hi, instants(h0, hs, (most,), hi))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-026": "12 2 00 0 120 4 00 0 180 30 9 3 12",
    "g365s-026-v1": "24 24 12 00 0 180 0 180 30",
    "g365s-026-v2": "12 2 30 4 00 6 2 46 46 2 47 0 180 150 3 9 6 2 30 0 90",
    "g365s-026-v3": "12 2 00 0 120 4 00 0 360 3 00 270 90",
}
