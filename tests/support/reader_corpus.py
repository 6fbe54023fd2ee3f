"""A seeded, generative corpus for the answer reader (issue 18, item 4).

Each case is (family, kind, answer_type, gold, float_round, response):
- family "render": a rendering of the gold that a careful grader reads as the gold: it must
  grade `correct`;
- family "miss": a near-miss, a different value or a hedged / negated / tricked answer: it
  must never grade `correct` (any other status is fine: incorrect, no_answer, timeout);
- family "open": a case the contract leaves open; `proposed` holds the decision proposed
  for docs/grading.md, and the suite does not assert it.

Golds come from the bundled sample (every number, interval and choice gold), the official
format fixtures of tests/unit/test_data_official.py, and golds modelled on the kinds of answer in
math-verify's own tests (written here, nothing copied). Every value a case depends on is
computed here with exact fractions, so a near-miss is known to differ from its gold (or to
round differently at float_round) independently of the grader under test.

Run as a script to grade the whole corpus and write the failures (the baseline file):
    python tests/support/reader_corpus.py [--out tests/data/reader_failures_baseline.txt]
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations

SEED = 18_2026


@dataclass(frozen=True)
class Case:
    family: str        # "render" | "miss" | "open"
    kind: str          # the notation (render) or the cause (miss) the case exercises
    answer_type: str
    gold: str
    float_round: int
    response: str
    proposed: str = ""  # open cases only: the proposed verdict and why


# ---------------------------------------------------------------------------------------
# exact values

def round_half_up(q: Fraction, k: int) -> Fraction:
    """Round half away from zero to k places, exactly (the contract's rounding)."""
    scale = 10 ** k
    n = abs(q) * scale
    r = int(n)
    if n - r >= Fraction(1, 2):
        r += 1
    return Fraction(r if q >= 0 else -r, scale)


def same(a: Fraction, b: Fraction, k: int) -> bool:
    return a == b if k == 0 else round_half_up(a, k) == round_half_up(b, k)


_FRAC = re.compile(r"^(-?)\\[dt]?frac\{(-?\d+)\}\{(\d+)\}$")


def scalar_value(s: str) -> Fraction | None:
    """The exact value of a plain gold: an integer, a decimal or \\frac{p}{q}."""
    s = s.strip()
    if re.fullmatch(r"-?\d+(\.\d+)?", s):
        return Fraction(s)
    m = _FRAC.match(s)
    if m:
        v = Fraction(int(m.group(2)), int(m.group(3)))
        return -v if m.group(1) else v
    return None


def decimal_text(q: Fraction, places: int | None = None) -> str | None:
    """q as a terminating decimal (None when it does not terminate)."""
    d = q.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return None
    sign = "-" if q < 0 else ""
    q = abs(q)
    for n in range(0, 30):
        if (q * 10 ** n).denominator == 1:
            break
    if places is not None:
        n = max(n, places)
    whole = int(q * 10 ** n)
    text = str(whole).rjust(n + 1, "0")
    return sign + (text[:-n] + "." + text[-n:] if n else text)


def latex_of(q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    sign = "-" if q < 0 else ""
    return rf"{sign}\frac{{{abs(q.numerator)}}}{{{q.denominator}}}"


def group3(n: int, sep: str) -> str:
    s = str(abs(n))
    parts = []
    while len(s) > 3:
        parts.insert(0, s[-3:])
        s = s[:-3]
    parts.insert(0, s)
    return ("-" if n < 0 else "") + sep.join(parts)


# ---------------------------------------------------------------------------------------
# frames: where the candidate sits in a response

DISTRACTORS = ["999", r"\frac{1}{7}", "-42"]


def think(rng: random.Random, inside: str) -> str:
    return ("<think>\nLet me work through this carefully. " + inside
            + "\nI am fairly confident now.\n</think>\n\n")


# Each frame: (name, template, needs_plain). `needs_plain` frames put the candidate in prose
# without math delimiters or inside \text{}, so they only take candidates written that way.
FRAMES = [
    ("box", "Therefore $\\boxed{X}$.", False),
    ("box-bare", "So the result is \\boxed{X}", False),
    ("box-display", "Putting it together:\n\\[\n\\boxed{X}\n\\]", False),
    ("box-bold", "\\boxed{\\mathbf{X}}", True),
    ("box-text", "\\boxed{\\text{X}}", True),
    ("the-answer-is", "The answer is $X$.", False),
    ("the-answer-is-plain", "The answer is X.", True),
    ("final-answer-colon", "Final answer: $X$", False),
    ("final-answer-colon-plain", "Final answer: X", True),
    ("bold-answer", "**Answer:** $X$", False),
    ("bold-answer-plain", "**Answer:** X", True),
    ("bold-value", "The final answer is **X**.", True),
    ("heading", "## Final Answer\n\n$X$", False),
    ("statement-box", "The final answer is $\\boxed{X}$. I hope it is correct.", False),
]


def framed(x: str, frame: tuple) -> str:
    return frame[1].replace("X", x)


# ---------------------------------------------------------------------------------------
# golds

def sample_golds() -> list[tuple[str, str, int]]:
    from general365.data.sample import load_sample
    out = []
    for p in load_sample():
        t = p.answer_type.value if hasattr(p.answer_type, "value") else str(p.answer_type)
        if t in ("number", "interval", "single_choice", "multiple_choice"):
            out.append((t, p.answer, int(p.float_round or 0)))
    return sorted(set(out), key=out.index)


# The official-format fixtures (tests/unit/test_data_official.py, float_round given as strings
# there; the grader casts them).
OFFICIAL_GOLDS = [
    ("number", "12", 0), ("number", "2.67", 2), ("interval", "[1,2)", 0),
    ("number", r"\frac{15}{4}", 0), ("multiple_choice", "BD", 0), ("single_choice", "C", 0),
    ("interval", r"(-\infty,3)\cup(4,+\infty)", 0),
]

# Plain golds modelled on the kinds of answer in math-verify's tests (numbers with
# separators, money, decimals read with a precision, large integers).
MV_PLAIN_GOLDS = [
    ("number", "7425000", 0), ("number", "1000.99", 2), ("number", "14916", 0),
    ("number", "11111111100", 0), ("number", "32349", 0), ("number", "16386.20", 2),
    ("number", "7.78", 2), ("number", "667", 0), ("number", "143", 0), ("number", "189", 0),
    ("number", r"\frac{14}{3}", 0), ("number", r"\frac{3}{56}", 0), ("number", "-5", 0),
    ("number", "0.4", 0), ("number", r"-\frac{10}{9}", 0), ("number", "3.5", 0),
    ("number", "1234", 0), ("number", "22500", 0), ("number", "124", 0),
]

MV_INTERVAL_GOLDS = [
    ("interval", "[0,360)", 0), ("interval", "[100,250]", 0),
    ("interval", r"(-\infty,-2)\cup(2,\infty)", 0), ("interval", "[2,5]", 0),
    ("interval", r"[-1,-\frac{1}{2})\cup(-\frac{1}{2},0)\cup(0,1)\cup(1,\infty)", 0),
    ("interval", r"(2,12)\cup(12,102)", 0), ("interval", "[-4,0]", 0),
    ("interval", "(-6,10)", 0), ("interval", "(-793,10)", 0), ("interval", r"(1,+\infty)", 0),
    ("interval", "[0,1)", 0), ("interval", "[-3,2]", 0),
    ("interval", r"(\frac{3}{5},\frac{8}{3}]", 0), ("interval", r"(0,\infty)", 0),
    ("interval", r"(-\infty,3)\cup(3,\infty)", 0),
]

CHOICE_EXTRA = [("multiple_choice", "AE", 0), ("multiple_choice", "BCE", 0),
                ("single_choice", "C", 0)]


# ---------------------------------------------------------------------------------------
# scalar numbers

VULGAR = {Fraction(1, 2): "½", Fraction(1, 4): "¼", Fraction(3, 4): "¾", Fraction(1, 3): "⅓",
          Fraction(2, 3): "⅔", Fraction(1, 5): "⅕", Fraction(2, 5): "⅖", Fraction(3, 5): "⅗",
          Fraction(4, 5): "⅘", Fraction(1, 8): "⅛", Fraction(3, 8): "⅜", Fraction(5, 8): "⅝",
          Fraction(7, 8): "⅞", Fraction(1, 6): "⅙", Fraction(5, 6): "⅚"}
SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def sci_parts(q: Fraction) -> tuple[str, int] | None:
    """q as (mantissa text, exponent) with 1 <= |mantissa| < 10, when it terminates."""
    if q == 0:
        return None
    e = 0
    a = abs(q)
    while a >= 10:
        a /= 10
        e += 1
    while a < 1:
        a *= 10
        e -= 1
    m = decimal_text(a if q > 0 else -a)
    return (m, e) if m is not None else None


def scalar_renderings(v: Fraction, k: int) -> list[tuple[str, str, bool]]:
    """(kind, latex, plain) renderings of an exact value v, each equal to it (k = 0) or
    rounding to it (k > 0)."""
    out: list[tuple[str, str, bool]] = []
    add = lambda kind, s, plain=False: out.append((kind, s, plain))
    dec = decimal_text(v, k if k else None)
    canon = dec if (k or v.denominator == 1) else latex_of(v)
    if dec is not None:
        add("plain", dec, True)
    add("plain", latex_of(v), v.denominator == 1)
    if v.denominator != 1:
        p, q = v.numerator, v.denominator
        sign = "-" if v < 0 else ""
        add("fraction", rf"{sign}\dfrac{{{abs(p)}}}{{{q}}}")
        add("fraction", rf"{sign}\tfrac{{{abs(p)}}}{{{q}}}")
        add("fraction", f"{p}/{q}", True)
        add("fraction", rf"{sign}\frac{{{2 * abs(p)}}}{{{2 * q}}}")
        add("fraction", rf"\left({latex_of(v)}\right)")
        whole, rest = divmod(abs(v), 1)
        if rest in VULGAR and k == 0:
            add("unicode-fraction", sign + (str(whole) if whole else "") + VULGAR[rest], True)
        add("frac-trailing-words", latex_of(v) + r"\text{ of the cake}")
    if k == 0 and v.denominator == 1:
        n = v.numerator
        add("plain", f"{n}.0", True)
        add("fraction", rf"\frac{{{2 * n}}}{{2}}")
        if abs(n) >= 1000:
            for sep in (",", "{,}", ",\\!", "\\,", " "):
                add("latex-separator", group3(n, sep), sep in (",", " "))
    if k > 0 and dec is not None:
        # more places than asked, still rounding to the gold
        for extra in ("3", "0", "1"):
            longer = dec + ("" if "." in dec else ".") + ("0" * 0) + extra
            if same(Fraction(longer), v, k):
                add("more-places", longer, True)
        if "." in dec and dec.startswith("0."):
            add("no-leading-zero", dec[1:], True)
        add("approximately", r"\approx " + dec)
    if v < 0:
        add("unicode-minus", "\u2212" + (canon.lstrip("-")), "\\" not in canon)
    add("wrapper", r"\underline{" + canon + "}")
    add("wrapper", r"\text{" + canon + "}" if "\\" not in canon else r"\displaystyle " + canon)
    add("wrapper", r"\mathbf{" + canon + "}")
    add("unit", canon + r"\text{ cm}")
    add("unit", canon + r" \text{ m}^2", )
    add("unit", canon + " meters", "\\" not in canon)
    add("label", "x = " + canon, "\\" not in canon)
    add("label", "f(3) = " + canon)
    add("label", "|AB| = " + canon)
    add("label", "k=" + canon, "\\" not in canon)
    if v >= 0 and dec is not None:
        for cur in ("€", "£", "¥", "₹", "USD ", "Rs. ", "\\$", "EUR "):
            add("currency", cur + dec, "\\" not in cur)
        add("currency", dec + " USD", True)
        add("currency", dec + r"\text{ dollars}")
    sp = sci_parts(v)
    if sp is not None and abs(sp[1]) >= 2:
        m, e = sp
        for form in (rf"{m}\times10^{{{e}}}", rf"{m} \times 10^{{{e}}}", f"{m} × 10^{e}",
                     f"{m}·10^{e}", rf"{m} \cdot 10^{{{e}}}", f"{m}e{e}", f"{m}E{e:+03d}",
                     f"{m} x 10^{e}", f"{m}×10{str(e).translate(SUPERSCRIPT)}",
                     rf"{m}\times 10^{{{e}}}\text{{ m}}", f"{m} \\times 10^{{{e}}} m"):
            add("scientific", form, "\\" not in form)
    if v.denominator == 1 and 0 < v <= 100:
        add("percent-of-gold", canon + r"\%")   # contract: gold 25, `25\%` is correct
    if 0 < abs(v) < 1:
        pd = decimal_text(v * 100)
        if pd is not None and len(pd) < 12:
            # gold without a percent sign: its percentage is correct (contract, step 3)
            add("percent", pd + r"\%")
            add("percent", pd + "%", True)
            add("percent", pd + " percent", True)
    return out


def _digit_mutants(text: str) -> list[str]:
    out = []
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    for i in digits:
        d = int(text[i])
        for nd in {(d + 1) % 10, (d + 9) % 10}:
            if i == digits[0] and nd == 0 and len(digits) > 1 and text[i + 1:i + 2] != ".":
                continue
            out.append(text[:i] + str(nd) + text[i + 1:])
    for a, b in zip(digits, digits[1:]):
        if b == a + 1 and text[a] != text[b] and not (a == digits[0] and text[b] == "0"):
            out.append(text[:a] + text[b] + text[a] + text[b + 1:])
    return out


def scalar_misses(v: Fraction, k: int, gold_text: str) -> list[tuple[str, str, Fraction | None]]:
    """(cause, latex, value) near-misses of v; value None when it is not one number."""
    out: list[tuple[str, str, Fraction | None]] = []
    dec = decimal_text(v, k if k else None)
    base = dec if dec is not None else None
    if base is not None:
        for m in _digit_mutants(base):
            out.append(("digit-off-or-transposed", m, Fraction(m)))
        if "." in base:
            i = base.index(".")
            if i > 1:
                moved = base[:i - 1] + "." + base[i - 1] + base[i + 1:]
                out.append(("decimal-point-moved", moved, Fraction(moved)))
        out.append(("times-ten", latex_of(v * 10), v * 10))
        out.append(("over-ten", decimal_text(v / 10) or latex_of(v / 10), v / 10))
    else:
        p, q = v.numerator, v.denominator
        for np_ in (p + 1, p - 1):
            out.append(("numerator-off", latex_of(Fraction(np_, q)) if np_ else "0",
                        Fraction(np_, q)))
        out.append(("denominator-off", rf"\frac{{{p}}}{{{q + 1}}}", Fraction(p, q + 1)))
        if p != q:
            out.append(("fraction-inverted", rf"\frac{{{q}}}{{{p}}}", Fraction(q, p)))
    if v != 0:
        out.append(("sign-flip", latex_of(-v) if dec is None else decimal_text(-v, k or None),
                    -v))
    if v.denominator == 1 and abs(v) >= 100:
        s = str(abs(v.numerator))
        for cut in range(1, len(s)):
            if (len(s) - cut) % 3 != 0:
                out.append(("separator-changes-value", s[:cut] + "," + s[cut:], None))
                out.append(("separator-changes-value", s[:cut] + "." + s[cut:],
                            Fraction(s[:cut] + "." + s[cut:])))
    return [(c, t, val) for c, t, val in out if val is None or not same(val, v, k)]


def hedge_misses(g: str, other: str) -> list[tuple[str, str]]:
    """Answers that state the gold only together with something that withdraws it."""
    return [
        ("hedged-box", rf"{g} \text{{ or }} {other}"),
        ("hedged-box", rf"{g} \text{{ or maybe }} {other}"),
        ("hedged-box", rf"{g}, {other}"),
        ("hedged-box", rf"{g} \text{{ and }} {other}"),
        ("hedged-box", rf"\text{{either }} {g} \text{{ or }} {other}"),
        ("negated-box", rf"\text{{not }} {g}"),
        ("negated-box", rf"{g} \text{{ is wrong}}"),
        ("negated-box", rf"\text{{the answer is not }} {g}"),
        ("negated-box", rf"\neq {g}"),
        ("negated-box", rf"x \neq {g}"),
        ("bound-not-value", rf"\ge {g}"),
        ("bound-not-value", rf"x > {g}"),
        ("arrow", rf"{g} \to {other}"),
        ("lhs-not-a-variable", rf"{other} = {g}"),
        ("lhs-not-a-variable", rf"x+1 = {g}"),
        ("lhs-not-a-variable", rf"2x = {g}"),
        ("lhs-not-a-variable", rf"x^2 = {g}"),
        ("unknown-macro", rf"{g} + ?"),
        ("unknown-macro", rf"\foo{{{g}}} + 1"),
        ("unknown-macro", rf"{g} + \ldots"),
        ("phantom-or-color", rf"\phantom{{{g}}}{other}"),
        ("phantom-or-color", rf"{other}\phantom{{{g}}}"),
        ("phantom-or-color", rf"{{\color{{white}}{g}}}{other}"),
        ("phantom-or-color", rf"\textcolor{{white}}{{{g}}}{other}"),
        ("every-integer", r"1, 2, 3, \ldots, 1000"),
        ("every-integer", r"0, 1, 2, \dots"),
        ("every-integer", r"\mathbb{Z}"),
        ("every-integer", r"\text{all integers}"),
        ("every-integer", r"\text{any real number}"),
    ]


# Trailing words that are not units: each changes the value or is not a value at all.
NOT_UNITS = ["e^2", "x^2", " hundred", " lakh", " crore", " bn", " score", " gross",
             " halves", " tenths", " Pi", " sqrt2", " log", r"\pi", r"\sqrt{2}",
             r" \text{ is wrong}", r"\text{ million}", r" \text{ thousand}", " dozen",
             r"\text{ squared}", "!"]


# ---------------------------------------------------------------------------------------
# hand-written expression golds: (gold, [renderings], [near-misses])

EXPRESSIONS = [
    (r"1-\frac{1}{\mathrm{e}}",
     [r"1-\frac{1}{e}", r"1 - e^{-1}", r"\frac{e-1}{e}", r"\frac{\mathrm{e}-1}{\mathrm{e}}",
      r"1-\frac{1}{\text{e}}", r"1-\frac{1}{\operatorname{e}}", r"1-\mathrm{e}^{-1}",
      r"-\frac{1}{e}+1", r"1 - \frac{1}{\mathrm{e}}"],
     [r"1+\frac{1}{\mathrm{e}}", r"1+\frac{1}{e}", r"1-\frac{1}{\pi}",
      r"1-\frac{2}{\mathrm{e}}", r"1-\mathrm{e}", r"\frac{1}{\mathrm{e}}-1",
      r"1-\frac{1}{\mathrm{e}^2}", r"1+\frac{1}{\text{e}}", r"1+\frac{1}{\operatorname{e}}",
      r"1+\mathrm{e}^{-1}", r"1-\frac{1}{\mathrm{e}}+?", r"1+\frac{1}{\mathit{e}}",
      r"1-\sqrt{\frac{1}{\mathrm{e}}}", r"1-\frac{1}{\mathrm{e}}\text{ is wrong}"]),
    (r"\frac{\mathrm{e}-1}{\mathrm{e}}",
     [r"1-\frac{1}{e}", r"\frac{e-1}{e}", r"1-\mathrm{e}^{-1}"],
     [r"\frac{\mathrm{e}+1}{\mathrm{e}}", r"-1", r"\frac{\mathrm{e}-1}{\pi}",
      r"\frac{\text{e}+1}{\text{e}}", r"\frac{1-\mathrm{e}}{\mathrm{e}}"]),
    (r"\mathrm{e}^{2}",
     [r"e^2", r"e^{2}", r"\text{e}^2", r"\exp(2)"],
     [r"\mathrm{e}^{-2}", r"2\mathrm{e}", r"\pi^2", r"\mathrm{e}^{3}", r"\text{e}^{-2}"]),
    (r"\frac{9}{4}\pi",
     [r"\frac{9\pi}{4}", r"2.25\pi", r"\frac94\pi", r"\frac{9}{4}\,\pi", r"\pi\cdot\frac{9}{4}"],
     [r"\frac{9}{4}", r"\frac{9}{4}\pi^2", r"-\frac{9}{4}\pi", r"\frac{4}{9}\pi",
      r"\frac{9}{4}e", r"\frac{9}{4}\pi+1", r"\frac{9}{4}\mathrm{e}"]),
    (r"3\sqrt{13}",
     [r"\sqrt{117}", r"3 \sqrt{13}", r"3\sqrt13", r"\sqrt{9 \cdot 13}"],
     [r"3\sqrt{31}", r"-3\sqrt{13}", r"\sqrt{39}", r"13\sqrt{3}", r"3\sqrt{13}+1",
      r"3\sqrt{12}"]),
    (r"\sqrt{2}+\sqrt{5}",
     [r"\sqrt 2+\sqrt 5", r"\sqrt{5}+\sqrt{2}"],
     [r"\sqrt{2}-\sqrt{5}", r"\sqrt{5}-\sqrt{2}", r"\sqrt{7}", r"\sqrt{2}+\sqrt{3}",
      r"-\sqrt{2}-\sqrt{5}"]),
    (r"\frac{5\sqrt{42}}{27}",
     [r"\frac{5}{27}\sqrt{42}", r"\frac{\sqrt{1050}}{27}"],
     [r"\frac{5\sqrt{24}}{27}", r"-\frac{5\sqrt{42}}{27}", r"\frac{5\sqrt{42}}{72}"]),
    (r"\frac{\sqrt{\sqrt{11}+\sqrt{194}}}{15+2\sqrt{33}}",
     [r"\frac{\sqrt{\sqrt{11}+\sqrt{194}}}{2\sqrt{33}+15}"],
     [r"\frac{\sqrt{\sqrt{11}+\sqrt{194}}}{15-2\sqrt{33}}"]),
    (r"2\pi",
     [r"2\text{π}", r"2π", r"2\mathrm{\pi}", r"\pi \cdot 2"],
     [r"2\pi^2", r"\pi", r"-2\pi", r"2\mathrm{e}", r"2\pi + ?"]),
    (r"\ln 2",
     [r"\ln(2)", r"\ln{2}", r"\log_e 2"],
     [r"\ln 3", r"-\ln 2", r"\log_{10} 2", r"2"]),
]

# k > 0 golds that a symbol times a unit reaches (issue: `9\pi\text{ m}^2` at k = 2)
ROUNDED_SYMBOLIC = [
    ("28.27", 2, [r"9\pi\text{ m}^2", r"9\pi \,\mathrm{m}^2", r"9\pi", r"28.274\text{ m}^2"],
     [r"9\pi^2\text{ m}^2", r"8\pi\text{ m}^2", r"18\pi", r"28.72", r"9\pi \text{ is wrong}"]),
    ("3.14", 2, [r"\pi", r"\mathrm{\pi}", r"\text{π}"], [r"\pi^2", r"3.41", r"\pi + ?"]),
    ("2.72", 2, [r"\mathrm{e}", r"e", r"\text{e}", r"\operatorname{e}"],
     [r"\mathrm{e}^2", r"2.27", r"3e^2", r"\frac{1}{\mathrm{e}}"]),
]


# ---------------------------------------------------------------------------------------
# times of day, money, percent, scientific golds (each: gold, renderings, near-misses)

TIMES = [
    ("7:15", ["7:15", "07:15", r"7{:}15", r"7:15 \text{ a.m.}", "7:15 AM", r"7:15\,\mathrm{AM}",
              r"\text{7:15 a.m.}"],
     ["14:30", r"\frac{7}{15}", "7/15", "7:51", "7:16", "8:15", "15:7", "0.4667"]),
    ("12:30", ["12:30", r"12:30 \text{ p.m.}", "12:30 PM"],
     ["6:15", "24:60", "12:03", "1:30", r"\frac{12}{30}", "2:5"]),
    ("1:20", ["1:20", "01:20", r"1:20 \text{ a.m.}"],
     ["2:40", "3:60", "1:02", r"\frac{1}{20}", "1:21"]),
    ("9:15", ["9:15", "9:15 AM"], ["18:30", "3:5", "9:51", "9:16"]),
    ("19:15", ["19:15", r"7:15 \text{ p.m.}", "7:15 PM", "7:15 pm", r"7{:}15\ \mathrm{PM}"],
     [r"7:15 \text{ a.m.}", "19:51", "38:30", "7:15 AM"]),
    ("0:00", [r"12:00 \text{ midnight}", "00:00", r"12:00 \text{ a.m.}", "12:00 AM"],
     ["12:00", r"12:00 \text{ noon}", "12:00 PM", "0:01"]),
    ("12:00", ["12:00", r"12:00 \text{ noon}", "12:00 PM"],
     ["1:00", "6:00", "12:01", "2:00"]),
    ("9:05", ["9:05", "9:05 AM", "09:05", r"9{:}05\text{ a.m.}"],
     ["9:50", "9:06", "18:10"]),
]

MONEY = [
    ("4.25", 2, ["€4.25", "£4.25", "¥4.25", "₹4.25", "USD 4.25", "Rs. 4.25", r"\$4.25",
                 r"\$ 4.25", "4.25 USD", r"4.25\text{ euros}", r"\text{€}4.25", "EUR 4.25",
                 r"\text{Rs. }4.25"],
     ["€42.5", "USD 4.52", "£4.26", "Rs. 425", "₹0.425", r"\$4.35", "-€4.25"]),
    ("250", 0, ["Rs. 250", "₹250", "INR 250", "250 rupees", r"\text{₹}250", "Rs 250",
                r"\text{Rs. } 250", "¥250", "£250.00"],
     ["Rs. 25", "₹2500", "INR 205", "Rs. 2.50", "₹ 520"]),
    ("22500", 0, [r"\$22,\!500", "£22,500", r"22\,500\text{ USD}", "€22 500", r"22{,}500"],
     [r"\$2,\!2500", "£2,250", r"\$22.5", "€225,00", r"22,\!050"]),
    (r"\$4.25", 2, ["4.25", "USD 4.25", r"\$4.25"], [r"\$4.52", "425", r"\$0.425"]),
]

PERCENTS = [
    (r"12.5\%", 0, [r"12.5\%", r"12\frac{1}{2}\%", r"12 \frac12 \%", "12.5 %", "12.5 percent",
                    r"\frac{25}{2}\%", "0.125", r"\frac{1}{8}", r"12.50\%", "12½%",
                    r"12.5\text{\%}", "12.5"],
     [r"0.125\%", r"1250\%", r"12.6\%", r"21.5\%", r"-12.5\%", r"12\frac{1}{4}\%", r"125\%",
      r"1.25\%", r"0.0125"]),
    (r"25\%", 0, [r"25\%", "25", "0.25", r"\frac{1}{4}", "25 percent", r"25\text{ percent}"],
     [r"0.25\%", r"2500\%", "2500", "0.0025", r"26\%", r"52\%", r"\pm 25\%"]),
    (r"28\%", 0, ["28 percent", "28 pct", r"28\%", "0.28"], [r"0.28\%", r"2800\%", r"82\%"]),
    ("12.5", 0, [r"12\frac{1}{2}\%", r"12.5\%", r"12\tfrac{1}{2}"],
     [r"0.125\%", r"12\frac{1}{4}\%"]),
    ("0.25", 0, [r"25\%", r"\frac{1}{4}"], ["25", r"2500\%", r"0.0025\%"]),
]

SCIENTIFIC = [
    (r"1.2\times10^{6}", 0,
     [r"1.2 \times 10^6", "1.2 × 10^6", "1.2 x 10^6", "1.2·10^6", r"1.2 \cdot 10^{6}", "1.2e6",
      "1.2E6", "1.2E+06", r"1.2\times 10^{6}\text{ m}", r"1.2 \times 10^{6} m", "1200000",
      "1,200,000", "1.2×10⁶", r"12 \times 10^5"],
     [r"1.2\times10^{5}", r"1.2\times10^{-6}", r"2.1\times10^{6}", r"1.2\times10^{7}", "1.2e-6",
      "12e6", r"1.3\times10^{6}", r"-1.2\times10^{6}"]),
    (r"10^{-5}", 0,
     ["10^-5", "1e-5", r"1 \times 10^{-5}", "0.00001", "10⁻⁵", r"1\times10^{-5}", "1E-05"],
     ["10^5", "10^{-4}", "-10^{-5}", "10⁻⁴", "0.0001", "1e5", "10^{-6}", "10⁵"]),
    (r"6.02\times10^{23}", 2,
     [r"6.0221\times10^{23}", r"6.02 \times 10^{23}", "6.02e23", "6.022E+23"],
     [r"6.2\times10^{23}", r"6.02\times10^{22}", r"6.03\times10^{23}", r"6.02\times10^{-23}"]),
    (r"1.6\times10^{-19}", 2,
     [r"1.602\times10^{-19}", "1.6e-19", r"1.60 \times 10^{-19}", "1.6×10⁻¹⁹"],
     [r"2\times10^{-19}", r"1.6\times10^{19}", r"1.6\times10^{-18}", r"6.1\times10^{-19}"]),
]

LISTS = [
    ("3, 5, 8", ["{3, 5, 8}", r"\{3,5,8\}", r"3, 5, \text{ and } 8", r"3, 5, \text{and } 8",
                 "8, 5, 3", r"x \in \{3, 5, 8\}", "3; 5; 8", r"x=3 \text{ or } x=5 \text{ or } x=8",
                 r"5, 3 \text{ and } 8"],
     ["3, 5", "3, 5, 8, 9", "3, 5, 9", r"\{3,5,8,8\}", "{3, 8}", "-3, 5, 8", "35, 8",
      r"3, 5, \text{ or } 8 \text{ (not sure which)}"]),
    ("-2, 1", [r"\{-2, 1\}", "1, -2", r"x=-2 \text{ or } x=1", r"-2 \text{ and } 1"],
     ["-2", "2, 1", "-2, 1, 0", "-2, -1", "{-2, 1, 1}"]),
    ("19, 46, 82", [r"19, 46, \text{ and } 82", "{82, 46, 19}", "19, 46 and 82"],
     ["21, 36, 82", "19, 46", "19, 64, 82", "19, 46, 82, 100"]),
    ("-12;-11;-10;-8;-7;-6", [r"\{-12, -11, -10, -8, -7, -6\}", "-6, -7, -8, -10, -11, -12"],
     [r"\{-12, -11, -10, -9, -8, -7, -6\}", r"\{-12, -11, -10, -8, -7\}",
      r"\{12, 11, 10, 8, 7, 6\}"]),
    ("7, 21, 40", [r"7, 21, \text{ and } 40", "{7, 21, 40}", r"7,\ 21,\ 40"],
     ["7, 21", "7, 12, 40", "7, 21, 40, 41"]),
]

PLUS_MINUS = [
    (r"\pm 3", [r"\pm 3", "-3, 3", "3, -3", r"\{-3, 3\}", r"x = \pm 3", "±3", r"\mp 3",
                r"x=3 \text{ or } x=-3"],
     ["3", "-3", r"\pm 4", "3, 3", r"\pm 3, 0", r"\pm\sqrt{3}", r"3 \pm 0"]),
    (r"1\pm\sqrt{19}", [r"1 \pm \sqrt{19}", r"1-\sqrt{19}, 1+\sqrt{19}",
                        r"\{1+\sqrt{19}, 1-\sqrt{19}\}", r"x = 1 \pm \sqrt{19}"],
     [r"1+\sqrt{19}", r"1-\sqrt{19}", r"-1\pm\sqrt{19}", r"1\pm\sqrt{91}", r"\pm\sqrt{19}",
      r"1\pm 19"]),
    (r"\pm 2021", [r"\{-2021, 2021\}", r"\pm 2021", "2021, -2021"],
     ["2021", "-2021", r"\pm 2012", r"\pm 2021, 0"]),
    ("3", [], [r"\pm 3", "-3, 3", r"3 \pm 1"]),
]

# The issue's own forms, always in the corpus (not sampled): (answer_type, gold, k, kind, answer)
ISSUE_FORMS = [
    ("number", r"\frac{2}{3}", 0, "unicode-fraction", "⅔"),
    ("number", r"\frac{13}{4}", 0, "unicode-fraction", "3¼"),
    ("number", r"\frac{2}{3}", 0, "frac-trailing-words", r"\frac{2}{3}\text{ of the cake}"),
    ("number", "12", 0, "wrapper", r"\underline{12}"),
    ("number", "22500", 0, "latex-separator", r"22,\!500"),
    ("number", "22500", 0, "latex-separator", r"22\,500"),
    ("number", "-1.5", 0, "unicode-minus", "\u22121.5"),
    ("interval", "[0,360)", 0, "interval-3-digit", "[0,360)"),
    ("interval", "[0,360)", 0, "interval-3-digit", "[0, 360)"),
    ("interval", "[0,360)", 0, "interval-3-digit", r"0 \le x < 360"),
    ("interval", "[2,5]", 0, "interval-semicolon", "[2;5]"),
    ("interval", r"(-\infty,-2)\cup(2,\infty)", 0, "interval", "(-inf, -2) U (2, inf)"),
    ("interval", r"(-\infty,-2)\cup(2,\infty)", 0, "interval-complement", r"\mathbb{R} - [-2,2]"),
    ("interval", r"(-\infty,-2)\cup(2,\infty)", 0, "interval-or",
     r"x\in(-\infty,-2) \text{ or } x\in(2,\infty)"),
    ("interval", r"(-\infty,3)\cup(3,\infty)", 0, "interval-condition", r"x \neq 3"),
    ("interval", r"(0,\infty)", 0, "interval-condition", r"x\in\mathbb{R}, x>0"),
]

WORDED_WHOLE = [   # whole responses: statements written as prose (number golds)
    "Final Answer: The smallest $k$ is {g}.",
    "Final Answer: The largest $n$ is {g}.",
    "## Final Answer\nThe smallest possible value is {g}.",
    "## Final Answer\n\nThe number of ways is $ {g} $.",
    "**Final Answer**\nThe total is ${g}$.",
    "Final Answer: The final answer is ${g}$. I hope it is correct.",
    "Therefore, the final answer is: $\\boxed{{{g}}}$. I hope it is correct.",
]

WORDED_WHOLE_MISSES = [
    ("statement-hedged", "The answer is {g} (or maybe {o})."),
    ("statement-retracted", "The answer is {g}. No wait, it's {o}."),
    ("statement-hedged", "The answer is ${g}$ or ${o}$."),
    ("statement-hedged", "\\boxed {g} or {o}"),
    ("statement-retracted", "Final Answer: The smallest $k$ is {g}. Actually no: the smallest $k$ is {o}."),
    ("statement-negated", "The answer is not {g}."),
    ("statement-negated", "## Final Answer\nThe answer cannot be {g}; it is {o}."),
    ("box-after-box-empty", "\\boxed{{{g}}}\\boxed{{}}"),
    ("box-after-box-empty", "$\\boxed{{{g}}}$ ... final: $\\boxed{{ }}$"),
    ("box-after-box-unclosed", "\\boxed{{{g}}}\n\nWait, let me redo this: \\boxed{{{o}"),
    ("box-commented-out", "\\boxed{{{o}}} % \\boxed{{{g}}}"),
    ("box-commented-out", "\\boxed{{{o}}}<!-- \\boxed{{{g}}} -->"),
    ("box-commented-out", "$\\boxed{{{o}}}$\n% final: \\boxed{{{g}}}"),
]
# The three box cases above are the issue's "empty, unclosed or commented-out last box":
# decided here as a careful grader would. The last box is the answer (GRADING.md step 2.1):
# - an empty last box states nothing, so the answer is not the earlier box: not correct
#   (no_answer). This reverses docs/grading.md's "the last non-empty box counts" and the
#   REVIEW row `\boxed{7}\boxed{}` in test_grading_contract.py, which the lead must update;
# - an unclosed last box is the model's final, unfinished answer: the earlier complete box
#   was abandoned, so not correct;
# - a box in a TeX comment (`% ...` to the end of the line) or an HTML comment is not
#   shown to a reader: the live answer is the other box, wrong here.

CHOICE_WHOLE = [   # (gold, response) in prose, each must read as exactly the gold
    ("C", "The correct choice is (C) 5/8."), ("C", "The correct option is C."),
    ("C", "Answer: (C)"), ("C", "**Answer:** C"), ("C", "The answer is $\\boxed{\\text{(C)}}$."),
    ("C", "The answer is C."), ("C", "Final answer: C"),
    ("AE", "The answers are A and E."), ("AE", "The correct options are A and E."),
    ("AE", "\\boxed{A, E}"), ("AE", "Final answer: A, E"),
    ("BCE", "The correct options are B, C, E."), ("BCE", "B, C and E only"),
    ("BCE", "\\boxed{BCE}"), ("BCE", "\\boxed{\\text{B, C, E}}"),
    ("BCE", "The correct options are (B), (C) and (E)."), ("BCE", "**Answer:** B, C, E"),
]

CHOICE_WHOLE_MISSES = [
    ("C", "The correct choice is (D) 5/8."), ("C", "\\boxed{C (or D)}"),
    ("C", "\\boxed{\\text{C. is wrong}}"), ("C", "\\boxed{(C) \\text{ is false; the answer is } D}"),
    ("C", "\\boxed{C \\text{ or } D}"), ("C", "\\boxed{\\text{not } C}"),
    ("C", "The answer is C or D."), ("C", "\\boxed{\\text{either C or B}}"),
    ("C", "\\boxed{A, B, C, D, E}"), ("C", "The answer is (C). No wait, it's (D)."),
    ("C", "\\boxed{C}\\boxed{}"), ("C", "\\boxed{D} % \\boxed{C}"),
    ("C", "\\boxed{D}<!-- \\boxed{C} -->"),
    ("AE", "The answers are A and F."), ("AE", "The answers are A, E and F."),
    ("AE", "\\boxed{A}"), ("AE", "\\boxed{A, B, C, D, E}"),
    ("BCE", "B and C only"), ("BCE", "The correct options are B, C, D, E."),
    ("BCE", "\\boxed{B, C, E (or maybe D)}"), ("BCE", "\\boxed{BCEF}"),
]

OPEN = [   # (answer_type, gold, k, candidate-or-response, proposed verdict and why)
    ("number", "7:15", 0, "The answer is $7:15 \\text{ p.m.}$.",
     "incorrect: a gold time without a meridiem is read on the 24-hour clock (07:15)"),
    ("number", "12:00", 0, "\\boxed{12:00 \\text{ midnight}}",
     "incorrect: 12:00 on the 24-hour clock is noon"),
    ("number", "7:15", 0, "\\boxed{7.15}", "incorrect: a decimal is not a time"),
    ("number", "9:05 \\text{ AM}", 0, "\\boxed{9:05}",
     "correct: 9:05 on the 24-hour clock is 9:05 a.m."),
    ("number", "7:15", 0, "\\boxed{7\\text{h}15}", "correct: 7h15 is a common way to write 7:15"),
    ("number", "22500", 0, "\\boxed{22.500}",
     "incorrect: the period is a decimal point in this benchmark's notation"),
    ("number", "22.5", 0, "\\boxed{22,5}",
     "correct: a decimal comma (one value gold, the digits after the comma are not a group of three)"),
    ("number", "4.25", 2, "\\boxed{€4,25}", "correct: a decimal comma with a euro amount"),
    ("number", "32349", 0, "\\boxed{32, 349}",
     "incorrect: a comma followed by a space separates list items (math-verify agrees)"),
    ("number", "\\frac{64}{15}", 0, "\\boxed{4\\frac{4}{15}}",
     "correct: a mixed number, as school mathematics writes it"),
    ("number", "1.5", 0, "\\boxed{1\\frac{1}{2}}", "correct: a mixed number"),
    ("number", "0.25", 0, "\\boxed{0.25\\%}",
     "correct by today's rule (the written number equals the gold); a stricter reading says 0.0025"),
    ("number", "12", 0, "\\boxed{1\u200b2}",
     "correct: the zero-width space is invisible, the answer reads 12"),
    ("number", "1-\\frac{1}{\\mathrm{e}}", 0, "\\boxed{1-\\frac{1}{\\mathit{e}}}",
     "correct: an italic e is still Euler's number"),
    ("number", "1200", 0, "\\boxed{12 \\text{ hundred}}", "correct: a scale word, like 7 dozen"),
    ("interval", "[0,360)", 0, "\\boxed{[0^\\circ, 360^\\circ)}", "correct: degrees are a unit"),
    ("interval", "(-\\infty,-2)\\cup(2,\\infty)", 0, "\\boxed{|x| > 2}",
     "correct: the same set"),
    ("number", "12", 0, "\\boxed{\\textcolor{red}{12}}", "correct: a visible, coloured 12"),
    ("number", "12", 0, "\\boxed{12.}", "correct: a sentence period inside the box"),
    ("number", "12.5", 0, "\\boxed{1250\\%}",
     "incorrect: 12.5 is the percentage the question asks for (today's rule, a percent sign "
     "accepts the hundredth, makes it correct)"),
    ("number", "3+4i", 0, "\\boxed{3+4\\mathrm{i}}",
     "correct, if a complex number is a number gold (today the gold is refused)"),
    ("number", "3+4i", 0, "\\boxed{3-4\\mathrm{i}}", "incorrect: the conjugate"),
    ("number", "3, 5, 8", 0, "\\boxed{(3, 5, 8)}",
     "incorrect: a tuple is ordered; the gold is a list of values (or correct as a list?)"),
    ("number", "12", 0, "\\boxed{12}\\boxed{12}", "correct: the same value twice"),
    ("number", "7", 0, "Final answer: 7. \\boxed{}",
     "correct (as today): a stated answer before an empty box"),
]


# ---------------------------------------------------------------------------------------
# interval golds: parsed here into pieces, rendered and mutated from the pieces

INF = "inf"


def _endpoint(s: str):
    s = s.strip()
    if s in (r"+\infty", r"\infty"):
        return INF
    if s == r"-\infty":
        return "-" + INF
    v = scalar_value(s)
    if v is None:
        raise ValueError(f"endpoint {s!r}")
    return v


def parse_interval(gold: str) -> list[tuple]:
    pieces = []
    for part in gold.split(r"\cup"):
        part = part.strip()
        lo_c, hi_c = part[0] == "[", part[-1] == "]"
        depth, cut = 0, None
        inner = part[1:-1]
        for i, c in enumerate(inner):
            depth += c == "{"
            depth -= c == "}"
            if c == "," and depth == 0:
                cut = i
        pieces.append((_endpoint(inner[:cut]), lo_c, _endpoint(inner[cut + 1:]), hi_c))
    return pieces


def ep_text(e, style: str) -> str:
    if e == INF:
        return {"latex": r"\infty", "plus": r"+\infty", "unicode": "∞", "word": "inf"}[style]
    if e == "-" + INF:
        return {"latex": r"-\infty", "plus": r"-\infty", "unicode": "-∞", "word": "-inf"}[style]
    if style == "word":
        d = decimal_text(e)
        return d if d is not None else f"{e.numerator}/{e.denominator}"
    if style == "unicode":
        d = decimal_text(e)
        return d if d is not None else latex_of(e).replace(r"\frac", r"\dfrac")
    return latex_of(e)


def piece_text(p, style="latex", sep=",", space=False) -> str:
    lo, lc, hi, hc = p
    s = ", " if space else sep
    return ("[" if lc else "(") + ep_text(lo, style) + s + ep_text(hi, style) + ("]" if hc else ")")


def union_text(pieces, style="latex", union=r"\cup", sep=",", space=False) -> str:
    return union.join(piece_text(p, style, sep, space) for p in pieces)


def ineq_text(p) -> str:
    lo, lc, hi, hc = p
    if lo == "-" + INF and hi == INF:
        return r"x \in \mathbb{R}"
    if lo == "-" + INF:
        return "x " + (r"\le " if hc else "< ") + ep_text(hi, "latex")
    if hi == INF:
        return "x " + (r"\ge " if lc else "> ") + ep_text(lo, "latex")
    return (ep_text(lo, "latex") + (r" \le " if lc else " < ") + "x"
            + (r" \le " if hc else " < ") + ep_text(hi, "latex"))


def interval_renderings(pieces, rng) -> list[tuple[str, str, bool]]:
    out = []
    add = lambda kind, s, plain=False: out.append((kind, s, plain))
    add("interval", union_text(pieces, space=True))
    add("interval", "x \\in " + union_text(pieces))
    add("interval", union_text(pieces, "plus"))
    add("interval", union_text(pieces, "unicode", "∪"), False)
    add("interval", union_text(pieces, "word", " U ", space=True), True)
    add("interval", union_text(pieces).replace("[", r"\left[").replace("(", r"\left(")
        .replace("]", r"\right]").replace(")", r"\right)"))
    add("interval-3-digit", union_text(pieces, space=True))  # same, named for the 3-digit kind
    add("interval-inequality", r" \text{ or } ".join(ineq_text(p) for p in pieces))
    if len(pieces) > 1:
        rev = list(reversed(pieces))
        add("interval-union-order", union_text(rev))
        add("interval-or", r" \text{ or } ".join("x \\in " + piece_text(p) for p in pieces))
    if all(p[0] not in (INF, "-" + INF) and p[2] not in (INF, "-" + INF) for p in pieces):
        add("interval-semicolon", union_text(pieces, sep=";"))
        add("interval-semicolon", union_text(pieces, sep="; "))
    if len(pieces) == 1:
        add("interval-set-builder", r"\{x \mid " + ineq_text(pieces[0]) + r"\}")
    # the complement forms the issue names
    if len(pieces) == 2 and pieces[0][0] == "-" + INF and pieces[1][2] == INF:
        a, b = pieces[0][2], pieces[1][0]
        if a == b and not pieces[0][3] and not pieces[1][1]:
            add("interval-condition", rf"x \neq {ep_text(a, 'latex')}")
            add("interval-condition", rf"x\in\mathbb{{R}}, x \neq {ep_text(a, 'latex')}")
            add("interval-condition", rf"\mathbb{{R}} \setminus \{{{ep_text(a, 'latex')}\}}")
        elif a != b:
            gap = (("(" if pieces[0][3] else "[") + ep_text(a, "latex") + ","
                   + ep_text(b, "latex") + (")" if pieces[1][1] else "]"))
            add("interval-complement", r"\mathbb{R} - " + gap)
            add("interval-complement", r"\mathbb{R} \setminus " + gap)
    if len(pieces) == 1 and pieces[0][2] == INF and pieces[0][0] not in (INF, "-" + INF):
        add("interval-condition", r"x\in\mathbb{R}, " + ineq_text(pieces[0]))
    return out


def _ep_mutants(e) -> list:
    if e in (INF, "-" + INF):
        return []
    out = [e + 1, e - 1]
    if e != 0:
        out.append(-e)
    d = decimal_text(e)
    if d is not None and e.denominator == 1 and abs(e) >= 10:
        out += [Fraction(m) for m in _digit_mutants(d)]
    return out


def interval_misses(pieces) -> list[tuple[str, str]]:
    out = []
    n = len(pieces)
    for i, (lo, lc, hi, hc) in enumerate(pieces):
        rest = pieces[:i], pieces[i + 1:]
        def put(p, cause):
            out.append((cause, union_text(rest[0] + [p] + rest[1], space=True)))
        if lo not in (INF, "-" + INF):
            put((lo, not lc, hi, hc), "endpoint-opened-or-closed")
        if hi not in (INF, "-" + INF):
            put((lo, lc, hi, not hc), "endpoint-opened-or-closed")
        if lo not in (INF, "-" + INF) and hi not in (INF, "-" + INF):
            put((lo, not lc, hi, not hc), "endpoints-both-flipped")
            put((hi, lc, lo, hc), "endpoints-swapped")
        for m in _ep_mutants(lo)[:4]:
            if hi == INF or m < hi:
                put((m, lc, hi, hc), "endpoint-value")
        for m in _ep_mutants(hi)[:4]:
            if lo == "-" + INF or m > lo:
                put((lo, lc, m, hc), "endpoint-value")
        if n > 1:
            out.append(("union-piece-missing", union_text(rest[0] + rest[1], space=True)))
    if n > 1:
        lo, lc = pieces[0][0], pieces[0][1]
        hi, hc = pieces[-1][2], pieces[-1][3]
        out.append(("union-gap-filled", piece_text((lo, lc, hi, hc))))
    last_hi = pieces[-1][2]
    if last_hi != INF:
        far = last_hi + 100
        out.append(("union-piece-added", union_text(pieces + [(far, True, far + 1, True)])))
    return out


# ---------------------------------------------------------------------------------------
# choice golds

def choice_renderings(gold: str) -> list[str]:
    return list(dict.fromkeys(_choice_renderings(gold)))


def _choice_renderings(gold: str) -> list[str]:
    L = list(gold)
    out = [gold, ", ".join(L), " and ".join(L) if len(L) <= 2 else ", ".join(L[:-1]) + " and " + L[-1],
           "".join(f"({c})" for c in L), r"\text{" + ", ".join(L) + "}",
           ", ".join(reversed(L))]
    if len(L) == 1:
        out += [rf"\text{{({gold})}}", f"({gold})", rf"\textbf{{{gold}}}", rf"\text{{Option {gold}}}"]
    return out


def choice_misses(gold: str, single: bool, rng) -> list[tuple[str, str]]:
    letters = "ABCDEF"
    L = list(gold)
    others = [c for c in letters if c not in L]
    out = []
    if len(L) > 1:
        for c in L:
            out.append(("choice-missing", ", ".join(x for x in L if x != c)))
    out.append(("choice-extra", ", ".join(sorted(L + [others[0]]))))
    out.append(("choice-swapped", ", ".join(L[:-1] + [others[-1]])))
    out.append(("choice-every-option", ", ".join(letters)))
    out.append(("choice-hedged", f"{gold} (or {others[0]})"))
    out.append(("choice-hedged", rf"{gold} \text{{ or }} {others[1]}"))
    out.append(("choice-negated", rf"\text{{{L[0]}. is wrong}}" if len(L) == 1 else
                rf"\text{{not }} {gold}"))
    out.append(("choice-negated", rf"({L[0]}) \text{{ is false; the answer is }} {others[0]}"))
    return out


# ---------------------------------------------------------------------------------------
# the corpus

PROSE = ("the-answer-is-plain", "final-answer-colon-plain", "bold-answer-plain", "bold-value")


def _emit(cases, rng, family, kind, t, gold, k, cand, plain, n_frames, prefix_gold=None):
    if re.search(r"(?<!\\)%", cand):
        # a bare % starts a TeX comment: such an answer is only ever written in prose
        frames = [f for f in FRAMES if f[0] in PROSE]
    else:
        frames = [f for f in FRAMES if plain or not f[2]]
    for frame in rng.sample(frames, min(n_frames, len(frames))):
        resp = framed(cand, frame)
        if rng.random() < 0.5:
            inside = (rf"At first I got $\boxed{{{prefix_gold}}}$." if prefix_gold
                      else rf"A first guess was $\boxed{{{rng.choice(DISTRACTORS)}}}$.")
            resp = think(rng, inside) + resp
        cases.append(Case(family, kind, t, gold, k, resp))


def _whole(cases, rng, family, kind, t, gold, k, response, prefix_gold=None, once=False):
    for with_think in ([rng.random() < 0.5] if once else (False, True)):
        r = response
        if with_think:
            inside = (rf"At first I got $\boxed{{{prefix_gold}}}$." if prefix_gold
                      else r"A first guess was $\boxed{999}$.")
            r = think(rng, inside) + r
        cases.append(Case(family, kind, t, gold, k, r))


# Per sample gold, a seeded choice among its renderings and near-misses (every kind is
# still reached across the ~150 golds), so that the corpus stays a few thousand cases.
PER_GOLD_RENDERINGS = 8
PER_GOLD_MISSES = 12


def _pick(rng, items, n, seen: set | None = None):
    """n of items at random; with `seen`, items of a kind not yet emitted come first, so that
    every kind of rendering or near-miss appears somewhere in the corpus."""
    items = list(items)
    if len(items) <= n:
        chosen = items
    else:
        first = []
        if seen is not None:
            fresh = {}
            for it in items:
                if it[0] not in seen:
                    fresh.setdefault(it[0], it)
            first = list(fresh.values())[:n]
        rest = [it for it in items if it not in first]
        chosen = first + rng.sample(rest, n - len(first))
    if seen is not None:
        seen.update(it[0] for it in chosen)
    return chosen


def build_corpus(seed: int = SEED, with_sample: bool = True) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    golds = (sample_golds() if with_sample else []) + OFFICIAL_GOLDS + MV_PLAIN_GOLDS \
        + MV_INTERVAL_GOLDS + CHOICE_EXTRA
    seen = set()
    seen_r: set = set()
    seen_m: set = set()
    for t, gold, k in golds:
        if (t, gold, k) in seen:
            continue
        seen.add((t, gold, k))
        if t == "number":
            v = scalar_value(gold)
            if v is None:
                continue
            renders = scalar_renderings(v, k)
            for kind, cand, plain in _pick(rng, renders, PER_GOLD_RENDERINGS, seen_r):
                _emit(cases, rng, "render", kind, t, gold, k, cand, plain, 1)
            g = decimal_text(v, k or None) or latex_of(v)
            o = decimal_text(v + 1) or latex_of(v + 1)
            misses = [(c, cand) for c, cand, _ in scalar_misses(v, k, gold)]
            misses += hedge_misses(g, o)
            if v != 0:
                for w in NOT_UNITS:
                    if (w == "!" and v in (1, 2)) or ("squared" in w and v == 1):
                        continue
                    misses.append(("trailing-word-not-a-unit", g + w))
                for zw in ("\u200b", "\u200c", "\u2060"):
                    misses += [("invisible-character", f"5{zw}{g}"),
                               ("invisible-character", f"{g}{zw}5")]
                pct = decimal_text(v / 100)
                if pct:
                    misses += [("percent-hides-100", pct + r"\%"), ("percent-hides-100", pct)]
            for cause, cand in _pick(rng, misses, PER_GOLD_MISSES, seen_m):
                _emit(cases, rng, "miss", cause, t, gold, k, cand, "\\" not in cand, 1, gold)
            for tmpl in _pick(rng, WORDED_WHOLE, 2):
                _whole(cases, rng, "render", "statement", t, gold, k, tmpl.format(g=g), once=True)
            for cause, tmpl in _pick(rng, WORDED_WHOLE_MISSES, 4):
                _whole(cases, rng, "miss", cause, t, gold, k, tmpl.format(g=g, o=o), gold,
                       once=True)
        elif t == "interval":
            pieces = parse_interval(gold)
            for kind, cand, plain in _pick(rng, interval_renderings(pieces, rng),
                                           PER_GOLD_RENDERINGS, seen_r):
                _emit(cases, rng, "render", kind, t, gold, k, cand, plain, 1)
            for cause, cand in _pick(rng, interval_misses(pieces), PER_GOLD_MISSES - 2, seen_m):
                _emit(cases, rng, "miss", cause, t, gold, k, cand, False, 1, gold)
        else:
            for cand in choice_renderings(gold):
                if t == "single_choice" and len(gold) > 1:
                    continue
                _emit(cases, rng, "render", "choice", t, gold, k, cand, "\\" not in cand, 1)
            for cause, cand in choice_misses(gold, t == "single_choice", rng):
                _emit(cases, rng, "miss", cause, t, gold, k, cand, "\\" not in cand, 1, gold)
    for t, gold, k, kind, cand in ISSUE_FORMS:
        _emit(cases, rng, "render", kind, t, gold, k, cand, "\\" not in cand, 2)
    # hand-written golds
    for gold, renders, misses in EXPRESSIONS:
        # a case math-verify is slow on is graded once: a timeout is not cached
        frames = 1 if len(gold) > 40 else 2
        for cand in renders:
            _emit(cases, rng, "render", "constant-or-expression", "number", gold, 0, cand,
                  False, frames)
        for cand in misses:
            _emit(cases, rng, "miss", "expression-changed", "number", gold, 0, cand, False,
                  frames, gold)
    for gold, k, renders, misses in ROUNDED_SYMBOLIC:
        for cand in renders:
            _emit(cases, rng, "render", "symbol-times-unit", "number", gold, k, cand, False, 3)
        for cand in misses:
            _emit(cases, rng, "miss", "expression-changed", "number", gold, k, cand, False, 2, gold)
    for table, kind in ((TIMES, "time"), (PERCENTS, "percent"), (SCIENTIFIC, "scientific"),
                        (MONEY, "currency")):
        for entry in table:
            gold, k, renders, misses = entry if len(entry) == 4 else (entry[0], 0, *entry[1:])
            for cand in renders:
                _emit(cases, rng, "render", kind, "number", gold, k, cand, "\\" not in cand, 2)
            for cand in misses:
                _emit(cases, rng, "miss", f"{kind}-changed", "number", gold, k, cand,
                      "\\" not in cand, 2, gold)
    for table, kind in ((LISTS, "list"), (PLUS_MINUS, "plus-minus")):
        for gold, renders, misses in table:
            for cand in renders:
                _emit(cases, rng, "render", kind, "number", gold, 0, cand, "\\" not in cand, 2)
            for cand in misses:
                _emit(cases, rng, "miss", f"{kind}-changed", "number", gold, 0, cand,
                      "\\" not in cand, 2, gold)
    for gold, resp in CHOICE_WHOLE:
        t = "single_choice" if len(gold) == 1 else "multiple_choice"
        _whole(cases, rng, "render", "choice-in-prose", t, gold, 0, resp)
    for gold, resp in CHOICE_WHOLE_MISSES:
        t = "single_choice" if len(gold) == 1 else "multiple_choice"
        _whole(cases, rng, "miss", "choice-hedged-or-wrong", t, gold, 0, resp, gold)
    for t, gold, k, resp, proposed in OPEN:
        cases.append(Case("open", "open", t, gold, k, resp, proposed))
    return cases


# ---------------------------------------------------------------------------------------
# grading through the public API

CHOICE_QUESTION = "Which? (A) 1 (B) 2 (C) 3 (D) 4 (E) 5 (F) 6"


def grade_cases(cases: list[Case]):
    """Grade every case through `general365.grade(rows, policy="rule")` in one batch.

    A gold the grader refuses stops a whole batch with a DataError naming the row: the
    golds are first checked one row each (cheap), the refused ones are set aside and
    reported, then the rest is graded in one call. Returns (verdicts by case index,
    {(answer_type, gold, k): reason} for refused golds)."""
    import general365

    def row(i, c: Case, response=None):
        return {"id": f"c{i}", "run": 0, "response": c.response if response is None else response,
                "answer": c.gold, "answer_type": c.answer_type, "float_round": c.float_round,
                "question": CHOICE_QUESTION if "choice" in c.answer_type else "Q?"}

    key = lambda c: (c.answer_type, c.gold, c.float_round)
    first: dict = {}
    for i, c in enumerate(cases):
        first.setdefault(key(c), i)
    refused: dict = {}
    probe = dict(first)
    for _ in range(len(probe) + 1):
        try:
            general365.grade([row(i, cases[i], "\\boxed{0}") for i in probe.values()],
                             policy="rule")
            break
        except general365.DataError as exc:
            ids = {int(m) for m in re.findall(r"\bc(\d+)\b", str(exc))}
            bad = [g for g, i in probe.items() if i in ids]
            if not bad:
                raise
            for g in bad:
                refused[g] = str(exc)
                del probe[g]
    todo = [i for i, c in enumerate(cases) if key(c) not in refused]
    verdicts = dict(zip(todo, general365.grade([row(i, cases[i]) for i in todo], policy="rule")))
    return verdicts, refused


def failures(cases: list[Case], verdicts, refused):
    """(false positives, renderings not read, refused golds) as printable lines."""
    fp, missed, gold_lines = [], [], []
    asserted = {(c.answer_type, c.gold, c.float_round) for c in cases if c.family != "open"}
    for (t, gold, k), why in sorted(refused.items()):
        if (t, gold, k) in asserted:
            gold_lines.append(f"{t} gold {gold!r} k={k}: refused: {why}")
    for i, c in enumerate(cases):
        if c.family == "open":
            continue
        v = verdicts.get(i)
        status = "gold refused" if v is None else v.status.value
        line = (f"[{c.kind}] {c.answer_type} gold={c.gold!r} k={c.float_round} "
                f"response={c.response!r} -> {status}"
                + ("" if v is None else f" extracted={v.extracted!r} detail={v.detail!r}"))
        if c.family == "miss" and status == "correct":
            fp.append(line)
        elif c.family == "render" and status != "correct":
            missed.append(line)
    return fp, missed, gold_lines


def _main(argv=None) -> int:
    import argparse
    import collections
    import time
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write the failures here (a baseline file)")
    args = ap.parse_args(argv)
    cases = build_corpus()
    t0 = time.perf_counter()
    verdicts, refused = grade_cases(cases)
    took = time.perf_counter() - t0
    fp, missed, gold_lines = failures(cases, verdicts, refused)
    fam = collections.Counter(c.family for c in cases)
    lines = [f"# reader corpus: {len(cases)} cases (seed {SEED}): {fam['render']} renderings, "
             f"{fam['miss']} near-misses, {fam['open']} open; graded in {took:.1f} s",
             f"# {len(fp)} false positives, {len(missed)} renderings not read correct, "
             f"{len(gold_lines)} golds refused", ""]

    def grouped(title, items):
        by = collections.defaultdict(list)
        for it in items:
            by[it[1:it.index("]")]].append(it)
        lines.append(f"## {title}: {len(items)}")
        for kind, its in sorted(by.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"### {kind}: {len(its)}")
            lines.extend(its)
        lines.append("")
    lines.append(f"## golds refused: {len(gold_lines)}")
    lines.extend(gold_lines)
    lines.append("")
    grouped("false positives (near-misses graded correct)", fp)
    grouped("renderings not graded correct", missed)
    lines.append("## open cases (not asserted): today's verdict, proposed verdict")
    for i, c in enumerate(cases):
        if c.family == "open":
            v = verdicts.get(i)
            lines.append(f"{c.answer_type} gold={c.gold!r} k={c.float_round} response={c.response!r}"
                         f" -> {'gold refused' if v is None else v.status.value}; "
                         f"proposed: {c.proposed}")
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    print("\n".join(lines[:2]))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
