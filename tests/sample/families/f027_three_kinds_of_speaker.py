"""g365s-027: islands of truth-tellers, liars and a third kind (switchers who alternate,
echoes who copy the previous statement's truth, jesters who start with a lie).

The statements and the options are parsed from the question; every assignment of kinds is
tried."""

import itertools
import re

from sample.harness import verifies

NUMBER = {"None": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
PLURAL = {"knights": "knight", "knaves": "knave", "switchers": "switcher", "echoes": "echo",
          "truthers": "truther", "fibbers": "fibber", "jesters": "jester"}


def kind_word(word: str) -> str:
    return PLURAL.get(word, word)


def claim(text: str, speaker: str):
    """A test on a world (name -> kind) for one statement or option sentence."""
    me = lambda x: speaker if x == "I" else x  # noqa: E731
    count = lambda w, k: sum(v == k for v in w.values())  # noqa: E731
    forms = [
        (r"(\w+) (?:is|am) (not )?(?:an? )?(\w+)\.",
         lambda x, neg, k: lambda w: (w[me(x)] == kind_word(k)) != bool(neg)),
        (r"(\w+) and (\w+) are the same (?:type|colour)\.",
         lambda a, b: lambda w: w[me(a)] == w[me(b)]),
        (r"(\w+) and (\w+) are (?:of )?different (?:types|colours)\.",
         lambda a, b: lambda w: w[me(a)] != w[me(b)]),
        (r"(?:Exactly )?(\w+) of (?:us|the) (?:four|five)(?: robots)? (?:is|are) (?:an? )?(\w+)\.",
         lambda n, k: lambda w: count(w, kind_word(k)) == NUMBER[n]),
        (r"At least (\w+) of the (?:four|five) are (\w+)\.",
         lambda n, k: lambda w: count(w, kind_word(k)) >= NUMBER[n]),
    ]
    for regex, make in forms:
        if m := re.fullmatch(regex, text):
            return make(*m.groups())
    raise AssertionError(f"unknown sentence {text!r}")


def said(q):
    """(speaker, [tests]) per speaker line, in the order printed."""
    out = []
    for m in q.findall(r'^(\w+): ((?:"[^"]+" ?)+)$'):
        quoted = re.findall(r'"([^"]+)"', m.group(2))
        out.append((m.group(1), [claim(s, m.group(1)) for s in quoted]))
    return out


def people(q) -> list[str]:
    m = q.find(r"(?:natives|robots|courtiers), ((?:\w+, )+\w+ and \w+)[,.]")
    return re.split(r", | and ", m.group(1))


def worlds(names, kinds, ok):
    found = []
    for combo in itertools.product(kinds, repeat=len(names)):
        w = dict(zip(names, combo))
        if ok(w):
            found.append(w)
    assert found, "the statements admit no world"
    return found


def answer(q, ws, *, must: bool) -> str:
    test = all if must else any
    options = q.options()
    q.findall(r"^[A-H]\. .+$")
    return "".join(k for k, t in sorted(options.items()) if test(claim(t, None)(w) for w in ws))


def alternating(kinds, starts=(True, False)):
    """The rule for knights, knaves and a kind whose statements alternate."""
    truthful, liar, alternator = kinds

    def ok_speaker(kind, values):
        if kind == truthful:
            return all(values)
        if kind == liar:
            return not any(values)
        return values[0] in starts and all(a != b for a, b in zip(values, values[1:]))
    return ok_speaker


VELL = ("every native is a knight (every statement a knight makes is true), a knave (every "
        "statement a knave makes is false) or a switcher (a switcher's statements alternate "
        "between true and false; the first one may be either)")


@verifies("g365s-027")
def _(q):
    q.has(VELL, "Each says exactly two things, in this order:",
          "Which of the following must be true?")
    kinds = ("knight", "knave", "switcher")
    rule, lines = alternating(kinds), said(q)
    ws = worlds(people(q), kinds, lambda w: all(rule(w[s], [t(w) for t in ts]) for s, ts in lines))
    return answer(q, ws, must=True)


@verifies("g365s-027-v1")
def _(q):
    # one of one robot's outputs arrived negated: every choice of it is tried with every world
    q.has("green robots always output true statements, red robots always output false "
          "statements, and amber robots alternate between true and false (the first output may "
          "be either)", "each output exactly two statements.",
          "Which of the following must be true?", "we do not know which one. Everything else "
          "arrived unchanged. What arrived, in order:")
    faulty = q.find(r"(\w+)'s speaker is faulty: exactly one of \1's two outputs reached us "
                    r"turned into its opposite").group(1)
    q.has('("Cog is red." would arrive as "Cog is not red.", and the other way round)')
    kinds = ("green", "red", "amber")
    rule, lines = alternating(kinds), said(q)

    def fits(w, garbled):
        for s, ts in lines:
            values = [t(w) for t in ts]
            if s == faulty:
                values[garbled] = not values[garbled]
            if not rule(w[s], values):
                return False
        return True
    ws = worlds(people(q), kinds, lambda w: any(fits(w, g) for g in (0, 1)))
    return answer(q, ws, must=True)


@verifies("g365s-027-v2")
def _(q):
    q.has("every native is a knight (every statement a knight makes is true), a knave (every "
          "statement a knave makes is false) or an echo", "the statement an echo makes is true "
          "exactly when the statement made just before it, by the previous speaker, was true",
          "speak once each, in this order", "Which of the following must be true?")
    first = q.find(r"(\w+) speaks first and is known not to be an echo").group(1)
    least = NUMBER[q.find(r"At least (one) of the five is an echo\.").group(1)]
    lines = said(q)
    assert lines[0][0] == first and all(len(ts) == 1 for _, ts in lines)

    def ok(w):
        if w[first] == "echo" or sum(v == "echo" for v in w.values()) < least:
            return False
        before = None
        for speaker, (test,) in lines:
            value, kind = test(w), w[speaker]
            if (kind == "knight" and not value) or (kind == "knave" and value) or \
               (kind == "echo" and value != before):
                return False
            before = value
        return True
    return answer(q, worlds(people(q), ("knight", "knave", "echo"), ok), must=True)


@verifies("g365s-027-v3")
def _(q):
    q.has("every courtier is a truther (every statement a truther makes is true), a fibber "
          "(every statement a fibber makes is false) or a jester", "A jester's statements "
          "alternate between false and true, and a jester always begins with a false one: first "
          "statement false, second true.", "each make exactly two statements, in this order:",
          "Which of the following could be true (true in at least one assignment of types "
          "consistent with everything said)?")
    kinds = ("truther", "fibber", "jester")
    lines = said(q)

    def solve(starts):
        rule = alternating(kinds, starts)
        return worlds(people(q), kinds,
                      lambda w: all(rule(w[s], [t(w) for t in ts]) for s, ts in lines))
    # The jesters' fixed start is what the puzzle turns on: without it the answer changes.
    assert answer(q, solve((False,)), must=False) != answer(q, solve((True, False)), must=False)
    return answer(q, solve((False,)), must=False)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-027": "",
    "g365s-027-v1": "",
    "g365s-027-v2": "",
    "g365s-027-v3": "",
}
