"""g365s-004: the shortest schedule for cooks (or mechanics) sharing ovens (or a lift)."""

import re

from sample.harness import verifies

INF = float("inf")


def best_makespan(tasks: dict, workers) -> int:
    """Exhaustive search. tasks: name -> (minutes, prerequisites, who may do it (empty:
    nobody needed), machines it may use (one of them; empty: none)).

    Each worker and each machine does one thing at a time. Placing the tasks in every
    prerequisite-respecting order, each as early as its worker, machine and prerequisites
    allow, reaches an optimal schedule (list an optimal one by start time)."""
    best = [INF]

    def go(done, free, finish):
        if len(done) == len(tasks):
            best[0] = min(best[0], max(finish.values()))
            return
        for name, (dur, pre, allowed, machines) in tasks.items():
            if name in done or not set(pre) <= done:
                continue
            ready = max([finish[p] for p in pre], default=0)
            for w in (allowed or (None,)):
                for mach in (machines or (None,)):
                    start = max(ready, free.get(w, 0) if w else 0,
                                free.get(mach, 0) if mach else 0)
                    if start + dur >= best[0]:
                        continue
                    f2 = dict(free)
                    if w:
                        f2[w] = start + dur
                    if mach:
                        f2[mach] = start + dur
                    go(done | {name}, f2, {**finish, name: start + dur})
    go(frozenset(), {}, {})
    return best[0]


def kitchen_tasks(q, cooks, ovens_for) -> dict:
    """The numbered task list as printed, read line by line."""
    tasks = {}
    for m in q.findall(r"^(\d+)\. ([^:]+): (\d+), (.+)$"):
        num, what, minutes, rest = int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)
        after = re.search(r"after tasks? ([\d, and]+?)[;,]", rest)
        pre = tuple(int(x) for x in re.findall(r"\d+", after.group(1))) if after else ()
        only = re.search(r"only (\w+) may do it", rest)
        if "needs nobody" in rest:
            who = ()
        else:
            assert "needs one cook" in rest, rest
            who = (only.group(1),) if only else cooks
        machines = ovens_for(what) if "in the oven" in rest else ()
        tasks[num] = (minutes, pre, tuple(w for w in who if w in cooks) or
                      (cooks if who else ()), machines)
    assert sorted(tasks) == list(range(1, len(tasks) + 1))
    return tasks


@verifies("g365s-004")
def _(q):
    q.has("start cooking a dinner together at minute 0 in a kitchen with a single oven")
    return best_makespan(kitchen_tasks(q, ("Ana", "Ben"), lambda what: ("oven",)), ("Ana", "Ben"))


@verifies("g365s-004-v1")
def _(q):
    # Ben is away: the task reserved for him falls to Ana (kitchen_tasks keeps only
    # cooks who are present, and a task left with nobody goes to whoever is there).
    q.has("so Ana must cook a dinner alone, starting at minute 0, in a kitchen with a "
          "single oven", "every task that needs a cook is now done by Ana, including the "
          "task the list reserves for Ben")
    return best_makespan(kitchen_tasks(q, ("Ana",), lambda what: ("oven",)), ("Ana",))


@verifies("g365s-004-v2")
def _(q):
    q.has("the work starts at minute 0")
    kl = ("Kai", "Lena")
    brakes, dry, polish = q.nums(
        "Car A: brake repair, {} minutes on the lift with one mechanic, and only Lena is "
        "certified for brakes; then the brake-paint dries for {} minutes (the car is off the "
        "lift and needs nobody); then a {}-minute polish by either mechanic.")
    parts, tyres, align = q.nums(
        "Car B: its tyres arrive by courier at minute {}; then a tyre change, {} minutes on "
        "the lift with either mechanic; then a wheel alignment, {} minutes with either "
        "mechanic, off the lift.")
    oil, wash = q.nums("Car C: an oil change, {} minutes on the lift with either mechanic; "
                       "then a {}-minute wash that only Kai does")
    shop = {
        "brakes A": (brakes, (), ("Lena",), ("lift",)),
        "dry A": (dry, ("brakes A",), (), ()),
        "polish A": (polish, ("dry A",), kl, ()),
        "parts B": (parts, (), (), ()),               # waiting for the courier
        "tyres B": (tyres, ("parts B",), kl, ("lift",)),
        "align B": (align, ("tyres B",), kl, ()),
        "oil C": (oil, (), kl, ("lift",)),
        "wash C": (wash, ("oil C",), ("Kai",), ()),
    }
    return best_makespan(shop, kl)


@verifies("g365s-004-v3")
def _(q):
    q.has("start cooking a dinner at minute 0",
          "also a small countertop oven that fits only the custard (no other dish fits in it, "
          "and the custard may bake in either oven)")

    def ovens_for(what):
        return ("main oven", "small oven") if "custard" in what else ("main oven",)
    return best_makespan(kitchen_tasks(q, ("Ana", "Ben"), ovens_for), ("Ana", "Ben"))


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-004": (
        "0 1 15 2 20 3 30 2 4 25 3 5 35 1 6 25 1 7 20 8 15 7 9 20 8 10 10 4 "
        "5 6 9"),
    "g365s-004-v1": (
        "0 1 15 2 20 3 30 2 4 25 3 5 35 1 6 25 1 7 20 8 15 7 9 20 8 10 10 4 "
        "5 6 9"),
    "g365s-004-v2": "0 35 25 10 30 20 15 15 20",
    "g365s-004-v3": (
        "0 1 15 2 20 3 30 2 4 25 3 5 35 1 6 25 1 7 20 8 15 7 9 20 8 10 10 4 "
        "5 6 9"),
}
