"""g365s-007: speakers whose honesty depends on whom they talk about (or the time of day).

The statements and the options are read from the question; every (guilds, culprits) world
is tried."""

import itertools
import re

from sample.harness import verifies

WORDS = {"one": 1, "two": 2, "TWO": 2, "three": 3, "four": 4, "five": 5}


def people(q) -> list[str]:
    m = q.find(r"(?:villagers|inhabitants),? (\w+), (\w+), (\w+), (\w+) and (\w+)")
    return list(m.groups())


def statements(q):
    """(speaker, time of day or None, claim) for every quoted statement; a claim is
    ("side", person, side) or ("culprit", person, bool)."""
    out = []
    for line in q.findall(r'^(\w+)(?: \((morning|afternoon)\))?: (".+")$'):
        speaker, when = line.group(1), line.group(2)
        for said in re.findall(r'"([^"]+)"', line.group(3)):
            who = lambda w: speaker if w in ("I", "I am") else w.split()[0]  # noqa: E731
            if m := re.fullmatch(r"(\w+) is (?:in the (Green|Grey) guild|an? (Sunny|Moony))\.",
                                 said):
                out.append((speaker, when, ("side", m.group(1), m.group(2) or m.group(3))))
            elif m := re.fullmatch(r"(\w+) (?:stole|broke) the \w+\.", said):
                out.append((speaker, when, ("culprit", who(m.group(1)), True)))
            elif m := re.fullmatch(r"(\w+) did not (?:steal|break) the \w+\.", said):
                out.append((speaker, when, ("culprit", who(m.group(1)), False)))
            elif m := re.fullmatch(r"(I am|\w+ is) (not )?one of the thieves\.", said):
                out.append((speaker, when, ("culprit", who(m.group(1)), not m.group(2))))
            else:
                raise AssertionError(f"unknown statement {said!r}")
    return out


def worlds(names, said, culprits, sides, honest, extra=lambda side: True):
    out = []
    for assignment in itertools.product(sides, repeat=len(names)):
        side = dict(zip(names, assignment))
        if not extra(side):
            continue
        for guilty in itertools.combinations(names, culprits):
            def true(claim):
                kind, person, value = claim
                return side[person] == value if kind == "side" else (person in guilty) == value
            if all(true(c) == honest(side[s], s, c, when) for s, when, c in said):
                out.append(frozenset(guilty))
    return out


def answer(q, found) -> str:
    assert found, "the statements admit no world at all"
    pick = next(iter(set(found))) if len(set(found)) == 1 else None
    letters = []
    for letter, text in q.options().items():
        if text == "It cannot be determined from the statements":
            value = None
        else:
            value = frozenset(re.fullmatch(r"(\w+)(?: and (\w+))?", text).groups()) - {None}
        letters += [letter] if value == pick else []
    q.findall(r"^[A-H]\. .+$")
    (letter,) = letters
    return letter


def guild_rule(q):
    q.has("A member of the Green guild always tells the truth about other people but always "
          "lies about himself or herself; a member of the Grey guild always lies about other "
          "people but always tells the truth about himself or herself.")

    def honest(side, speaker, claim, _when):
        return (side == "Green") != (claim[1] == speaker)
    return honest


@verifies("g365s-007", "g365s-007-v2")
def _(q):
    honest = guild_rule(q)
    culprits = WORDS[q.find(r"[Ee]xactly (one|TWO) of (?:the )?five villagers").group(1)]
    return answer(q, worlds(people(q), statements(q), culprits, ("Green", "Grey"), honest))


@verifies("g365s-007-v1")
def _(q):
    q.has("Sunnies tell the truth in the morning and lie in the afternoon; Moonies lie in the "
          "morning and tell the truth in the afternoon.", "Exactly one of five inhabitants")

    def honest(side, _speaker, _claim, when):
        return (side == "Sunny") == (when == "morning")
    return answer(q, worlds(people(q), statements(q), 1, ("Sunny", "Moony"), honest))


@verifies("g365s-007-v3")
def _(q):
    honest = guild_rule(q)
    m = q.find(r"exactly (one) is in the Green guild and the other (four) are in the Grey guild")
    greens = WORDS[m.group(1)]
    assert greens + WORDS[m.group(2)] == 5
    q.has("Exactly one of the five stole")
    names, said = people(q), statements(q)
    found = worlds(names, said, 1, ("Green", "Grey"), honest,
                   extra=lambda side: list(side.values()).count("Green") == greens)
    # The registrar's fact is needed: without it the thief is not determined.
    assert len(set(worlds(names, said, 1, ("Green", "Grey"), honest))) > 1
    return answer(q, found)


# The numbers each question says, in order: the ones this module's verifiers were written
# against. Editing a question's numbers means revisiting its verifier (and this list).
NUMBERS = {
    "g365s-007": "",
    "g365s-007-v1": "",
    "g365s-007-v2": "",
    "g365s-007-v3": "",
}
