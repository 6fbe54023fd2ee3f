"""Numbers with units (`6.25\\times10^{3}\\,\\text{kbp}`, `6,250 kbp`, `722 °C`, `45%`):
read, converted to SI and compared with a relative tolerance (docs/cfe-bench.md, "Numbers
with units"). Bounded whatever the text: at most 200 characters, exponents up to
MAX_EXPONENT (beyond: out of range, not computed), unit powers up to MAX_UNIT_POWER.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

from ...answers.reader import MAX_EXPONENT
from .stated import plain

DEFAULT_TOLERANCE = 1e-2
MAX_UNIT_POWER = 12     # `m^{12}` is already beyond any physical unit

# Dimensions: length, mass, time, current, temperature, amount, luminosity, base pairs.
_DIMS = "L M T I K N J B".split()


def _d(**powers: int) -> tuple[int, ...]:
    return tuple(powers.get(k, 0) for k in _DIMS)


_NONE = _d()
_FORCE, _ENERGY, _PRESSURE = _d(M=1, L=1, T=-2), _d(M=1, L=2, T=-2), _d(M=1, L=-1, T=-2)
_POWER, _VOLT = _d(M=1, L=2, T=-3), _d(M=1, L=2, T=-3, I=-1)

# symbol -> (factor to SI, dimensions, takes SI prefixes)
UNITS: dict[str, tuple[float, tuple[int, ...], bool]] = {
    "m": (1.0, _d(L=1), True), "g": (1e-3, _d(M=1), True), "s": (1.0, _d(T=1), True),
    "A": (1.0, _d(I=1), True), "K": (1.0, _d(K=1), True), "mol": (1.0, _d(N=1), True),
    "cd": (1.0, _d(J=1), False), "Hz": (1.0, _d(T=-1), True), "N": (1.0, _FORCE, True),
    "Pa": (1.0, _PRESSURE, True), "J": (1.0, _ENERGY, True), "W": (1.0, _POWER, True),
    "C": (1.0, _d(I=1, T=1), True), "V": (1.0, _VOLT, True),
    "F": (1.0, _d(M=-1, L=-2, T=4, I=2), True), "Ω": (1.0, _d(M=1, L=2, T=-3, I=-2), True),
    "S": (1.0, _d(M=-1, L=-2, T=3, I=2), True), "Wb": (1.0, _d(M=1, L=2, T=-2, I=-1), True),
    "T": (1.0, _d(M=1, T=-2, I=-1), True), "H": (1.0, _d(M=1, L=2, T=-2, I=-2), True),
    "eV": (1.602176634e-19, _ENERGY, True), "L": (1e-3, _d(L=3), True),
    "M": (1e3, _d(N=1, L=-3), True), "bp": (1.0, _d(B=1), True),
    "Da": (1.66053906660e-27, _d(M=1), True),
    "cal": (4.184, _ENERGY, True), "Wh": (3600.0, _ENERGY, True), "bar": (1e5, _PRESSURE, True),
    "erg": (1e-7, _ENERGY, False), "dyn": (1e-5, _FORCE, False),
    "sec": (1.0, _d(T=1), False), "min": (60.0, _d(T=1), False),
    "h": (3600.0, _d(T=1), False), "hr": (3600.0, _d(T=1), False),
    "d": (86400.0, _d(T=1), False), "day": (86400.0, _d(T=1), False),
    "yr": (3.15576e7, _d(T=1), False), "atm": (101325.0, _PRESSURE, False),
    "Torr": (101325.0 / 760, _PRESSURE, False), "mmHg": (133.322387415, _PRESSURE, False),
    "psi": (6894.757293168, _PRESSURE, False), "ksi": (6894757.293168, _PRESSURE, False),
    "lb": (4.4482216152605, _FORCE, False), "lbf": (4.4482216152605, _FORCE, False),
    "kip": (4448.2216152605, _FORCE, False), "lbm": (0.45359237, _d(M=1), False),
    "in": (0.0254, _d(L=1), False), "ft": (0.3048, _d(L=1), False),
    "mi": (1609.344, _d(L=1), False), "Å": (1e-10, _d(L=1), False),
    "rad": (1.0, _NONE, False), "°": (math.pi / 180, _NONE, False),
    "deg": (math.pi / 180, _NONE, False), "rpm": (1 / 60, _d(T=-1), False),
    "%": (0.01, _NONE, False),
}
_WORDS = {"meter": "m", "metre": "m", "second": "s", "sec": "s", "gram": "g",
          "kilogram": "kg", "volt": "V", "amp": "A", "ampere": "A", "ohm": "Ω",
          "watt": "W", "joule": "J", "newton": "N", "hertz": "Hz", "kelvin": "K",
          "pascal": "Pa", "minute": "min", "hour": "h", "degree": "°", "radian": "rad",
          "percent": "%", "liter": "L", "litre": "L", "mole": "mol", "kilometer": "km",
          "centimeter": "cm", "millimeter": "mm", "nanometer": "nm", "micrometer": "µm"}
PREFIXES = {"Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6,
            "k": 1e3, "h": 1e2, "da": 1e1, "d": 1e-1, "c": 1e-2, "m": 1e-3, "µ": 1e-6,
            "u": 1e-6, "n": 1e-9, "p": 1e-12, "f": 1e-15, "a": 1e-18, "z": 1e-21, "y": 1e-24}
# Temperatures on a shifted scale: (factor, offset) to kelvin.
_TEMPERATURES = {"°C": (1.0, 273.15), "℃": (1.0, 273.15), "°F": (5 / 9, 459.67 * 5 / 9),
                 "degC": (1.0, 273.15), "degF": (5 / 9, 459.67 * 5 / 9)}


@dataclass(frozen=True)
class Unit:
    text: str                        # as written, normalized ("" for none)
    factor: float | None = 1.0       # to SI; None: a unit the table does not know
    dims: tuple[int, ...] = _NONE
    offset: float = 0.0              # °C, °F

    @property
    def known(self) -> bool:
        return self.factor is not None

    @property
    def percent(self) -> bool:
        return self.text == "%"


NO_UNIT = Unit("")

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_FACTOR = re.compile(r"(?P<sym>[^\W\d_]+|°[CF]?|%|Ω|Å|℃)\s*"
                     r"(?:\^\s*\{?\s*(?P<exp>[-+]?\d+)\s*\}?|(?P<sup>[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))?")


def _symbol(sym: str) -> tuple[float, tuple[int, ...]] | None:
    if sym in UNITS:
        return UNITS[sym][:2]
    word = sym.lower().rstrip("s") if len(sym) > 3 else None
    if word and word in _WORDS:
        return _symbol(_WORDS[word])
    for n in (2, 1):
        pre, base = sym[:n], sym[n:]
        if pre in PREFIXES and base in UNITS and UNITS[base][2]:
            f, dims, _ = UNITS[base]
            return PREFIXES[pre] * f, dims
    return None


def parse_unit(text: str) -> Unit:
    """A unit expression: factors joined by spaces, `·`, `*` or `/`, each with an optional
    power (`m^2`, `s^{-1}`, `m²`). Unknown symbols give an unknown unit (factor None)."""
    text = " ".join(text.split())
    if not text:
        return NO_UNIT
    if text in _TEMPERATURES:
        f, off = _TEMPERATURES[text]
        return Unit(text, f, _d(K=1), off)
    factor, dims = 1.0, [0] * len(_DIMS)
    groups = text.split("/")
    for g, group in enumerate(groups):
        sign = 1 if g == 0 else -1
        group = group.strip().strip("()").strip()
        if group in ("", "1") and len(groups) > 1 and g == 0:
            continue
        pos = 0
        group = group.replace("·", " ").replace("*", " ").replace("×", " ")
        while pos < len(group):
            if group[pos] == " ":
                pos += 1
                continue
            m = _FACTOR.match(group, pos)
            if m is None:
                return Unit(text, None)
            written = m.group("exp") or (m.group("sup") or "1").translate(_SUPERSCRIPTS)
            if len(written.lstrip("+-")) > 3:
                return Unit(text, None)
            power = int(written)
            known = _symbol(m.group("sym"))
            if known is None or abs(power) > MAX_UNIT_POWER:
                return Unit(text, None)
            factor *= known[0] ** (power * sign)
            for i, p in enumerate(known[1]):
                dims[i] += p * power * sign
            pos = m.end()
    if not (math.isfinite(factor) and factor > 0):
        return Unit(text, None)   # `Ym^12 Ym^12`: a factor beyond a float is no unit
    return Unit(text, factor, tuple(dims))


@dataclass(frozen=True)
class Quantity:
    """A number as written (exact) and its unit."""

    value: Fraction
    unit: Unit = NO_UNIT
    integer: bool = False            # written as an integer: no point, no exponent, no unit
    # Set when the number cannot be compared (an exponent beyond MAX_EXPONENT): what was
    # written; `value` is then 0 and means nothing.
    out_of_range: str | None = None

    def si(self) -> float | None:
        """The value in SI units; None beyond a float's range."""
        x = as_float(self.value)
        if x is None:
            return None
        x = x * self.unit.factor + self.unit.offset   # type: ignore[operator]
        return x if math.isfinite(x) else None


def as_float(x: Fraction) -> float | None:
    """`x` as a float; None beyond a float's range (1e309 and up), where float() raises."""
    try:
        return float(x)
    except OverflowError:
        return None


_NUMBER = re.compile(
    r"(?P<sign>[-+])?\s*(?:(?P<int>\d{1,3}(?:,\d{3})+(?![\d.])|\d+)(?P<frac>\.\d*)?"
    r"|(?P<lead>\.\d+))"
    r"(?:\s*(?:[eE](?P<e>[-+]?\d+)|[×x*·]\s*10\s*\^\s*\{?\s*\(?(?P<e2>[-+]?\d+)\)?\s*\}?))?")
_POWER10 = re.compile(r"(?P<sign>[-+])?\s*10\s*\^\s*\{?\s*\(?(?P<e>[-+]?\d+)\)?\s*\}?")
_FRACTION = re.compile(r"(?P<sign>[-+])?\s*(?:\\[dt]?frac\s*\{\s*(?P<a>\d+)\s*\}\s*\{\s*(?P<b>\d+)"
                       r"\s*\}|(?P<c>\d+)\s*/\s*(?P<d>\d+))$")
_LEADING = re.compile(r"^(?:≈|~|=|approximately|approx\.?|about|roughly)\s*", re.I)


def parse_quantity(text: str) -> Quantity | None:
    """The number and unit of a value, or None when it is not a number (with a unit)."""
    s = plain(text).strip().rstrip(".;,").strip()
    s = _LEADING.sub("", s)
    if not s or len(s) > 200:
        return None
    m = _FRACTION.fullmatch(s)
    if m:
        a, b = (m.group("a"), m.group("b")) if m.group("a") else (m.group("c"), m.group("d"))
        if int(b) == 0:
            return None
        v = Fraction(int(a), int(b))
        return Quantity(-v if m.group("sign") == "-" else v)
    m = None if re.match(r"[-+]?\s*10\s*\^", s) else _NUMBER.match(s)
    if m is not None:
        digits = (m.group("int") or "0").replace(",", "") + (m.group("frac") or "") \
            + (m.group("lead") or "")
        if digits.endswith("."):
            digits = digits[:-1]
        exp = m.group("e") or m.group("e2")
        integer = not (m.group("frac") or m.group("lead") or exp)
    else:
        m = _POWER10.match(s)
        if m is None:
            return None
        digits, exp, integer = "1", m.group("e"), False
    # 10**(10**9) would take minutes and gigabytes: a larger exponent is not computed.
    huge = exp is not None and abs(int(exp)) > MAX_EXPONENT
    value = Fraction(0) if huge else Fraction(digits) * (Fraction(10) ** int(exp) if exp else 1)
    if m.group("sign") == "-":
        value = -value
    rest = s[m.end():]
    unit = parse_unit(rest)
    if unit.text and not unit.known and (not rest[:1].isspace() or not _looks_like_unit(rest)):
        # `0x1264`, `2p^{n-1}`, `3 and 4`: not a number followed by a unit
        return None
    return Quantity(value, unit, integer and not unit.text,
                    s[:m.end()].strip() if huge else None)


def _looks_like_unit(text: str) -> bool:
    # A value followed by prose ("3 (to the left)", "2 and 3") is not a number with a unit.
    text = text.strip()
    return bool(re.fullmatch(r"[^\W\d_][\w\s·*/^{}()\-+°%Ω²³⁻¹℃Å.]*", text)) \
        and len(text.split()) <= 4 and not re.search(r"\b(and|or|to|of|the|is|are)\b", text)


@dataclass(frozen=True)
class Comparison:
    verdict: bool | None             # None: the rule cannot decide (an unknown unit)
    detail: str | None = None


def close(a: complex, b: complex, tol: float) -> bool:
    """|a - b| <= tol * |b| (b the gold); a gold of zero needs (nearly) zero."""
    if a == b:   # infinities too
        return True
    if b == 0:
        return abs(a) <= 1e-12
    return abs(a - b) <= tol * abs(b) * (1 + 1e-12)


def compare(gold: Quantity, answer: Quantity, tol: float = DEFAULT_TOLERANCE,
            *, exact_integers: bool = True) -> Comparison:
    """Is `answer` the gold quantity, within the relative tolerance `tol`?"""
    g, a = gold.unit, answer.unit
    if gold.out_of_range is not None:
        return Comparison(None, f"the gold {gold.out_of_range} has an exponent beyond "
                                f"±{MAX_EXPONENT}: out of the range the rule compares")
    if answer.out_of_range is not None:
        return Comparison(False, f"{answer.out_of_range} has an exponent beyond "
                                 f"±{MAX_EXPONENT}: out of range")

    def values(x: float | None, y: float | None, how: str) -> Comparison:
        if y is None:
            return Comparison(None, "the gold is beyond a float's range (about ±1.8e308): "
                                    "out of the range the rule compares")
        if x is None or not math.isfinite(x):
            return Comparison(False, f"{how}: the answer is beyond a float's range (about "
                                     f"±1.8e308), gold {_fmt(y)}: out of range")
        ok = close(x, y, tol)
        return Comparison(ok, None if ok else f"{how}: {_fmt(x)} vs gold {_fmt(y)} "
                                              f"(relative tolerance {tol:g})")

    av, gv = as_float(answer.value), as_float(gold.value)
    if not a.text or (a.text == g.text):
        if exact_integers and gold.integer and not g.text:
            ok = answer.value == gold.value
            return Comparison(ok, None if ok else f"{_fmt(answer.value)} is not the exact "
                                                  f"integer {gold.value}")
        if g.percent and not a.text:   # 45 or 0.45 for a gold of 45%
            if values(av, gv, "value").verdict:
                return Comparison(True)
            return values(None if av is None else av * 100, gv, "as a percentage")
        return values(av, gv, "value")
    if not g.text:
        if a.percent:
            if values(None if av is None else av / 100, gv, "value").verdict:
                return Comparison(True)
            return values(av, gv, "value")
        # A unit the gold does not state (the question fixed it): the number decides.
        return values(av, gv, f"value (answer in {a.text})")
    if not (g.known and a.known):
        return Comparison(None, f"cannot convert between {a.text!r} and {g.text!r}")
    if g.dims != a.dims:
        return Comparison(False, f"{a.text!r} is not a unit of the same quantity as {g.text!r}")
    return values(answer.si(), gold.si(), f"in SI units ({a.text} vs {g.text})")


def _fmt(x: float | Fraction) -> str:
    f = as_float(x) if isinstance(x, Fraction) else x
    if f is None:   # beyond a float: its order of magnitude, from the exact value
        return f"{'-' if x < 0 else ''}~1e{len(str(abs(x.numerator) // x.denominator)) - 1}"
    return f"{f:.6g}"
