"""g365s-018: meetings on a 9-day (or 10-day) cycle, moved off weekends and cancelled in
one month; counted by walking through the year with real dates."""

import calendar
import datetime as dt

from sample.harness import verifies

MONTHS = ("January February March April May June July August September October November "
          "December").split()
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()


def held(first, step, move, cancelled, *, restart=False) -> list[dt.date]:
    """Dates of first.year on which a meeting is actually held."""
    s, out = first, []
    while s.year == first.year:
        a = move(s)
        if a.year == first.year and not cancelled(a):
            out.append(a)
        s = (a if restart else s) + dt.timedelta(days=step)
    return out


def check_new_year(q, year):
    (name,) = q.nums(f"1 January {year} is a {{w}}.")
    assert DAYS[dt.date(year, 1, 1).weekday()] == name


def club(q):
    q.has("Tern Street chess club")
    m = q.find(r"meets (?:every (\d+) days|on a (\d+)-day cycle in (\d{4}))")
    step = int(m.group(1) or m.group(2))
    year = int(m.group(3) or q.find(r"In (\d{4}) the first meeting").group(1))
    m = q.find(r"[Tt]he first meeting is on (\w+) (\d+) (\w+)")
    first = dt.date(year, MONTHS.index(m.group(3)) + 1, int(m.group(2)))
    assert DAYS[first.weekday()] == m.group(1)
    check_new_year(q, year)
    q.find(r"[Aa] meeting scheduled on a Sunday is held on the following Monday instead")
    off = q.find(r"never meets in (\w+), so any meeting that would be held in \1 is cancelled")
    q.has(f"Only meetings actually held during {year} count")

    def move(d):
        return d + dt.timedelta(days=1) if d.weekday() == 6 else d
    return first, step, move, lambda d: d.month == MONTHS.index(off.group(1)) + 1


def check_listed(q, first, step):
    for i, m in enumerate(q.findall(r"\((\d+) (\w+), (\d+) (\w+), (\d+) (\w+), and so on "
                                    r"through the year\)")):
        for k in range(3):
            d = first + dt.timedelta(days=step * k)
            assert (int(m.group(2 * k + 1)), m.group(2 * k + 2)) == (d.day, MONTHS[d.month - 1])


@verifies("g365s-018")
def _(q):
    first, step, move, cancelled = club(q)
    check_listed(q, first, step)
    q.has("further meetings are scheduled every 9 days after that", "The schedule itself never "
          "shifts")
    q.has("How many meetings are held on a Monday during 2028?")
    return sum(d.weekday() == 0 for d in held(first, step, move, cancelled))


@verifies("g365s-018-v1")
def _(q):
    # two cycles at once: the days on which at least one inspection is carried out
    q.has("A harbour ferry has two inspection cycles in 2027.", "The schedules themselves never "
          "shift", "an inspection scheduled on a Saturday or a Sunday is carried out on the "
          "Friday just before it", "When a hull inspection and an engine inspection are carried "
          "out on the same day, the inspector comes once that day.")
    off = q.find(r"no inspections are carried out in (\w+), so any inspection that would be "
                 r"carried out in \1 is cancelled")

    def move(d):
        return d - dt.timedelta(days=d.weekday() - 4) if d.weekday() >= 5 else d
    days = set()
    for part in ("hull", "engine"):
        step = q.int(f"The {part} is inspected on a {{}}-day cycle")
        wday, day, month, year = q.nums(f"the first {part} inspection is scheduled for {{w}} {{}} "
                                        f"{{w}} {{}}")
        first = dt.date(year, MONTHS.index(month) + 1, day)
        assert DAYS[first.weekday()] == wday and year == 2027
        assert q.int(f"further {part} inspections are scheduled every {{}} days after that") == step
        days |= set(held(first, step, move, lambda d: d.month == MONTHS.index(off.group(1)) + 1))
    check_new_year(q, 2027)
    q.has("On how many different days of 2027 does the inspector come?")
    return len(days)


@verifies("g365s-018-v2")
def _(q):
    first, step, move, cancelled = club(q)
    q.has("Each later meeting is scheduled 9 days after the day on which the previous meeting "
          "was held (or, if that meeting was cancelled, the day on which it would have been "
          "held)", "and that Monday counts as the day it was held")
    q.has("How many meetings are held on a Monday during 2028?")
    return sum(d.weekday() == 0 for d in held(first, step, move, cancelled, restart=True))


@verifies("g365s-018-v3")
def _(q):
    step, year = q.nums("visits the village of Pell on a {}-day cycle in {}")
    wday, day, month = q.nums("The first visit is on {w} {} {w}")
    first = dt.date(year, MONTHS.index(month) + 1, day)
    assert DAYS[first.weekday()] == wday
    assert q.int("further visits are scheduled every {} days after that") == step
    check_new_year(q, year)
    q.has("the schedule itself never shifts", "A visit scheduled on a Saturday or a Sunday takes "
          "place on the Friday just before it instead.", f"Only visits that actually take place "
          f"during {year} count.")
    off = q.find(r"serviced during the whole of (\w+), so any visit that would take place in \1 "
                 r"is cancelled")

    def move(d):
        return d - dt.timedelta(days=d.weekday() - 4) if d.weekday() >= 5 else d
    dates = held(first, step, move, lambda d: d.month == MONTHS.index(off.group(1)) + 1)
    days = q.int("How many visits take place in months that have exactly {} days?")
    return sum(calendar.monthrange(d.year, d.month)[1] == days for d in dates)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-018": "9 2028 6 9 6 15 24 2028 1 2028 2028",
    "g365s-018-v1": "2027 10 4 2027 10 14 14 2027 14 1 2027 2027",
    "g365s-018-v2": "9 2028 6 9 2028 1 2028 2028",
    "g365s-018-v3": "9 2028 6 9 2028 1 2028 30",
}
