"""g365s-030: five people, five time slots and two more attributes, tied by clues.

Each numbered clue is parsed from the question into a test on an assignment (a person, a
place or topic, and an item per slot), in the story's own words: trains and towns, talks
and teaching aids, hikers and summits. Every assignment is tried (with pruning by layer)."""

import itertools
import re

from sample.harness import minutes, verifies

NAME = r"[A-Z][a-z]+"


class Story:
    """The entities of one question and how its sentences refer to them."""

    def __init__(self, people, places, items, times):
        self.people, self.places, self.items, self.times = people, places, items, times
        self.gap = times[1] - times[0]
        assert all(b - a == self.gap for a, b in zip(times, times[1:]))

    def ref(self, phrase: str):
        """(layer, value) for a noun phrase: 'p' person, 't' place/topic, 'i' item."""
        phrase = re.sub(r"^[Tt]he ", "", phrase)
        phrase = re.sub(r"'s (?:train|talk)$", "", phrase)
        for pat in (r"(?:train to|person going to|hiker bound for|talk on) (\w+)", r"(\w+) train",
                    r"(\w+) talk"):
            if (m := re.fullmatch(pat, phrase)) and m.group(1) in self.places:
                return ("t", m.group(1))
        for pat in (r"(?:person|hiker|talk) with the (\w+)", r"(\w+)", r"(\w+)'s train",
                    r"(\w+) talk", r"talk on (\w+)"):
            if (m := re.fullmatch(pat, phrase)) and m.group(1) in self.items:
                return ("i", m.group(1))
        if phrase in self.people:
            return ("p", phrase)
        raise AssertionError(f"unknown reference {phrase!r}")

    def slot_of(self, clock: str) -> int:
        return self.times.index(minutes(clock))


def at(s, ref):
    layer, value = ref
    return s[layer].index(value)


VERB = r"(?:leaves|starts|speaks|comes)"


def clause(story: Story, text: str):
    """(layers it reads, test) for one clause."""
    R = story.ref
    forms = [
        (r"Either (.+), or (.+), but not both", "xor"),
        (rf"(.+) {VERB} exactly (\d+) minutes after (.+)", "after_by"),
        (r"(.+) and (.+) (?:leave|start) exactly (\d+) minutes apart", "apart"),
        (rf"(.+) {VERB} (before|after|earlier than) (.+)", "order"),
        (r"(.+) (?:is on the|is used at|leaves at) (\d+:\d\d)(?: train)? or "
         r"(?:on the |at )(\d+:\d\d)(?: train)?", "one_of"),
        (r"(.+) (?:is on the|is used at|leaves at) (\d+:\d\d)(?: train)?", "when"),
        (r"(.+) (?:is not on the|does not speak at) (\d+:\d\d)(?: train)?", "not_when"),
        (r"(.+) (?:carries|uses) the (\w+)", "same"),
        (r"(.+) (?:does not carry|does not use) the (\w+)", "differ"),
        (r"(.+) and (.+) are different people", "differ2"),
        (r"(.+) is (.+)", "same2"),
    ]
    for regex, kind in forms:
        m = re.fullmatch(regex, text)
        if not m:
            continue
        g = m.groups()
        if kind == "xor":
            (la, fa), (lb, fb) = clause(story, g[0]), clause(story, g[1])
            return la | lb, lambda s: fa(s) != fb(s)
        if kind == "after_by":
            a, n, b = R(g[0]), int(g[1]), R(g[2])
            assert n % story.gap == 0
            return {a[0], b[0]}, lambda s: at(s, a) == at(s, b) + n // story.gap
        if kind == "apart":
            a, b, n = R(g[0]), R(g[1]), int(g[2])
            return {a[0], b[0]}, lambda s: abs(at(s, a) - at(s, b)) == n // story.gap
        if kind == "order":
            a, rel, b = R(g[0]), g[1], R(g[2])
            if rel == "after":
                return {a[0], b[0]}, lambda s: at(s, a) > at(s, b)
            return {a[0], b[0]}, lambda s: at(s, a) < at(s, b)
        if kind == "one_of":
            a, i, j = R(g[0]), story.slot_of(g[1]), story.slot_of(g[2])
            return {a[0]}, lambda s: at(s, a) in (i, j)
        if kind == "when":
            a, i = R(g[0]), story.slot_of(g[1])
            return {a[0]}, lambda s: at(s, a) == i
        if kind == "not_when":
            a, i = R(g[0]), story.slot_of(g[1])
            return {a[0]}, lambda s: at(s, a) != i
        if kind in ("same", "same2"):
            a, b = R(g[0]), R(g[1])
            return {a[0], b[0]}, lambda s: at(s, a) == at(s, b)
        a, b = R(g[0]), R(g[1])
        return {a[0], b[0]}, lambda s: at(s, a) != at(s, b)
    raise AssertionError(f"unknown clue {text!r}")


def clue(story, text: str):
    """A numbered clue: one clause, or two joined by ', and' with the subject repeated."""
    text = text.rstrip(".")
    if not text.startswith("Either") and ", and " in text:
        parts = text.split(", and ")
        tests = [clause(story, p) for p in parts]
        return set().union(*(t[0] for t in tests)), lambda s: all(t[1](s) for t in tests)
    return clause(story, text)


def solve(story, clues, limit=2):
    # Fill first the two layers that the most clues read on their own (prunes earliest).
    layers = max(itertools.permutations("pti"),
                 key=lambda order: sum(need <= set(order[:2]) for need, _ in clues))
    values = {"p": story.people, "t": story.places, "i": story.items}
    found = []

    def go(k, s):
        if len(found) >= limit:
            return
        if k == 3:
            found.append(dict(s))
            return
        key = layers[k]
        for perm in itertools.permutations(values[key]):
            s[key] = perm
            if all(f(s) for need, f in clues if key in need and need <= set(s)):
                go(k + 1, s)
            del s[key]
    go(0, {})
    return found


def listing(q, regex):
    return re.split(r", | or | and ", q.find(regex).group(1))


def the_grid(q, story):
    clues = [clue(story, m.group(2)) for m in q.findall(r"^(\d+)\. (.+)$")]
    (s,) = solve(story, clues)
    return s


def stations(q):
    people = listing(q, r"^Five friends, ((?:\w+, )+\w+ and \w+), each catch")
    times = [minutes(t) for t in listing(q, r"The trains leave at ((?:\d+:\d\d, )+\d+:\d\d and "
                                            r"\d+:\d\d)\.")]
    towns = listing(q, r"goes to a different town \(((?:\w+, )+\w+ or \w+)\)")
    items = [x.removeprefix("a ").removeprefix("an ")
             for x in listing(q, r"carries a different item "
                                 r"\(((?:an? \w+, )+an? \w+ or an? \w+)\)")]
    q.has("each catch a different train from Central Station")
    return Story(people, towns, items, times)


@verifies("g365s-030")
def _(q):
    story = stations(q)
    s = the_grid(q, story)
    town = q.find(r"Who travels to (\w+)\?").group(1)
    return s["p"][s["t"].index(town)]


@verifies("g365s-030-v3")
def _(q):
    # which clues can each be dropped with the arrangement still unique
    story = stations(q)
    found = q.findall(r"^(\d+)\. (.+)$")
    clues = [clue(story, m.group(2)) for m in found]
    assert len(solve(story, clues)) == 1
    n = {"eleven": 11, "ten": 10}
    assert n[q.find(r"These (eleven|ten) clues allow exactly one arrangement").group(1)] == \
        len(clues) == n[q.find(r"the other (ten|nine) still allow exactly one "
                               r"arrangement").group(1)] + 1
    q.has("Some of them are not needed: without that one clue,", "Which clues are not needed "
          "in this sense? Give their numbers in increasing order, separated by commas with no "
          "spaces (for example 2,5).")
    spare = [int(found[k].group(1)) for k in range(len(clues))
             if len(solve(story, clues[:k] + clues[k + 1:])) == 1]
    return ",".join(str(k) for k in spare)


@verifies("g365s-030-v1")
def _(q):
    people = listing(q, r"^Five students, ((?:\w+, )+\w+ and \w+), each give one talk")
    times = [minutes(t) for t in listing(q, r"The talks start at ((?:\d+:\d\d, )+\d+:\d\d and "
                                            r"\d+:\d\d)\.")]
    topics = listing(q, r"Each talk has a different topic \(((?:\w+, )+\w+ or \w+)\)")
    aids = [x.removeprefix("a ") for x in
            listing(q, r"uses a different aid \(((?:a \w+, )+a \w+ or a \w+)\)")]
    q.has("each give one talk at the science fair")
    # the clues do not fix one programme: who speaks first in at least one that fits
    story = Story(people, topics, aids, times)
    clues = [clue(story, m.group(2)) for m in q.findall(r"^(\d+)\. (.+)$")]
    n = {"eight": 8, "nine": 9, "ten": 10}[q.find(r"These (\w+) clues do not fix the "
                                                   r"programme").group(1)]
    assert len(clues) == n
    first = q.find(r"Which students speak at (\d+:\d\d) in at least one programme that "
                   r"fits\?").group(1)
    assert minutes(first) == times[0]
    q.has("Give their names in alphabetical order, separated by commas with no spaces (for "
          "example Kofi,Milo).")
    found = solve(story, clues, limit=10**6)
    assert len(found) > 1
    return ",".join(sorted({s["p"][0] for s in found}))


@verifies("g365s-030-v2")
def _(q):
    people = listing(q, r"^Five hikers, ((?:\w+, )+\w+ and \w+), leave a mountain hut")
    times = [minutes(t) for t in listing(q, r"one at a time, at ((?:\d+:\d\d, )+\d+:\d\d and "
                                            r"\d+:\d\d)\.")]
    summits = listing(q, r"bound for a different summit \(((?:\w+, )+\w+ or \w+)\)")
    snacks = [re.sub(r"^(?:an?|some) ", "", x) for x in
              listing(q, r"carries a different snack \(((?:(?:an?|some) \w+, )+(?:an?|some) \w+ "
                         r"or (?:an?|some) \w+)\)")]
    q.has('A clue of the form "Either P, or Q, but not both" means that exactly one of P and Q '
          "is true.")
    s = the_grid(q, Story(people, summits, snacks, times))
    summit = q.find(r"Who is bound for (\w+)\?").group(1)
    return s["p"][s["t"].index(summit)]


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-030": (
        "8 00 8 15 8 30 8 45 9 00 1 30 2 3 8 30 9 00 4 8 00 5 6 15 7 8 8 15 "
        "9 15 10 11"),
    "g365s-030-v1": (
        "1 00 1 20 1 40 2 00 2 20 1 40 2 1 40 2 20 3 1 00 4 5 20 6 1 20 7 20 "
        "8 1 00"),
    "g365s-030-v2": (
        "6 00 6 20 6 40 7 00 7 20 1 2 6 40 3 4 6 40 7 20 5 20 6 7 6 40 7 20 "
        "8 9 10 6 20 7 20 11"),
    "g365s-030-v3": (
        "8 00 8 15 8 30 8 45 9 00 1 30 2 3 8 30 9 00 4 8 00 5 6 15 7 8 8 15 "
        "9 15 10 11 2 5"),
}
