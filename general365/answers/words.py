"""The words that may follow a value, and the words that may not.

A word after a number is dropped only when it is a unit or a label (`30 cm`, `12 apples`,
`\\frac{2}{3}\\text{ of the cake}`). Words that change or question the value are never
units: a verb or a negation (`12 is wrong`, `not 12`), a hedge (`12 or maybe 13`), a
comparison (`12 or more`), a scale or fraction word (`12 hundred`, `3 halves`: read as the
value they make, in reader.py), a number word, or mathematics (`3 pi`, `5 x^2`).
"""

from __future__ import annotations

# Units and labels that are short or capitalised (case-sensitive); longer plain words are
# judged by `kind` below.
UNITS = frozenset("""
m cm mm km nm um µm dm dam hm pm Mm
g kg mg µg ug t lb lbs oz st ct
s ms µs us ns sec secs min mins h hr hrs d yr yrs wk wks
L mL ml cL dL kL l cc
K A mA µA kA V mV kV W mW kW MW GW Wh kWh J kJ MJ cal kcal Cal eV keV MeV N kN Pa kPa MPa hPa
atm bar mbar psi mmHg Hz kHz MHz GHz rpm bps kbps Mbps B kB KB MB GB TB KiB MiB GiB
Ω kΩ MΩ F µF nF pF C mC T mT G
ft in yd mi nmi ac ha gal qt pt fl mph kph kmh km/h m/s knot knots
° °C °F °K deg rad sr mol mmol M mM
USD EUR GBP JPY CNY RMB INR AUD CAD CHF HKD SGD NZD KRW Rs
""".split())

# Words that may stand in a label phrase without being a noun of their own.
CONNECTORS = frozenset("""
of the a an per each in on for total only all exactly square squared_units sq cubic cu
units unit whole full new old more_than_once
""".split()) - {"squared_units", "more_than_once"}

# Words that turn a value into something else, or are not about the value at all.
STOP = frozenset("""
is are was were be been being am isn aren wasn weren not no never none nothing nor neither
wrong incorrect false true correct right invalid impossible undefined unknown
or but maybe perhaps possibly probably likely unlikely if unless except otherwise either
than more less fewer least most greater smaller larger bigger higher lower above below
under over at up to from between within beyond after before about around roughly nearly
almost approximately approx exactly_not wait actually instead rather hmm alternatively
sure guess think believe seems seem looks appears assume assuming so hence therefore thus
because since as which that this it its we i you he she they there here then when where
did do does done has have had can could would should will shall may might must
equal equals equaling same other another else any some several many few
plus minus times divided multiplied by add added subtract subtracted
and with without
""".split()) - {"exactly_not"}

MATH = frozenset("""
pi e i sqrt root roots cbrt log ln lg sin cos tan cot sec csc exp inf infty infinity mod
choose factorial power powers squared cubed x y z n k b c p q r
""".split())

SCALES = {"hundred": 10 ** 2, "thousand": 10 ** 3, "million": 10 ** 6, "billion": 10 ** 9,
          "trillion": 10 ** 12, "lakh": 10 ** 5, "lac": 10 ** 5, "crore": 10 ** 7,
          "bn": 10 ** 9, "dozen": 12, "score": 20, "gross": 144}

FRACTION_WORDS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4,
                  "quarters": 4, "fourth": 4, "fourths": 4, "fifth": 5, "fifths": 5,
                  "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8,
                  "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10,
                  "hundredth": 100, "hundredths": 100, "thousandth": 1000,
                  "thousandths": 1000}

NUMBER_WORDS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
NUMBER_WORDS.update({w: 10 * n for n, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)})

PERCENT_WORDS = frozenset({"percent", "pct", "percentage"})

# Ambiguous abbreviations: `12k`, `5M`, `3B` (thousand? million? bytes? molar?).
AMBIGUOUS = frozenset({"k", "M", "B", "mn", "MM", "bil", "mil", "K"})


def kind(word: str) -> str:
    """What a word after a value is: "unit" (a unit or a label noun), "connector",
    "scale", "fraction", "percent", "number", "math" (mathematics: the value goes on),
    or "stop" (the answer says something other than a value)."""
    base = word.split("^", 1)[0]
    low = base.lower()
    if base in UNITS and base not in AMBIGUOUS:
        return "unit"
    if low in PERCENT_WORDS:
        return "percent"
    if low in SCALES or (low.endswith("s") and low[:-1] in SCALES):
        return "scale"
    if low in FRACTION_WORDS:
        return "fraction"
    if low in NUMBER_WORDS or (
            "-" in low and all(part in NUMBER_WORDS for part in low.split("-"))):
        return "number"
    if low in STOP:
        return "stop"
    if low in CONNECTORS:
        return "connector"
    if low in MATH or len(base) == 1 or base in AMBIGUOUS:
        return "math"
    if not base.replace("-", "").replace("'", "").isalpha():
        return "stop"
    return "unit"
