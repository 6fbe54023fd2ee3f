"""Issue 18, item 5: math-verify's own test suite as a peer check.

(gold, response, expected) pairs written from the cases in huggingface/Math-Verify's
tests/ (test_all.py, test_numina_cases.py, test_open_thoughts.py, test_yujianll.py,
test_mixed_number_extraction.py, test_boxed.py), restricted to the ones our contract
decides: number and interval golds (and the few option letters), never symbolic
expressions with variables, matrices or tuples. The wording is ours; where their
prediction is bare notation (`7,425,000`) it is put in a box here, since the test is about
the notation, and where it is prose the prose is kept (the contract's step 2 then decides).

Each pair records math-verify's expectation (its test's `expected`) and ours. Where they
differ the pair says why in one line, and the table of differences is
tests/data/mathverify_differences.md, generated from this file:
    python tests/unit/test_mathverify_pairs.py --write
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

DIFFERENCES = Path(__file__).resolve().parents[1] / "data" / "mathverify_differences.md"

N, I = "number", "interval"
C, X, NA = "correct", "incorrect", "no_answer"

# Reasons, one line each, for the pairs where our verdict is not math-verify's.
EXACT = "contract: float_round=0 means exact; math-verify rounds floats to 6 places"
NO_STATEMENT = ("contract step 2: no \\boxed{} and no final-answer statement, so no answer "
                "(math-verify takes any number in the text)")
LAST_BOX = ("contract step 2: the last box is the answer; boxes are never merged "
            "(a corrected answer would merge with the abandoned one)")
CONSTANT = ("issue 18: \\mathrm{e} is Euler's number, never a unit; math-verify drops it and "
            "reads both sides as 1")
LHS = ("issue 18: an equation is read only when its left side is a bare variable; "
       "the chain ends in `3+3 = 2`, which is false")
TEXT_NUMBER = ("issue 18: a text command holding a number is that number; math-verify reads "
               "\\text{13} as a symbol")
WHOLE = ("issue 18: the whole candidate must read as the gold's shape; no number is picked "
         "out of it")
PERCENT_WRITTEN = ("contract step 3: a percent sign also accepts the written number (gold "
                   "25, `25\\%` is correct); math-verify reads 4 4/9% only as 40/900")

# (source, answer_type, gold, float_round, response, math-verify expects 1/0, ours, reason)
PAIRS = [
    # test_all.py: test_number_extraction (bare notation, boxed here)
    ("test_number_extraction", N, "-5", 0, r"\boxed{-5}", 1, C, ""),
    ("test_number_extraction", N, "7425000", 0, r"\boxed{7,425,000}", 1, C, ""),
    ("test_number_extraction", N, "1000", 0, r"\boxed{1 000}", 1, C, ""),
    ("test_number_extraction", N, "1000", 0, r"\boxed{1000.0}", 1, C, ""),
    ("test_number_extraction", N, "1000.0", 0, r"\boxed{1,000.0}", 1, C, ""),
    ("test_number_extraction", N, "0.4", 0, r"\boxed{.4}", 1, C, ""),
    ("test_number_extraction", N, "1000.99", 0, r"\boxed{1,000.99}", 1, C, ""),
    ("test_number_extraction", N, "1000.99", 0, r"\boxed{\$1,000.99}", 1, C, ""),
    ("test_number_extraction", N, "1000.99", 0, r"\boxed{1,000.99\$}", 1, C, ""),
    ("test_number_extraction", N, "1000.99", 0, r"\boxed{1,000.99€}", 1, C, ""),
    ("test_number_extraction", N, "1000.99", 0, r"\boxed{1,000.99m²}", 1, C, ""),
    ("test_number_extraction", N, "2.74", 0, "Soucis : 2,74 $ a..", 1, NA, NO_STATEMENT),
    ("test_number_extraction", N, "1000.99", 0, "the number is not 10 which is 1,000.99€", 1,
     NA, NO_STATEMENT),
    ("test_number_extraction", N, "1000.99", 0, "not it's not 10 it's 1,000.99m²", 1, NA,
     NO_STATEMENT),
    ("test_number_extraction", N, "2", 0, "AZYUK2A", 0, NA, ""),
    ("test_number_extraction", N, "2", 0, r"\boxed{AZYUK2A}", 0, X, ""),
    # test_simple_fraction_notation
    ("test_simple_fraction_notation", N, "10/9", 0, r"\boxed{\frac{10}{9}}", 1, C, ""),
    ("test_simple_fraction_notation", N, "-10/9", 0, r"\boxed{-\frac{10}{9}}", 1, C, ""),
    # test_sets_handling
    ("test_sets_handling", I, "[0,1)", 0, r"\boxed{[0,1)}", 1, C, ""),
    ("test_sets_handling", I, "[0,9)", 0, r"\boxed{[0,1)}", 0, X, ""),
    ("test_sets_handling", I, "(0,9)", 0, r"\boxed{[0,9)}", 0, X, ""),
    ("test_sets_handling", N, "1", 0, r"\boxed{-[0,1)}", 0, X, ""),
    # test_latex_notation (their "Answer $9$" is written with our statement's colon)
    ("test_latex_notation", N, "9", 0, "Answer: \\[ 9 \\]", 1, C, ""),
    ("test_latex_notation", N, "9", 0, "Answer: $ 9 $", 1, C, ""),
    ("test_latex_notation", N, "9", 0, "Answer: $$ 9 $$", 1, C, ""),
    ("test_latex_notation", N, "9", 0, "Answer: \\( 9 \\)", 1, C, ""),
    ("test_latex_notation", N, "10", 0, "Answer: \\( (9+1) \\)", 1, C, ""),
    ("test_latex_notation", N, "9", 0, "Answer: \\[ \n 9 \n \\]", 1, C, ""),
    ("test_latex_notation", N, "9", 0, "Answer: $$ \n 9 \n $$", 1, C, ""),
    ("test_latex_notation", N, "1/3", 0, r"\boxed{\frac13}", 1, C, ""),
    ("test_latex_notation", N, "1", 0, r"\boxed{\frac3{3}}", 1, C, ""),
    ("test_latex_notation", N, r"\sqrt{3}", 0, r"\boxed{\sqrt3}", 1, C, ""),
    ("test_latex_notation", N, "1/3", 0, r"\boxed{\cfrac{1}{3}}", 1, C, ""),
    ("test_latex_notation", N, "1/3", 0, r"\boxed{\dfrac{1}{3}}", 1, C, ""),
    ("test_latex_notation", N, "1/3", 0, r"\boxed{\tfrac{1}{3}}", 1, C, ""),
    ("test_latex_notation", N, "1/3", 0, r"\boxed{ 1/3 }", 1, C, ""),
    ("test_latex_notation", N, "1/3", 0, r"\boxed{\left( \frac{1}{3} \right)}", 1, C, ""),
    ("test_latex_notation", N, "1/3", 0, r"\boxed{\frac{1}{3} \text{meters}}", 1, C, ""),
    ("test_latex_notation", N, "1/3", 0, r"\boxed{\frac{1}{3} \textbf{meters}}", 1, C, ""),
    ("test_latex_notation", N, "1/3", 0, r"\boxed{k = \frac{1}{3}}", 1, C, ""),
    # test_percent_notation
    ("test_percent_notation", N, r"28\%", 0, r"\boxed{28 percent}", 1, C, ""),
    ("test_percent_notation", N, r"28\%", 0, r"\boxed{28 pct}", 1, C, ""),
    ("test_percent_notation", N, r"28\%", 0, "The answer is 28 %.", 1, C, ""),
    ("test_percent_notation", N, r"28\%", 0, r"The answer is $\boxed{28}$ pct.", 1, C, ""),
    ("test_percent_notation", N, r"28\%", 0, r"\boxed{28 percentage}", 1, C, ""),
    # test_latex_notation_math (number-valued golds only)
    ("test_latex_notation_math", N, r"\frac{14}{3}", 0,
     r"$f(-2)+f(-1)+f(0)=2+\frac{5}{3}+1=\boxed{\frac{14}{3}}$", 1, C, ""),
    ("test_latex_notation_math", N, "90", 0, r"the angle is $\boxed{90^\circ}.$", 1, C, ""),
    ("test_latex_notation_math", N, r"3\sqrt{13}", 0,
     r"$\sqrt{117} = \boxed{3\sqrt{13}}.$", 1, C, ""),
    ("test_latex_notation_math", N, r"\frac{3}{56}", 0, r"so \[p(8) = \boxed{\frac{3}{56}}.\]",
     1, C, ""),
    ("test_latex_notation_math", N, "2", 0, r"there are $\boxed{2}$ possible values", 1, C, ""),
    ("test_latex_notation_math", N, "15", 0, r"$$\frac{1}{2}\times 3 \times 10 = "
     r"\boxed{15\mbox{ cm}^2}.$$", 1, C, ""),
    ("test_latex_notation_math", N, "-2, 1", 0, r"the integer roots are $\boxed{-2,1}.$", 1, C,
     ""),
    ("test_latex_notation_math", N, "9", 0,
     r"Then, $129^{34}+96^{38} \equiv \boxed{9} \pmod{11}.$", 1, C, ""),
    ("test_latex_notation_math", N, "0", 0, r"the degree is $\boxed{0}.$", 1, C, ""),
    ("test_latex_notation_math", N, r"1 \pm \sqrt{19}", 0, r"$x = \boxed{1 \pm \sqrt{19}}.$", 1,
     C, ""),
    ("test_latex_notation_math", N, r"3 \pm 2 \sqrt{2}", 0,
     r"the roots are $x = \boxed{3 \pm 2 \sqrt{2}}.$", 1, C, ""),
    ("test_latex_notation_math", N, r"1\pm\sqrt{5},-2", 0,
     r"so the answer is $\boxed{\{1\pm\sqrt{5},-2\}}.$", 1, C, ""),
    ("test_latex_notation_math", N, "125", 0, r"The distance is $\boxed{125\textnormal{ miles}}.$",
     1, C, ""),
    ("test_latex_notation_math", I,
     r"[-1, -\frac{1}{2}) \cup (-\frac{1}{2}, 0) \cup (0, 1) \cup (1, \infty)", 0,
     r"The solution set is $\boxed{[-1, -\tfrac12) \cup (-\tfrac12, 0) \cup (0, 1) \cup "
     r"(1, \infty)}.$", 1, C, ""),
    ("test_latex_notation_math", N, r"\sqrt{2}+\sqrt{5}", 0,
     r"The answer is $\boxed{\sqrt 2+\sqrt 5}$", 1, C, ""),
    ("test_latex_notation_math", N, r"\frac{9}{4}\pi", 0, r"Therefore $\boxed{\frac94\pi}$.", 1,
     C, ""),
    ("test_latex_notation_math", I, r"\{-1\} \cup [0,7)", 0, r"x \in \boxed{\{-1\} \cup [0,7)}.$",
     1, C, ""),
    # test_relations_math (relations rewritten as the interval golds they describe)
    ("test_relations_math", I, r"[5,+\infty)", 0, r"Therefore $\boxed{x \geq 5}$.", 1, C, ""),
    ("test_relations_math", I, r"(-\infty,3)", 0, r"We find that $\boxed{x \lt 3}$.", 1, C, ""),
    ("test_relations_math", I, r"(-\infty,2]", 0, r"Thus $\boxed{x <= 2}$ is our answer.", 1, C,
     ""),
    ("test_relations_math", I, r"(5,+\infty)", 0, r"Therefore $\boxed{x \gt 5}$.", 1, C, ""),
    ("test_relations_math", I, r"(5,+\infty)", 0, r"Therefore $\boxed{x < 5}$.", 0, X, ""),
    ("test_relations_math", I, r"[5,+\infty)", 0, r"The solution is $\boxed{x \leq 5}$", 0, X, ""),
    ("test_relations_math", I, r"(-\infty,5]", 0, r"$\boxed{5 \geq x}$", 1, C, ""),
    ("test_relations_math", I, r"[5,+\infty)", 0, r"$\boxed{5 \leq x}$", 1, C, ""),
    ("test_relations_math", I, r"(-\infty,1)", 0, r"$\boxed{x > -1}$", 0, X, ""),
    ("test_relations_math", N, "11", 0, r"$\boxed{x=11}$", 1, C, ""),
    ("test_relations_math", N, "11", 0, r"$\boxed{x\approx11}$", 1, C, ""),
    ("test_relations_math", N, "1", 0, r"$\boxed{k=1}$", 1, C, ""),
    ("test_relations_math", N, "2", 0, r"$\boxed{z = 3+3 = 2}$", 1, X, LHS),
    # test_complex_math_expressions (number-valued golds)
    ("test_complex_math_expressions", N, r"\frac{1}{12}", 0, r"\boxed{0.0833333333333333}", 1, X,
     EXACT),
    ("test_complex_math_expressions", N, r"\frac{1}{12}", 6, r"\boxed{0.0833333333333333}", 1, C,
     ""),
    ("test_complex_math_expressions", I, r"(1,\frac{9}{2})", 0, r"\boxed{(1,4.5)}", 1, C, ""),
    ("test_complex_math_expressions", N,
     r"\frac{\sqrt{\sqrt{11}+\sqrt{194}}}{15+2\sqrt{33}}", 0,
     r"\boxed{\frac{\sqrt{\sqrt{11}+\sqrt{194}}}{2\sqrt{33}+15}}", 1, C, ""),
    ("test_complex_math_expressions", N, "2", 0, r"\boxed{\frac{1+\sqrt{5}}{2}}", 0, X, ""),
    ("test_complex_math_expressions", N, "4", 0, r"\boxed{\frac{34}{16}+\frac{\sqrt{1358}}{16}}",
     0, X, ""),
    ("test_complex_math_expressions", N, r"1\sqrt{19}", 0, r"\boxed{1}", 0, X, ""),
    ("test_complex_math_expressions", I, r"(\frac{3}{5},\frac{8}{3}]", 2, r"\boxed{(0.6,2.6667]}",
     1, C, ""),
    # test_precision and test_float_precision (their precision is our float_round)
    ("test_precision", N, r"\frac{1}{3}", 4, r"\boxed{0.3333}", 1, C, ""),
    ("test_precision", N, r"\frac{1}{3}", 3, r"\boxed{0.333}", 1, C, ""),
    ("test_precision", N, r"\frac{1}{3}", 4, r"\boxed{0.333}", 0, X, ""),
    ("test_precision", N, r"\frac{4}{3}", 3, r"\boxed{1.333}", 1, C, ""),
    ("test_precision", N, r"\frac{4}{3}", 4, r"\boxed{1.333}", 0, X, ""),
    ("test_float_precision", N, "4.123105625617661", 5, r"\boxed{\sqrt{17}}", 1, C, ""),
    ("test_sqrt_precision", N, "4", 5, r"\boxed{4\sqrt{2}}", 0, X, ""),
    ("test_symbols", N, r"\text{13}", 0, r"\boxed{13}", 0, C, TEXT_NUMBER),
    # test_math_extraction_additional_cases
    ("test_math_extraction_additional_cases", N, "34", 0, "Final Answer: The largest $n$ is 34.",
     1, C, ""),
    ("test_math_extraction_additional_cases", N, "11111111100", 0,
     r"is $\boxed{11,\! 111,\! 111,\! 100}$", 1, C, ""),
    ("test_math_extraction_additional_cases", N, "32349", 0, r"is $\boxed{32,\! 349}$", 1, C, ""),
    ("test_math_extraction_additional_cases", N, "32349", 0, r"is $\boxed{32, 349}$", 0, X, ""),
    ("test_math_extraction_additional_cases", I, r"(2, 12) \cup (12, 102)", 0,
     r"Thus, the answer is $x \in \boxed{(2,12) \cup (12,102)}$", 1, C, ""),
    ("test_math_extraction_additional_cases", I, "[-4,0]", 0,
     r"the values of \( k \) are: \[ \boxed{[-4, 0]} \]", 1, C, ""),
    ("test_math_extraction_additional_cases", I, "(-6,10)", 0,
     r"The solution is \( x \in (-6, 10) \). Final Answer: The final answer is \((-6, 10)\). "
     "I hope it is correct.", 1, C, ""),
    ("test_math_extraction_additional_cases", N, "1, 2", 0, r"$\boxed{1,2}$", 1, C, ""),
    ("test_math_extraction_additional_cases", "single_choice", "C", 0,
     r"$\boxed{\text{(C)}}.$", 1, C, ""),
    ("test_math_extraction_additional_cases", "single_choice", "E", 0, r"$\boxed{E}$", 1, C, ""),
    # test_numina_cases.py
    ("test_numina_cases", N, "-12;-11;-10;-8;-7;-6", 0,
     r"$\boxed{\{-12, -11, -10, -8, -7, -6\}}$", 1, C, ""),
    ("test_numina_cases", N, "1, -2", 0, r"$\boxed{-2,1}$.", 1, C, ""),
    ("test_numina_cases", N, "1, 2, 3", 0, r"$\boxed{1,2,3}$", 1, C, ""),
    ("test_numina_cases", N, r"-5, \frac{14}{3}", 0, r"$\boxed{x = -5,\ p = \frac{14}{3}}$", 1,
     C, ""),
    ("test_numina_cases", N, "-10, -8, 4", 0, r"$\boxed{a=4,\,-8,\,-10}$", 1, C, ""),
    ("test_numina_cases", N, "21, 16, 11", 0, r"$\boxed{21,16,11}$", 1, C, ""),
    ("test_numina_cases", N, "21, 16, 11", 0, r"$\boxed{21, 16 \text{ or } 11}$", 1, C, ""),
    ("test_numina_cases", N, r"-1, \frac{15}{8}", 0, r"$\boxed{p=-1,p=\frac{15}{8}}$", 1, C, ""),
    ("test_numina_cases", N, r"-1, \frac{15}{8}", 0,
     r"\[ \boxed{p = -1 \text{ and } p = \dfrac{15}{8}} \]", 1, C, ""),
    ("test_numina_cases", N, "6, 8", 0, r"$\boxed{6 \text{ and } 8}$", 1, C, ""),
    ("test_numina_cases", N, "6, 8", 0, r"$\boxed{6,8}$", 1, C, ""),
    # test_open_thoughts.py
    ("test_open_thoughts", I, "(-793, 10)", 0, r"$$\boxed{-793 < a < 10}$$", 1, C, ""),
    ("test_open_thoughts", N, "2, 19", 0, r"$$\boxed{a_{37} = 19, \quad a_3 = 2}$$", 1, C, ""),
    ("test_open_thoughts", I, r"(1, +\infty)", 0, r"$$\boxed{(1, +\infty)}$$", 1, C, ""),
    ("test_open_thoughts", N, r"\frac{1}{2}, \frac{-1 \pm \sqrt{13}}{4}", 0,
     r"$$\boxed{x = \frac{1}{2}, x = \frac{-1 \pm \sqrt{13}}{4}}$$", 1, C, ""),
    ("test_open_thoughts", N, "0.06", 0, r"$$\boxed{0.06 \text{ yuan}}$$", 1, C, ""),
    ("test_open_thoughts", N, "667", 0, r"$$\boxed{667}$$", 1, C, ""),
    ("test_open_thoughts", N, "6, 8", 0, r"$$\boxed{6 \text{ and } 8}$$", 1, C, ""),
    ("test_open_thoughts", I, r"[2,+\infty)", 0, r"$$\boxed{k \ge 2}$$", 1, C, ""),
    ("test_open_thoughts", N, "45, 2", 0,
     r"$$\boxed{k = 45} \quad \text{and} \quad \boxed{n = 2}$$", 1, X, LAST_BOX),
    ("test_open_thoughts", N, "1, 2, 3", 0, r"\boxed{1} and \boxed{2} and \boxed{3}", 1, X,
     LAST_BOX),
    ("test_open_thoughts", N, "1, 2, 3", 0, r"\boxed{1},\boxed{2},\boxed{3}", 1, X, LAST_BOX),
    ("test_open_thoughts", N, "1", 0, r"$$\boxed{|AB|=1}$$", 1, C, ""),
    ("test_open_thoughts", N, "1", 0, r"$$\boxed{f(x)=1}$$", 1, C, ""),
    ("test_open_thoughts", N,
     r"10^{\frac{-5+\sqrt{13}}{6}}, 10^{\frac{-5-\sqrt{13}}{6}}", 0,
     r"$\boxed{10^{\frac{\sqrt{13} - 5}{6}}} \quad \text{and} \quad "
     r"\boxed{10^{-\frac{5 + \sqrt{13}}{6}}}$", 1, X, LAST_BOX),
    ("test_open_thoughts", N,
     r"10^{\frac{-5+\sqrt{13}}{6}}, 10^{\frac{-5-\sqrt{13}}{6}}", 0,
     r"$\boxed{10^{\frac{\sqrt{13} - 5}{6}}, 10^{-\frac{5 + \sqrt{13}}{6}}}$", 1, C, ""),
    ("test_open_thoughts", N,
     r"\frac{1}{2}+\frac{31\sqrt{5}}{216}, \frac{1}{2}-\frac{31\sqrt{5}}{216}", 0,
     r"$\boxed{\dfrac{108 + 31\sqrt{5}}{216}, \dfrac{108 - 31\sqrt{5}}{216}}$", 1, C, ""),
    ("test_open_thoughts", N, "1, 2", 0, r"$\boxed{1,2}$", 1, C, ""),
    # test_yujianll.py
    ("test_yujianll", N, "19, 46, 82", 0, r"$\boxed{19, 46, \text{ and } 82}$", 1, C, ""),
    ("test_yujianll", N, "19, 46, 82", 0, r"$\boxed{21, 36, \text{and } 82}$", 0, X, ""),
    ("test_yujianll", N, r"1 - \frac{1}{\mathrm{e}}", 0, r"$\boxed{1 - \frac{1}{\mathrm{e}}}$", 1,
     C, ""),
    ("test_yujianll", N, r"1 - \frac{1}{\mathrm{e}}", 0, r"$\boxed{1 + \frac{1}{\mathrm{e}}}$", 1,
     X, CONSTANT),
    ("test_yujianll", N, r"\pm 2021", 0, r"$\boxed{2021}$", 0, X, ""),
    ("test_yujianll", N, r"\pm 2021", 0, r"$\boxed{{-2021, 2021}}$", 1, C, ""),
    ("test_yujianll", N, "12:00", 0, r"$\boxed{1:00}$", 0, X, ""),
    ("test_yujianll", N, "12:00", 0, r"$\boxed{12:00}$", 1, C, ""),
    # test_boxed.py
    ("test_boxed", N, "4", 0, r"the answer is \boxed{004}. **Final Answer** \boxed{004}", 1, C,
     ""),
    ("test_boxed", N, "840", 0,
     "could answer therefore\\boxed{840}.,but let me put this after explain.\n\n"
     "**Final Answer**\n\\boxed{840}", 1, C, ""),
    # test_mixed_number_extraction.py
    ("test_mixed_number_extraction", N, r"\frac{40}{9}", 0, "The answer is 4 4/9.", 1, C, ""),
    ("test_mixed_number_extraction", N, "4", 0, "The answer is 4 4/9.", 0, X, ""),
    ("test_mixed_number_extraction", N, r"\frac{71}{6}", 0, r"\boxed{11 5/6}", 1, C, ""),
    ("test_mixed_number_extraction", N, r"\frac{71}{6}", 0, r"\boxed{+11 5/6}", 1, C, ""),
    ("test_mixed_number_extraction", N, r"-\frac{40}{9}", 0, r"\boxed{-4 4/9}", 1, C, ""),
    ("test_mixed_number_extraction", N, r"\frac{40}{900}", 0, "The answer is 4 4/9%.", 1, C, ""),
    ("test_mixed_number_extraction", N, r"\frac{40}{900}", 0, r"\boxed{4 4/9 percent}", 1, C, ""),
    ("test_mixed_number_extraction", N, r"\frac{40}{9}", 0, "The answer is 4 4/9%.", 0, C,
     PERCENT_WRITTEN),
    ("test_mixed_number_extraction", N, "4", 0, r"\boxed{4 4/0}", 0, X, ""),
    ("test_mixed_number_extraction", N, r"\frac{139}{90}", 0, r"\boxed{11/10 4/9}", 0, X, ""),
    ("test_mixed_number_extraction", N, r"\frac{103}{9}", 0, r"\boxed{11.0 4/9}", 0, X, ""),
    ("test_mixed_number_extraction", N, r"\frac{103}{9}", 0, r"\boxed{11 + 4/9}", 1, C, ""),
    ("test_mixed_number_extraction", N, r"\frac{103}{9}", 0, r"\boxed{11 - 4/9}", 0, X, ""),
    ("test_mixed_number_extraction", N, "5", 0, r"\boxed{\$5.00}", 1, C, ""),
    ("test_mixed_number_extraction", N, r"\frac{7}{25}", 0, r"\boxed{28\%}", 1, C, ""),
    ("test_mixed_number_extraction", N, "2", 0, r"\boxed{4 4/9 2}", 1, X, WHOLE),
    ("test_mixed_number_extraction", N, r"\frac{4}{9}", 0,
     "There are 4 objects and 4/9 remain.", 1, NA, NO_STATEMENT),
]

# Pairs the contract does not decide yet: (source, answer_type, gold, k, response,
# math-verify, proposed verdict and why). Not asserted.
OPEN = [
    ("test_number_extraction", N, "1000.99", 0, r"\boxed{1000,99}", 1,
     "correct: a decimal comma (two digits after the comma are not a thousands group)"),
    ("test_latex_notation", N, "9", 0, "Answer: $ \n 9 \n $", 0,
     "correct: a careful grader reads 9; the line break inside $...$ is layout"),
    ("test_relations_math", I, r"(-\infty,1)", 0, r"$\boxed{-x > -1}$", 1,
     "correct: the same set, written with -x"),
    ("test_relations_math", N, "11", 0, r"$\boxed{x = 5+5+1 = 7 =11}$", 1,
     "incorrect: the chain states 7 = 11"),
    ("test_numina_cases", I, "(0,1)", 0, r"$\boxed{0<f(x)<1}$", 1,
     "correct if the problem asks for the range of f"),
    ("test_mixed_number_extraction", N, r"\frac{9004}{9}", 0, r"\boxed{1 000 4/9}", 1,
     "correct: a mixed number with a spaced thousands group"),
]


def differs(pair) -> bool:
    return (pair[6] == C) != bool(pair[5])


def differences_table() -> str:
    def cell(s: str) -> str:
        s = s.replace("\n", "\\n").replace("|", "\\|")
        return f"`{s}`" if "`" not in s else s
    lines = ["| math-verify test | answer_type | gold | float_round | response | "
             "math-verify | ours | why |",
             "|---|---|---|---|---|---|---|---|"]
    for p in PAIRS:
        if differs(p):
            src, t, gold, k, resp, mv, ours, why = p
            lines.append(f"| {src} | {t} | {cell(gold)} | {k} | {cell(resp)} | "
                         f"{'correct' if mv else 'incorrect'} | {ours} | {why} |")
    agree = sum(not differs(p) for p in PAIRS)
    head = (f"Of {len(PAIRS)} pairs written from math-verify's tests that the contract decides, "
            f"{agree} agree with math-verify's expectation and {len(PAIRS) - agree} differ:")
    return head + "\n\n" + "\n".join(lines) + "\n"


def test_every_difference_has_a_reason_and_every_agreement_none():
    for p in PAIRS:
        assert bool(p[7]) == differs(p), p


def test_the_differences_table_is_up_to_date():
    assert DIFFERENCES.read_text(encoding="utf-8") == differences_table(), (
        "regenerate it: python tests/unit/test_mathverify_pairs.py --write")


def test_our_grader_gives_the_contract_verdict_on_mathverify_pairs():
    import general365
    rows = [{"id": f"m{i}", "run": 0, "response": resp, "answer": gold, "answer_type": t,
             "float_round": k, "question": "Which? (A) 1 (B) 2 (C) 3 (D) 4 (E) 5"}
            for i, (_, t, gold, k, resp, _, _, _) in enumerate(PAIRS)]
    wrong, refused = [], []
    verdicts = {}
    # one refused gold stops a batch: grade each gold's rows apart only when that happens
    try:
        verdicts = dict(enumerate(general365.grade(rows, policy="rule")))
    except general365.DataError:
        for i, r in enumerate(rows):
            try:
                [verdicts[i]] = general365.grade([r], policy="rule")
            except general365.DataError as exc:
                refused.append(f"{PAIRS[i][0]}: gold {PAIRS[i][2]!r} refused: {exc}")
    for i, p in enumerate(PAIRS):
        v = verdicts.get(i)
        if v is None:
            continue
        ok = v.status.value == C if p[6] == C else (
            v.status.value == NA if p[6] == NA else v.status.value != C)
        if not ok:
            wrong.append(f"{p[0]}: {p[1]} gold={p[2]!r} k={p[3]} response={p[4]!r}: want {p[6]}, "
                         f"got {v.status.value} (extracted={v.extracted!r}, detail={v.detail!r})"
                         + (" [math-verify agrees with us]" if not differs(p) else ""))
    problems = refused + wrong
    assert not problems, f"{len(problems)} of {len(PAIRS)} pairs:\n" + "\n".join(problems)


if __name__ == "__main__":
    if "--write" in sys.argv:
        DIFFERENCES.parent.mkdir(exist_ok=True)
        DIFFERENCES.write_text(differences_table(), encoding="utf-8")
    print(differences_table())
