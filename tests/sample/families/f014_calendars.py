"""g365s-014: an alien calendar whose festival days sit outside the week, and a school's
timetable cycle that skips holidays but not a lost snow day."""

import datetime as dt
import re

from sample.harness import verifies

WEEK = ("Ardo", "Belo", "Cido", "Dado", "Edo", "Fado")


def quell(q):
    """(year, month, day, festival?) for years 1..12, as the question's rules build them."""
    months = q.int("the calendar has {} months")
    first, last, per = q.nums("Months {} to {} have {} days each")
    assert (first, last) == (1, months - 1)
    ordinary = q.int(f"Month {months} has {{}} ordinary days")
    assert ordinary == per
    q.has(f"(day {per + 1}, and in leap years also day {per + 2}, of month {months})")
    by4, by10 = q.nums("divisible by {}, except that a year whose number is divisible by {} is "
                       "never a leap year")
    q.has("a six-day week whose days, in order, are " + ", ".join(WEEK)
          + ", after which Ardo comes again")
    days = []
    for y in range(1, 13):
        leap = y % by4 == 0 and y % by10 != 0
        for m in range(1, months + 1):
            extra = (1 + leap) if m == months else 0
            days += [(y, m, d, d > per) for d in range(1, per + 1 + extra)]
    return days


def weekdays(days, anchor=None, anchor_name=None, *, festivals_in_week, reset_each_year):
    idx, k, year = [], 0, None
    for y, m, d, fest in days:
        if reset_each_year and y != year:
            k, year = 0, y
        if fest and not festivals_in_week:
            idx.append(None)
            continue
        idx.append(k)
        k += 1
    if reset_each_year:
        return [None if v is None else v % 6 for v in idx]
    pos = [i for i, day in enumerate(days) if day[:3] == anchor][0]
    shift = WEEK.index(anchor_name) - idx[pos]
    return [None if v is None else (v + shift) % 6 for v in idx]


def outside_the_week(q, days):
    q.has("Festival Days are outside the week: they have no weekday name and do not move the "
          "week forward", "The weeks otherwise run on without interruption from one year into "
          "the next.", "the first day after the Festival Days gets the weekday that follows the "
          "weekday of day 28 of month 13")
    d, m, y, name = q.nums("Day {} of month {} of year {} was an {w}.")
    return weekdays(days, (y, m, d), name, festivals_in_week=False, reset_each_year=False)


def count_between(q, days, wd, name):
    d1, m1, y1, d2, m2, y2 = q.nums("from day {} of month {} of year {} through day {} of "
                                    "month {} of year {}, both days included")
    keys = [x[:3] for x in days]
    lo, hi = keys.index((y1, m1, d1)), keys.index((y2, m2, d2))
    return sum(wd[i] == WEEK.index(name) for i in range(lo, hi + 1))


@verifies("g365s-014")
def _(q):
    days = quell(q)
    wd = outside_the_week(q, days)
    name = q.find(r"How many (\w+)s are there from").group(1)
    return count_between(q, days, wd, name)


@verifies("g365s-014-v1")
def _(q):
    days = quell(q)
    q.has("Festival Days on Quell are ordinary members of the week: each has a weekday name and "
          "moves the week forward like any other day", "The weeks run on without interruption "
          "from one year into the next.")
    d, m, y, name = q.nums("Day {} of month {} of year {} was an {w}.")
    wd = weekdays(days, (y, m, d), name, festivals_in_week=True, reset_each_year=False)
    year, months, date, name = q.nums("In year {}, in how many of the {} months does the {}th "
                                      "day of the month fall on a {w}?")
    return sum(1 for (y, m, d, _), w in zip(days, wd)
               if y == year and d == date and w == WEEK.index(name))


@verifies("g365s-014-v2")
def _(q):
    days = quell(q)
    q.has("the week is restarted every New Year: day 1 of month 1 of every year is an Ardo",
          "Festival Days are ordinary members of the week")
    wd = weekdays(days, festivals_in_week=True, reset_each_year=True)
    name = q.find(r"How many (\w+)s are there from").group(1)
    return count_between(q, days, wd, name)


MONTHS = ("January February March April May June July August September October November "
          "December").split()
DATE = r"(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday) (\d+) (\w+) (\d{4})"


def parse_date(m, at=0) -> dt.date:
    wday, d, month, y = m.groups()[at:at + 4]
    date = dt.date(int(y), MONTHS.index(month) + 1, int(d))
    assert date.strftime("%A") == wday, f"{date} is not a {wday}"
    return date


@verifies("g365s-014-v3")
def _(q):
    cycle = q.int("uses a {}-day timetable cycle")
    q.has(f"Day 1, Day 2, ..., Day {cycle}, then Day 1 again", "(for example 4 for Day 4)")
    q.has("advances by one on every day the school is scheduled to be open (Monday to Friday)")
    start = parse_date(q.find(DATE + r" was Day 1\."))
    holidays = set()
    listed = q.find(r"The holidays were (.+?)\. In addition").group(1)
    week = re.search(r"the whole week (\w+) (\d+) (\w+) to (\w+) (\d+) (\w+) (\d{4})", listed)
    a = dt.date(int(week.group(7)), MONTHS.index(week.group(3)) + 1, int(week.group(2)))
    b = dt.date(int(week.group(7)), MONTHS.index(week.group(6)) + 1, int(week.group(5)))
    assert (a.strftime("%A"), b.strftime("%A")) == (week.group(1), week.group(4))
    holidays |= {a + dt.timedelta(i) for i in range((b - a).days + 1)}
    for m in re.finditer(DATE, listed):
        holidays.add(parse_date(m))
    snow = parse_date(q.find(r"closed unexpectedly for snow on " + DATE), at=0)
    q.has("the timetable day planned for that date was simply lost (the next school day got "
          "the following label, as if the snow day had taken place)")
    target = parse_date(q.find(r"Which timetable day was " + DATE))

    def label(lost_day_counts: bool) -> int:
        day, n = start, 1
        while day < target:
            day += dt.timedelta(1)
            scheduled = day.weekday() < 5 and day not in holidays
            if scheduled and (day != snow or lost_day_counts):
                n = n % cycle + 1
        return n

    assert snow.weekday() < 5 and snow not in holidays and start < snow < target
    # The snow day was a scheduled school day, so its label is used up; skipping it as a
    # holiday (the trap) would give another answer.
    assert label(True) != label(False)
    return label(True)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-014": "13 1 12 28 13 28 29 30 13 4 10 28 13 1 1 8 10 3 7 20 13 9",
    "g365s-014-v1": "13 1 12 28 13 28 29 30 13 4 10 1 1 8 9 13 13",
    "g365s-014-v2": "13 1 12 28 13 28 29 30 13 4 10 1 1 10 3 7 29 13 9",
    "g365s-014-v3": "10 1 2 10 1 2 2024 1 14 2024 28 1 2024 11 2024 21 2024 13 2024 4 4",
}
