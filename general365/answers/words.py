"""The words that may follow a value, and the words that may not.

A word after a number is dropped only when it is a unit or a label (`30 cm`, `12 apples`,
`\\frac{2}{3}\\text{ of the cake}`). Words that change or question the value are never
units: a verb or a negation (`12 is wrong`, `not 12`), a hedge (`12 or maybe 13`), a
comparison (`12 or more`), a scale or fraction word (`12 hundred`, `3 halves`: read as the
value they make, in reader.py), a number word, or mathematics (`3 pi`, `5 x^2`).
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

# Units and labels that are short or capitalised (case-sensitive); longer plain words are
# judged by `kind` below.
UNITS = frozenset("""
m cm mm km nm um µm dm dam hm pm Mm
g kg mg µg ug t lb lbs oz st ct
s ms µs us ns sec secs min mins h hr hrs d yr yrs wk wks
L mL ml cL dL kL l cc
K A mA µA kA V mV kV W mW kW MW GW Wh kWh J kJ MJ cal kcal Cal eV keV MeV N kN Pa kPa MPa hPa
atm bar mbar psi mmHg Hz kHz MHz GHz rpm kbps Mbps B kB KB MB GB TB KiB MiB GiB
Ω kΩ MΩ F µF nF pF C mC T mT G
ft in yd mi nmi ac ha gal qt pt fl mph kph kmh km/h m/s knot knots
° °C °F °K deg rad sr mol mmol M mM
USD EUR GBP JPY CNY RMB INR AUD CAD CHF HKD SGD NZD KRW Rs
""".split())

# Counting nouns and labels that answers carry (`12 apples`, `5 days`, `42 handshakes`):
# a word after a value is dropped only when it is a unit, one of these, or a word of the
# problem's own question (`kind(word, labels)`), never because it merely looks like a noun.
COUNT_NOUNS = frozenset("""
people person persons students student children child kids kid men man women woman boys boy
girls girl friends friend players player teams team members member guests guest workers worker
adults adult visitors visitor customers customer passengers passenger employees employee
apples apple oranges orange bananas banana cookies cookie candies candy sweets marbles marble
balls ball coins coin stamps stamp cards card books book pages page pencils pencil pens pen
cars car bikes bike buses bus trucks truck boats boat trains train planes plane tickets ticket
days day hours hour minutes minute seconds second weeks week months month years year
nights night mornings times time steps step moves move turns turn rounds round games game
matches match points point goals goal runs run laps lap trips trip rides ride jumps jump
ways way combinations combination arrangements arrangement permutations permutation
outcomes outcome possibilities possibility options option choices choice cases case
solutions solution answers answer pairs pair handshakes handshake edges edge vertices vertex
faces face sides side corners corner angles angle squares square triangles triangle
rectangles rectangle circles circle cubes cube blocks block tiles tile rows row columns column
cells cell boxes box bags bag jars jar cups cup bottles bottle glasses glass plates plate
slices slice pieces piece parts part units unit items item objects object things thing
questions question problems problem tasks task jobs job letters letter words word digits digit
numbers number integers integer values value terms term elements element
dogs dog cats cat birds bird fish animals animal cows cow sheep horses horse chickens chicken
legs leg eggs egg trees tree flowers flower seeds seed plants plant
houses house rooms room floors floor doors door windows window seats seat chairs chair
tables table desks desk beds bed lights light lamps lamp switches switch keys key locks lock
bulbs bulb wires wire roads road streets street blocks miles kilometers kilometres meters
metres centimeters centimetres millimeters millimetres inches feet foot yards yard grams gram
kilograms kilogram pounds ounces liters litres liter litre milliliters gallons gallon
degrees degree radians radian percent dollars dollar euros euro yuan yen rupees rupee
calories calorie votes vote cents_x seats shots shot hits hit errors error mistakes_x
candles candle stickers sticker toys toy dolls doll gifts gift presents present boxes
songs song movies movie photos photo pictures picture paintings painting
loaves loaf cakes cake pies pie pizzas pizza sandwiches sandwich muffins muffin
buttons button beads bead rings ring shirts shirt socks sock shoes shoe hats hat
stones stone rocks rock bricks brick sticks stick rods rod ropes rope nails nail screws screw
machines machine robots robot computers computer phones phone messages message emails email
calls call lines line paths path routes route towns town cities city villages village
islands island bridges bridge towers tower floors levels level stages stage
liters kg km cm mm ml chance chances probability likelihood odds share rate speed area
volume length width height depth distance total sum difference product age weight mass
cost price income salary wage fee tax interest balance budget amount
subsets subset sets set distinct
different unique ordered unordered valid possible whole complete equal identical consecutive
positive prime integral dB pts bytes byte bits bit celsius fahrenheit kelvin
""".split()) - {"cents_x", "mistakes_x"}

# Connectors that cannot end a label (`12 pairs of`, `12 a`).
DANGLING = frozenset({"of", "the", "a", "an", "per", "in", "on", "for"})

# Words that may stand in a label phrase without being a noun of their own.
CONNECTORS = frozenset("""
of the a an per each in on for total only all exactly square squared_units sq cubic cu
units unit whole full more_than_once
""".split()) - {"squared_units", "more_than_once"}

# Words that turn a value into something else, or are not about the value at all.
STOP = frozenset("""
is are was were be been being am isn aren wasn weren not no never none nothing nor neither
wrong incorrect false true correct right invalid impossible undefined unknown
or but maybe perhaps possibly probably likely unlikely if unless except otherwise either
than more less fewer least most greater smaller larger bigger higher lower above below
under over at up to from between within beyond after before about around roughly nearly
almost approximately approx exactly_not wait actually instead rather hmm alternatively
bound bounds limit limits ceiling floor minimum maximum max tops least upper lower estimate
estimated guess guessed tentative unsure uncertain unverified doubtful rough ballpark
retracted withdrawn mistake erroneous bogus fake ignore placeholder tbd random dummy
disputed hypothetical nonsense arbitrary assumed nope nah rejected excluded something
whatever ish inverse reciprocal negative opposite complement hex octal binary decimal
base fold bc bce ad ce kilo grand myriad googol mio mrd quadrillion quintillion sextillion
zillion billionth millionth millionths billionths per-mille permille ppm ppb bps basis
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

FRACTION_WORDS = {"half": 2, "halves": 2}
FRACTION_WORDS.update({w + plural: n for w, n in (
    ("third", 3), ("quarter", 4), ("fourth", 4), ("fifth", 5), ("sixth", 6), ("seventh", 7),
    ("eighth", 8), ("ninth", 9), ("tenth", 10), ("hundredth", 100), ("thousandth", 1000))
    for plural in ("", "s")})

NUMBER_WORDS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
NUMBER_WORDS.update({w: 10 * n for n, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)})

PERCENT_WORDS = frozenset({"percent", "pct", "percentage"})

# Ambiguous abbreviations: `12k`, `5M`, `3B` (thousand? million? bytes? molar?).
AMBIGUOUS = frozenset({"k", "M", "B", "mn", "MM", "bil", "mil", "K"})

# Money's smaller units: `425 cents` is 4.25, and `4.25 cents` is not $4.25.
SUBUNITS = {w: Fraction(1, n) for n, names in (
    (100, "cent cents penny pennies pence paise paisa fen"), (10, "dime dimes jiao"),
    (20, "nickel nickels")) for w in names.split()}


def counted_subunit(labels: frozenset[str]) -> Fraction | None:
    """The money subunit a question counts in (`How many cents...?`: 1/100), or None."""
    return next((SUBUNITS[w] for w in labels if w in SUBUNITS), None)


@functools.lru_cache(maxsize=4096)
def question_labels(question: str | None) -> frozenset[str]:
    """The words of a problem's question that may label its answer (`How many handshakes
    ...?`: `12 handshakes`), with their singular and plural; never a word kind() refuses."""
    if not question:
        return frozenset()
    out = set()
    for w in _WORD.findall(question[:20_000].lower()):
        if len(w) < 3 or w in STOP or w in MATH or w in SCALES or w in FRACTION_WORDS \
                or w in NUMBER_WORDS or w in PERCENT_WORDS:
            continue
        out.add(w)
        out.add(w[:-1] if w.endswith("s") else w + "s")
        if w.endswith("es"):
            out.add(w[:-2])
    return frozenset(out - STOP)


_WORD = re.compile(r"[a-z][a-z'-]*[a-z]")


def kind(word: str, labels: frozenset[str] = frozenset()) -> str:
    """What a word after a value is: "unit" (a unit or a label noun), "connector",
    "scale", "fraction", "subunit", "percent", "number", "math" (mathematics: the value
    goes on), or "stop" (the answer says something other than a value, or a word the
    reader does not know as a unit or a label: refused rather than guessed)."""
    base = word.split("^", 1)[0]
    low = base.lower()
    if base in UNITS and base not in AMBIGUOUS:
        return "unit"
    if low in SUBUNITS:   # `425 cents` is $4.25, unless the question counts cents
        return "unit" if low in labels else "subunit"
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
    if low in COUNT_NOUNS or low in labels or (low.endswith("s") and low[:-1] in COUNT_NOUNS):
        return "unit"
    return "stop"
