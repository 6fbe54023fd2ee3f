"""The harness that machine-verifies the bundled sample, one family module per seed.

A family module (tests/sample/families/fNNN_*.py) registers one verifier per row:

    @verifies("g365s-001")
    def _(q: Question):
        height = q.num("Every storey is exactly {} m high")
        ...
        return 124          # the answer, recomputed

A verifier reads every parameter it uses from the question's own text (`q.num`, `q.nums`,
`q.find`, ...) or pins a fragment it relies on (`q.has`), and the harness checks that every
number in the question was read or pinned. Each family module also lists, per row, the
numbers its verifier was written against (`NUMBERS`); the question must still say exactly
those. So editing a number in a question without its verifier fails even where the edit
would not change the answer, and an edit that does change it fails twice over: the
recomputed answer no longer matches the gold.

The recomputed answer is compared with the stored gold by `matches`: numbers exactly (or
after rounding half up to `float_round` places, with exactly that many digits), intervals
as exact sets of segments, choices as the exact sorted letter string, text exactly.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable

from general365.data.sample import load_sample
from general365.schema import AnswerType, Problem

MACHINE_SOURCE = "general365 sample (original); answer machine-verified by {path}"


@lru_cache(maxsize=None)
def rows() -> dict[str, Problem]:
    """Every sample row by id, read by the package's own loader."""
    return {p.id: p for p in load_sample()}


# ---------------------------------------------------------------------------------------
# reading parameters from the question
# ---------------------------------------------------------------------------------------

_NUMBER = r"\d+(?:\.\d+)?(?:/\d+)?|[½¼¾⅓⅔]"
_VULGAR = {"½": Fraction(1, 2), "¼": Fraction(1, 4), "¾": Fraction(3, 4),
           "⅓": Fraction(1, 3), "⅔": Fraction(2, 3)}
_HOLES = {"{}": f"({_NUMBER})", "{t}": r"(\d{1,2}:\d{2})", "{w}": r"([A-Za-z][\w'-]*)",
          "{s}": r"(.+?)"}
# What must be accounted for: every run of digits, and the vulgar fractions.
DIGITS = re.compile(r"\d+|[½¼¾⅓⅔]")


def to_number(text: str) -> int | Fraction:
    """A number as written: an int when it is whole, else an exact Fraction."""
    if text in _VULGAR:
        return _VULGAR[text]
    value = Fraction(text)
    return int(value) if value.denominator == 1 else value


def minutes(clock: str) -> int:
    h, m = clock.split(":")
    return int(h) * 60 + int(m)


def _template_regex(template: str) -> tuple[str, list[str]]:
    parts = re.split(r"(\{\}|\{t\}|\{w\}|\{s\})", template)
    kinds = [p for p in parts if p in _HOLES]
    regex = "".join(_HOLES[p] if p in _HOLES else re.escape(p) for p in parts)
    if kinds and kinds[-1] == "{}":
        regex += r"(?![\d.]*\d)"      # "{} m" must not stop half-way through "12.5 m"
    if kinds and kinds[0] == "{}":
        regex = r"(?<![\d.])" + regex
    return regex, kinds


class Question:
    """A question's text, with a record of which parts of it a verifier has read."""

    def __init__(self, text: str):
        self.text = text
        self.spans: list[tuple[int, int]] = []

    def _read(self, template: str) -> list[Any]:
        regex, kinds = _template_regex(template)
        found = list(re.finditer(regex, self.text))
        assert found, f"the question no longer says {template!r}"
        values = None
        for m in found:
            got = [to_number(g) if k == "{}" else minutes(g) if k == "{t}" else g
                   for g, k in zip(m.groups(), kinds)]
            assert values is None or got == values, \
                f"{template!r} is said twice with different values: {values} and {got}"
            values = got
            self.spans.append(m.span())
        return values

    def num(self, template: str) -> int | Fraction:
        """The one number at `{}` in the phrase `template` (which must occur)."""
        (value,) = self._read(template)
        return value

    def int(self, template: str) -> int:
        value = self.num(template)
        assert isinstance(value, int), f"{template!r}: {value} is not a whole number"
        return value

    def nums(self, template: str) -> list:
        """Every value at the holes of `template`: `{}` number, `{t}` clock time (minutes),
        `{w}` a word, `{s}` any text (shortest)."""
        return self._read(template)

    def has(self, *fragments: str) -> None:
        """Pin fragments the verifier relies on (numbers in them are then accounted for)."""
        for fragment in fragments:
            start = self.text.find(fragment)
            assert start >= 0, f"the question no longer says {fragment!r}"
            while start >= 0:
                self.spans.append((start, start + len(fragment)))
                start = self.text.find(fragment, start + 1)

    def find(self, regex: str, flags: int = re.M) -> re.Match:
        m = re.search(regex, self.text, flags)
        assert m, f"the question no longer matches {regex!r}"
        self.spans.append(m.span())
        return m

    def findall(self, regex: str, flags: int = re.M) -> list[re.Match]:
        found = list(re.finditer(regex, self.text, flags))
        assert found, f"the question no longer matches {regex!r}"
        self.spans.extend(m.span() for m in found)
        return found

    def options(self, expected: dict[str, str] | None = None) -> dict[str, str]:
        """The listed options (`A. text` lines). With `expected`, they must be exactly those
        (and are then accounted for); otherwise the verifier reads them some other way."""
        found = list(re.finditer(r"^([A-H])\. (.+)$", self.text, re.M))
        listed = {m.group(1): m.group(2) for m in found}
        if expected is not None:
            assert listed == expected, f"the options changed: {listed}"
            self.spans.extend(m.span() for m in found)
        return listed

    def letter_of(self, option_text: str) -> str:
        """The letter of the option whose text is `option_text`."""
        m = self.find(r"^([A-H])\. " + re.escape(option_text) + "$")
        return m.group(1)

    def unread(self) -> list[str]:
        """Numbers in the question that the verifier neither read nor pinned."""
        out = []
        for m in DIGITS.finditer(self.text):
            if not any(a <= m.start() and m.end() <= b for a, b in self.spans):
                lo = max(0, m.start() - 25)
                out.append(f"{m.group()!r} in ...{self.text[lo:m.end() + 25]}...")
        return out


# ---------------------------------------------------------------------------------------
# the registry
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Verifier:
    row_id: str
    fn: Callable[[Question], Any]
    module: str          # the family module's path, relative to the repository root


VERIFIERS: dict[str, Verifier] = {}


def verifies(*row_ids: str):
    def register(fn):
        module = "tests/sample/families/" + fn.__module__.rsplit(".", 1)[-1] + ".py"
        for rid in row_ids:
            assert rid not in VERIFIERS, f"two verifiers for {rid}"
            VERIFIERS[rid] = Verifier(rid, fn, module)
        return fn
    return register


def numbers_in(text: str) -> str:
    return " ".join(m.group() for m in DIGITS.finditer(text))


def declared_numbers(row_id: str) -> str | None:
    module = sys.modules[VERIFIERS[row_id].fn.__module__]
    return getattr(module, "NUMBERS", {}).get(row_id)


def recompute(row_id: str, text: str | None = None, *, pinned: bool = True) -> Any:
    """Run a row's verifier on its question (or on `text`, an edited copy) and insist that
    every number in the text was read or pinned (and, with `pinned`, that the text says the
    numbers the family module declares for the row)."""
    p = rows()[row_id]
    q = Question(p.question if text is None else text)
    if pinned:
        declared = declared_numbers(row_id)
        assert declared is not None, f"{row_id}: its family module declares no NUMBERS"
        assert numbers_in(q.text) == declared, \
            f"{row_id}: the question's numbers changed: {numbers_in(q.text)!r}, not {declared!r}"
    # The rounding instruction is the row's float_round, said in words.
    said = re.findall(r"to (\d+) decimal places?", q.text)
    assert said == ([str(p.float_round)] if p.float_round else []), \
        f"{row_id}: float_round {p.float_round} but the question says {said or 'nothing'}"
    if said:
        q.find(r"to \d+ decimal places?")
    computed = VERIFIERS[row_id].fn(q)
    assert computed is not None, f"{row_id}: the question, as written, has no answer"
    exact = ([x for seg in computed for x in seg[:2]] if isinstance(computed, list)
             else [computed])
    assert not any(isinstance(x, float) for x in exact), \
        f"{row_id}: the verifier computed with floats ({show(computed)}); use exact numbers"
    unread = q.unread()
    assert not unread, f"{row_id}: numbers the verifier does not check: {unread}"
    return computed


def check_row(row_id: str, text: str | None = None, *, pinned: bool = True) -> None:
    p = rows()[row_id]
    computed = recompute(row_id, text, pinned=pinned)
    assert matches(p.answer_type, p.answer, p.float_round, computed), \
        f"{row_id}: gold {p.answer!r}, recomputed {show(computed)}"


# ---------------------------------------------------------------------------------------
# comparing with the gold
# ---------------------------------------------------------------------------------------

Segment = tuple  # (lo, hi, lo_closed, hi_closed); None for an infinite end

_GOLD_NUM = r"-?\\frac\{\d+\}\{\d+\}|-?\d+(?:\.\d+)?|[+-]?\\infty"


def gold_number(text: str) -> Fraction:
    m = re.fullmatch(r"(-?)\\frac\{(\d+)\}\{(\d+)\}", text.strip())
    if m:
        return Fraction(int(m.group(2)), int(m.group(3))) * (-1 if m.group(1) else 1)
    assert re.fullmatch(r"-?\d+(\.\d+)?", text.strip()), f"unexpected number gold {text!r}"
    return Fraction(text.strip())


def parse_interval_gold(text: str) -> list[Segment]:
    def end(s):
        return None if "infty" in s else gold_number(s)

    out = []
    for part in text.replace(" ", "").split(r"\cup"):
        m = re.fullmatch(rf"([\[(])({_GOLD_NUM}),({_GOLD_NUM})([\])])", part)
        assert m, f"cannot read interval {part!r}"
        out.append((end(m.group(2)), end(m.group(3)), m.group(1) == "[", m.group(4) == "]"))
    return out


def rounded(x: Fraction, places: int) -> Decimal:
    exact = Decimal(x.numerator) / Decimal(x.denominator)
    return exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def matches(kind: AnswerType, gold: str, float_round: int, computed) -> bool:
    if kind is AnswerType.NUMBER:
        value = Fraction(computed)
        if float_round:
            return (re.fullmatch(r"-?\d+\.\d{%d}" % float_round, gold) is not None
                    and Decimal(gold) == rounded(value, float_round))
        return gold_number(gold) == value
    if kind is AnswerType.INTERVAL:
        return parse_interval_gold(gold) == [tuple(s) for s in computed]
    if kind.is_choice:
        return gold == "".join(sorted(set(computed))) and len(set(computed)) == len(computed)
    return gold.strip() == str(computed).strip()


def show(computed) -> str:
    if isinstance(computed, list):
        return " U ".join(f"{'[' if a else '('}{lo},{hi}{']' if b else ')'}"
                          for lo, hi, a, b in computed)
    return repr(computed) if not isinstance(computed, Fraction) else str(computed)


def mutated_gold(p: Problem) -> str:
    """A wrong gold of the same kind, as a careless edit would leave it."""
    kind, gold = p.answer_type, p.answer
    if kind is AnswerType.NUMBER:
        if p.float_round:
            step = Decimal(1).scaleb(-p.float_round)
            return str(Decimal(gold) + step)
        v = gold_number(gold) + Fraction(1, 3 if gold_number(gold).denominator == 1 else 1)
        return str(v) if v.denominator == 1 else rf"\frac{{{v.numerator}}}{{{v.denominator}}}"
    if kind is AnswerType.INTERVAL:
        segs = parse_interval_gold(gold)
        lo, hi, a, b = segs[0]
        segs[0] = (lo, hi, not a, b) if lo is not None else (lo, hi, a, not b)
        return r"\cup".join(f"{'[' if a else '('}{fmt(lo, '-')},{fmt(hi, '+')}{']' if b else ')'}"
                            for lo, hi, a, b in segs)
    if kind is AnswerType.SINGLE_CHOICE:
        return "A" if gold != "A" else "B"
    if kind is AnswerType.MULTIPLE_CHOICE:
        return gold[1:] if len(gold) > 1 else "".join(sorted(gold + ("A" if gold != "A" else "B")))
    return gold + " (or so)"


def fmt(x, sign: str) -> str:
    if x is None:
        return rf"{sign}\infty"
    if x.denominator == 1:
        return str(x.numerator)
    return rf"\frac{{{x.numerator}}}{{{x.denominator}}}"


# ---------------------------------------------------------------------------------------
# exact sets for interval answers
# ---------------------------------------------------------------------------------------

def solve_set(pred, lo, hi, critical, *, lo_included=True, hi_included=True) -> list[Segment]:
    """The exact subset of [lo, hi] (hi None: unbounded) where `pred` holds, for a `pred`
    whose truth can change only at the `critical` points: each point is tested, and so is
    one point inside each open gap between neighbours (and one far beyond the last)."""
    pts = sorted({Fraction(x) for x in critical if lo <= x and (hi is None or x <= hi)}
                 | {Fraction(lo)} | ({Fraction(hi)} if hi is not None else set()))
    segs: list[list] = []

    def add(a, b, ac, bc):
        if segs and segs[-1][1] == a and (segs[-1][3] or ac):
            segs[-1][1], segs[-1][3] = b, bc
        else:
            segs.append([a, b, ac, bc])

    for i, p in enumerate(pts):
        inside = not ((p == lo and not lo_included) or (p == hi and not hi_included))
        if inside and pred(p):
            add(p, p, True, True)
        nxt = pts[i + 1] if i + 1 < len(pts) else None
        if nxt is not None:
            if pred((p + nxt) / 2):
                add(p, nxt, False, False)
        elif hi is None and pred(p + 10**6):
            add(p, None, False, False)
    return [tuple(s) for s in segs]


def crossings(f, x0, x1, pieces, levels) -> set[Fraction]:
    """Where a function that is linear on each piece [a, b] of `pieces` takes one of the
    `levels`: the exact crossing points (f is evaluated only at the piece ends)."""
    out = set()
    for a, b in pieces:
        a, b = max(Fraction(a), x0), min(Fraction(b), x1)
        if a > b:
            continue
        fa, fb = f(a), f(b)
        for level in levels:
            if fa == fb:
                continue
            x = a + (level - fa) * (b - a) / (fb - fa)
            if a <= x <= b:
                out.add(x)
    return out


def ceil(x) -> int:
    return math.ceil(x)
