"""g365s-025: fares that jump at every started unit and drop with a long-trip discount;
exact sets of trip lengths (or prices).

A fare is constant between the points where a new unit starts or the discount begins, so
`solve_set` needs only those points; for the price p, each fare is linear in p and the
crossing points are solved exactly."""

from fractions import Fraction

from sample.harness import ceil, crossings, solve_set, verifies


def taxi(q, *, per_unit=None):
    base, free = q.nums("Tarrow taxis charge ${} for any trip of up to {} km")
    if per_unit is None:
        per_unit = q.num("Beyond the first 2 km the meter adds ${} for each started")
    else:
        q.has("Beyond the first 2 km the meter adds p dollars for each started")
    unit = Fraction(int(q.find(r"for each started (\d+) m\b").group(1)), 1000)
    over, discount = q.nums("Trips strictly longer than {} km get a ${} discount on the total "
                            "fare.")

    def fare(d, p=per_unit, extra=0):
        units = 0 if d <= free else ceil((d - free) / unit)
        total = base + p * units + extra
        return total - discount if d > over else total
    breaks = [free + k * unit for k in range(0, 200)] + [over]
    return fare, breaks


def check_examples(q, fare):
    for m in q.findall(r"a (\d+(?:\.\d+)?) km trip costs \$(\d+\.\d\d)"):
        assert fare(Fraction(m.group(1))) == Fraction(m.group(2)), m.group(0)


@verifies("g365s-025")
def _(q):
    fare, breaks = taxi(q)
    check_examples(q, fare)
    q.has("(in km, d > 0)")
    limit = q.num("is the fare at most ${}?")
    return solve_set(lambda d: fare(d) <= limit, 0, None, breaks, lo_included=False)


@verifies("g365s-025-v1")
def _(q):
    q.has("(in GB, u > 0)")
    a_base, a_free, a_unit, cap = q.nums(
        "Plan A: ${} covers the first {} GB (or any part of it); beyond 2 GB, ${} for each "
        "started GB; but a month never costs more than ${} in total.")
    b_base, b_free, b_unit, b_step = q.nums(
        "Plan B: ${} covers any use up to {} GB; beyond 6 GB, ${} for each started {} GB; there "
        "is no cap.")

    def plan_a(u):
        return a_base if u <= a_free else min(cap, a_base + a_unit * ceil(u - a_free))

    def plan_b(u):
        return b_base if u <= b_free else b_base + b_unit * ceil((u - b_free) / b_step)
    breaks = [a_free + k for k in range(60)] + [b_free + k * b_step for k in range(120)]
    q.has("Plan B strictly cheaper than Plan A")
    return solve_set(lambda u: plan_b(u) < plan_a(u), 0, None, breaks, lo_included=False)


@verifies("g365s-025-v2")
def _(q):
    # waiting time grows with the distance: one minute per started kilometre
    fare, breaks = taxi(q)
    check_examples(q, fare)
    wait_price, block = q.nums("${} for each started {} minutes the taxi stands still")
    q.has("(this is added before any discount)")
    per_km = q.int("the taxi stands still for {} minute in every started kilometre")

    def standing(d):
        return per_km * ceil(d)
    for m in q.findall(r"a (\d+(?:\.\d+)?) km trip has (\d+)"):
        assert standing(Fraction(m.group(1))) == int(m.group(2)), m.group(0)

    def total(d):
        return fare(d, extra=wait_price * ceil(Fraction(standing(d), block)))
    q.has("(in km, d > 0)")
    limit = q.num("is the fare at most ${}?")
    return solve_set(lambda d: total(d) <= limit, 0, None, breaks + list(range(0, 100)),
                     lo_included=False)


@verifies("g365s-025-v3")
def _(q):
    fare, _ = taxi(q, per_unit=0)
    short, most = q.nums("(i) a {} km trip costs at most ${}")
    long, least = q.nums("(ii) a {} km trip costs at least ${}")
    q.has("the price p > 0")

    def ok(p):
        return fare(short, p) <= most and fare(long, p) >= least
    top = Fraction(1000)
    crit = (crossings(lambda p: fare(short, p), 0, top, [(0, top)], [most])
            | crossings(lambda p: fare(long, p), 0, top, [(0, top)], [least]))
    return solve_set(ok, 0, None, crit, lo_included=False)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-025": "3 20 2 2 0 60 500 2 1 3 80 3 4 40 10 3 00 0 10 40",
    "g365s-025-v1": "0 5 2 2 3 20 12 6 6 1 0 5",
    "g365s-025-v2": (
        "3 20 2 2 0 60 500 2 1 3 80 3 4 40 10 3 00 0 30 3 1 2 5 3 3 3 0 12 50"),
    "g365s-025-v3": "3 20 2 2 500 10 3 00 0 7 3 10 40 12 2 10 40",
}
