"""Reading a response's variable values (stated.py) and comparing numbers with units
(quantity.py), the in-process half of CFE-Bench's rule path."""

from __future__ import annotations

from fractions import Fraction

import pytest

from general365.tasks.cfe.stated import name_key, read_answers
from general365.tasks.cfe.quantity import (DEFAULT_TOLERANCE, close, compare, parse_quantity,
                                           parse_unit)

# --- numbers and units --------------------------------------------------------------------

SAME_AS_6250_KBP = ["6250 kbp", "6250kbp", r"$6.25\times10^{3}\,\text{kbp}$", "6.25e3 kbp",
                    "6,250 kbp", "6.25 Mbp", "6.25E6 bp", r"6.25 \times 10^{6}\ \mathrm{bp}",
                    "**6250 kbp**", "6250", "≈ 6250 kbp", r"\approx 6.25\cdot 10^{3} kbp",
                    "6.3 Mbp"]     # 0.8% off: inside the default 1% tolerance


@pytest.mark.parametrize("text", SAME_AS_6250_KBP)
def test_numbers_with_units_and_notations(text):
    c = compare(parse_quantity("6250 kbp"), parse_quantity(text))
    assert c.verdict is True, (text, c.detail)


@pytest.mark.parametrize("text,verdict", [
    ("6.4 Mbp", False),              # 2.4% off
    ("6250 km", False),              # another quantity
    ("6250 bp", False),              # the prefix matters
    ("6250 widgets", None),          # a unit the table does not know: undecided
])
def test_wrong_or_undecided(text, verdict):
    c = compare(parse_quantity("6250 kbp"), parse_quantity(text))
    assert c.verdict is verdict and c.detail


@pytest.mark.parametrize("gold,answer", [
    ("0.5 mA", "500 µA"), ("0.5 mA", r"500\,\mu A"), ("0.5 mA", "5e-4 A"),
    ("1.2 km", "1200 m"), ("3 µs", "3000 ns"), ("3 µs", "3 us"), ("25 °C", "298.15 K"),
    ("722 °C", r"722^{\circ}C"), ("70.75 GPa", "70750 MPa"), ("2.5 keV", "2500 eV"),
    ("3.9 m^2/s", "39000 cm^2/s"), ("212.2 kJ/kg", "212.2 J/g"), ("0.87 ns", "870 ps"),
    ("1.67×10^-4", "1.67e-4"), ("2.8·10^16", r"2.8 \times 10^{16}"), ("7.38×10^{-3}", "0.00738"),
    ("45%", "0.45"), ("45%", "45"), ("0.45", "45%"), ("1 atm", "101.325 kPa"),
    ("10^{-3}", "0.001"), (r"\frac{5}{8}", "0.625"), ("-193.1 MPa", "-193.1 MPa"),
])
def test_conversions(gold, answer):
    c = compare(parse_quantity(gold), parse_quantity(answer))
    assert c.verdict is True, (gold, answer, c.detail)


def test_integer_golds_are_exact_and_others_use_the_tolerance():
    assert compare(parse_quantity("89"), parse_quantity("89.0")).verdict is True
    assert compare(parse_quantity("89"), parse_quantity("89.5")).verdict is False
    assert compare(parse_quantity("250500"), parse_quantity("250000")).verdict is False
    # The same number written with a decimal point is a measurement: 1%.
    assert compare(parse_quantity("89.0"), parse_quantity("89.5")).verdict is True
    assert compare(parse_quantity("0"), parse_quantity("0.0")).verdict is True
    assert compare(parse_quantity("0.0"), parse_quantity("1e-9")).verdict is False


def test_tolerance_boundary_and_override():
    g = parse_quantity("100.0 m")
    assert DEFAULT_TOLERANCE == 1e-2
    assert compare(g, parse_quantity("101 m")).verdict is True
    assert compare(g, parse_quantity("101.01 m")).verdict is False
    assert compare(g, parse_quantity("101.01 m"), 0.02).verdict is True
    assert compare(g, parse_quantity("100.5 m"), 0.001).verdict is False
    assert close(0.0, 0.0, 0.0) and not close(1.0, 0.0, 0.5)


@pytest.mark.parametrize("text", ["0x1264", r"2p^{n-1}", "3n", "3 and 4",
                                  "-7.5 cm (to the left of the lens)", "(0.696±0.003) m",
                                  "four", "", "#5 @ 3.5 in"])
def test_not_numbers(text):
    assert parse_quantity(text) is None


def test_parsed_values_are_exact():
    q = parse_quantity("6.25e3 kbp")
    assert q.value == Fraction(6250) and q.unit.text == "kbp" and q.unit.factor == 1e3
    assert parse_quantity("89").integer and not parse_quantity("89 m").integer
    assert parse_unit("kg·m/s^2").dims == parse_unit("N").dims
    assert parse_unit("m s^{-1}").dims == parse_unit("m/s").dims
    assert not parse_unit("furlongs/fortnight").known


# --- the stated values ----------------------------------------------------------------------


def test_name_variations():
    assert len({name_key(n) for n in ["genome_size", "Genome Size", "$genome\\_size$",
                                      "**GENOME-SIZE**", "genome size", "`genome_size`"]}) == 1
    assert name_key("G(jω)") == name_key(r"G(j\omega)")
    assert name_key(r"\varepsilon_0") == name_key("ε_0") == name_key("epsilon_0")
    assert name_key("i(t)") != name_key("i")


def test_last_line_wins_and_forms_of_lines():
    region = "\n".join([
        "genome_size = 100 kbp (a first try)",
        "...",
        "**Final answers:**",
        "- **Genome Size** = 6250 kbp.",
        r"$p_t \text{ (for t = 1,3,...,2t^*-1)} = 0$",
        r"\(G(j\omega) = \frac{\pi}{T} e^{-|\omega| T}\)",
        "a = 1, b = 2; c: 3",
        r"$\boxed{d = 5\,\text{m}}$",
    ])
    names = ["genome_size", "p_t (for t = 1,3,...,2t^*-1)", "G(jω)", "a", "b", "c", "d"]
    got = {k: v.text for k, v in read_answers(region, names).items()}
    assert got == {"genome_size": "6250 kbp", "p_t (for t = 1,3,...,2t^*-1)": "0",
                   "G(jω)": r"\frac{\pi}{T} e^{-|\omega| T}", "a": "1", "b": "2", "c": "3",
                   "d": r"5\,\text{m}"}
    assert all(v.source == "line" for v in read_answers(region, names).values())


def test_names_that_differ_only_in_case_match_only_as_written():
    names = ["Abab", "aBab", "ABab", "abab"]
    got = read_answers("Abab = A\naBab = B\n**ABab** = C\nabab: D\nABAB = E", names)
    assert {k: v.text for k, v in got.items()} == {"Abab": "A", "aBab": "B", "ABab": "C",
                                                   "abab": "D"}


def test_boxes_in_order():
    two = ["x", "y"]
    assert {k: v.text for k, v in read_answers(r"so \boxed{3} and \boxed{4}", two).items()} \
        == {"x": "3", "y": "4"}
    # More boxes than variables: the last ones (the earlier are working).
    assert {k: v.text for k, v in read_answers(
        r"\boxed{1} then \boxed{3} and \boxed{4}", two).items()} == {"x": "3", "y": "4"}
    # One box split at its top-level commas into as many parts as variables.
    assert {k: v.text for k, v in read_answers(r"\boxed{3, f(1,2)}", two).items()} \
        == {"x": "3", "y": "f(1,2)"}
    # A line names one; the box goes to the other; a labelled box counts as a line.
    got = read_answers("x = 7\n" + r"\boxed{5}", two)
    assert (got["x"].text, got["x"].source, got["y"].text, got["y"].source) == \
        ("7", "line", "5", "box")
    got = read_answers(r"\boxed{y = 7} and \boxed{5}", two)
    assert (got["y"].text, got["x"].text) == ("7", "5")
    # Fewer boxes than unstated variables: which is which cannot be told.
    assert read_answers(r"\boxed{3}", ["x", "y", "z"]) == {}
    assert read_answers("nothing stated", two) == {}


def test_a_value_over_several_lines_and_spacing_commands():
    got = read_answers("x = \\[\n\\frac{U_0}{t_a} t^2\n\\]\nDone", ["x"])
    assert got["x"].text == r"\frac{U_0}{t_a} t^2"
    got = read_answers(r"f = f(x)=10^{e}x+k,\;k\in K", ["f"])
    assert got["f"].text == r"f(x)=10^{e}x+k,\;k\in K"     # `\;` is spacing, not a split


def test_hostile_regions_stay_cheap():
    long_line = "x = " + "1" * 5000
    assert read_answers(long_line, ["x"]) == {}          # not an answer line
    deep = "x = " + r"\boxed{" * 200 + "1" + "}" * 200
    assert read_answers(deep, ["x"])["x"].text           # read, not a crash
    many = "\n".join(f"y{i} = {i}" for i in range(20000)) + "\nx = 5"
    assert read_answers(many, ["x"])["x"].text == "5"
