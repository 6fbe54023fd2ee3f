"""g365s-023: journeys on printed timetables with time zones, running days and change
times; every itinerary enumerated on one absolute clock."""

from sample.harness import minutes, verifies


def timetable(q, letter):
    """`R1 (daily): Ardley 06:55 – Bexton 07:40 – ...` lines as printed."""
    out = []
    for m in q.findall(rf"^({letter}\d) \(([^)]*)\): (.+)$"):
        legs = [tuple(part.strip().rsplit(" ", 1)) for part in m.group(3).split("–")]
        out.append((m.group(1), m.group(2), [(s, minutes(t)) for s, t in legs]))
    return out


def journeys(trains, start, end, earliest, min_change, guaranteed=()):
    """(first departure, arrival, trains) for every itinerary; times are absolute."""
    found = []

    def go(station, now, used, first_dep):
        if station == end:
            found.append((first_dep, now, tuple(used)))
            return
        for name, stops in trains:
            if name in used:
                continue
            for i, (s, t) in enumerate(stops[:-1]):
                if s != station:
                    continue
                if used:
                    need = 0 if (used[-1], name) in guaranteed else min_change
                    if t - now < need:
                        continue
                elif t < earliest:
                    continue
                for s2, t2 in stops[i + 1:]:
                    go(s2, t2, used + [name], first_dep if used else t)
    go(start, None, [], None)
    return found


def rail(q, cancelled=()):
    day = q.find(r"from Ardley to Elsfield on a (Saturday|Wednesday)\.").group(1)
    q.has("Ardley and Bexton are in Eastmark; Colm, Dorrin and Elsfield are in Westmark, whose "
          "clocks are exactly one hour behind Eastmark's. Every time in the timetable below is "
          "the local time at that station.", "a listed time is both the arrival and the "
          "departure time there")
    change = q.int("Changing trains at a station needs at least {} minutes")
    weekday = day != "Saturday"
    runs = {"daily": True, "Mon–Fri": weekday, "Sat and Sun": not weekday}
    west = {"Colm", "Dorrin", "Elsfield"}
    trains = [(name, [(s, t + (60 if s in west else 0)) for s, t in stops])
              for name, days, stops in timetable(q, "R") if runs[days] and name not in cancelled]
    return trains, change


def earliest_then_latest(found) -> int:
    arrive = min(a for _, a, _ in found)
    leave = max(d for d, a, _ in found if a == arrive)
    return arrive - leave


def ask(q):
    q.has("She wants to arrive in Elsfield as early as possible, and among the ways to do that "
          "she wants to leave Ardley as late as possible.")
    return q.nums("She can leave Ardley at {t} at the earliest.")[0]


@verifies("g365s-023")
def _(q):
    trains, change = rail(q)
    return earliest_then_latest(journeys(trains, "Ardley", "Elsfield", ask(q), change))


@verifies("g365s-023-v1")
def _(q):
    q.has("All stops are in one town and share one clock", "those days refer to the calendar day "
          "on which the bus leaves its first stop; times after midnight belong to the next "
          "calendar day", "on a Friday evening", "a listed time is both arrival and departure")
    change = q.int("changing buses needs at least {} minutes")
    runs = {"daily": lambda d: True, "Fridays": lambda d: d == "Fri",
            "Mondays to Fridays": lambda d: d != "Sat", "Saturdays": lambda d: d == "Sat"}
    trains = []
    for name, days, stops in timetable(q, "N"):
        # minutes from Friday 00:00; a time before noon on a night bus is after midnight
        times = [(s, t + (1440 if t < 720 else 0)) for s, t in stops]
        if runs[days]("Fri" if times[0][1] < 1440 else "Sat"):
            trains.append((name, times))
    earliest = q.nums("He can leave Harbor at {t} at the earliest.")[0]
    q.has("He wants to reach Tollgate as early as possible, and among the ways to do that he "
          "wants to leave Harbor as late as possible.")
    return earliest_then_latest(journeys(trains, "Harbor", "Tollgate", earliest, change))


@verifies("g365s-023-v2")
def _(q):
    trains, change = rail(q)
    deadline = q.nums("she must be in Elsfield by {t} by her watch")[0]
    q.has("Her watch stays on Ardley time", "She wants to leave Ardley as late as possible.")
    origin, example, value = q.nums("the number of minutes after {t} Ardley time (for example "
                                    "{t} would be {})")
    assert example - origin == value
    found = journeys(trains, "Ardley", "Elsfield", 0, change)
    return max(d for d, a, _ in found if a <= deadline) - origin


@verifies("g365s-023-v3")
def _(q):
    cancelled = q.find(r"(R\d) is cancelled for engineering works").group(1)
    trains, change = rail(q, cancelled={cancelled})
    m = q.find(r"(R\d) waits for (R\d) at Dorrin, so passengers can change from \2 to \1 there")
    q.has("every other change still needs at least 6 minutes")
    found = journeys(trains, "Ardley", "Elsfield", ask(q), change,
                     guaranteed={(m.group(2), m.group(1))})
    return earliest_then_latest(found)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-023": (
        "6 1 06 55 07 40 07 35 08 40 2 07 20 07 20 08 05 3 07 48 07 50 08 "
        "35 4 07 35 08 10 08 00 5 08 05 08 30 6 07 45 08 20 7 07 50 08 55 "
        "06 50"),
    "g365s-023-v1": (
        "5 1 22 40 23 25 00 10 01 30 2 23 15 00 05 00 50 3 00 55 01 00 4 00 "
        "20 01 05 5 23 30 00 40 01 45 22 30"),
    "g365s-023-v2": (
        "6 1 06 55 07 40 07 35 08 40 2 07 20 07 20 08 05 3 07 48 07 50 08 "
        "35 4 07 35 08 10 08 00 5 08 05 08 30 6 07 45 08 20 7 07 50 08 55 "
        "09 45 07 00 07 12 12"),
    "g365s-023-v3": (
        "6 1 06 55 07 40 07 35 08 40 2 07 20 07 20 08 05 3 07 48 07 50 08 "
        "35 4 07 35 08 10 08 00 5 08 05 08 30 6 07 45 08 20 7 07 50 08 55 6 "
        "5 4 4 5 6 06 50"),
}
