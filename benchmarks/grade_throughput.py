"""Rule-grading throughput: general365's rule grader against plain math-verify.

Both grade the same deterministic set of realistic responses (a long reasoning of a few
thousand characters, then the answer; integers, fractions, decimals with float_round,
percentages, intervals; some wrong, some with no answer, some cut off mid-reasoning):

- ours:  general365.grade(..., policy="rule", workers=W): extraction, the exact fast path,
         math-verify in a pool of W processes with a hard per-item limit;
- plain: what OpenCompass and AMO-Bench do, in one process: math_verify.parse of the gold
         (once per problem) and of the whole response, then verify(gold, pred).

Prints responses/s for both, the ratio, and every verdict disagreement grouped by the kind
of response, with why plain math-verify breaks the contract there.

    .venv/bin/python benchmarks/grade_throughput.py [--n 5000] [--workers 2]
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

WORDS = ("we consider the constraint so the total becomes and therefore each case gives "
         "checking again the count is consistent with the remaining options while the other "
         "branch fails because the bound is exceeded").split()

# kind -> why plain math-verify disagrees with the contract there (if it does)
WHY = {
    "cutoff": "reasoning never closed: the contract says no_answer; plain parses the reasoning "
              "and grades the \\boxed{} it finds there",
    "reasoning_box": "a \\boxed{} inside the reasoning and a different one after it: plain may take "
                     "the one in the reasoning",
    "float_round": "float_round k: plain compares at 6 places (2.666 vs 2.67 is not equal), the "
                   "contract rounds the prediction half-up to k places",
    "half": "prediction exactly on a half (420.755 vs 420.76): plain's binary-float rounding "
            "goes down",
    "interval": "bare interval gold `[a,b)`: plain math-verify parses it to nothing, so every "
                "answer is wrong",
    "inequality": "interval as an inequality (2\\le x<5) against a bare interval gold: same as above",
    "percent": "percent answer",
    "thousands": "thousands separators / units in a final-answer statement",
    "statement": "no \\boxed{}: a final-answer statement",
    "noanswer": "no answer at all",
    "wrong": "a wrong number",
    "plain": "the right number, boxed",
    "fraction": "a fraction for a decimal gold with float_round k: plain compares at 6 places "
                "(739/11 = 67.1818... is not 67.182), the contract rounds to k places",
    "sci": "scientific notation",
    "symbolic": "an exact irrational answer (3\\sqrt{2}) for a gold rounded to k places: math-verify "
                "in the pool; plain compares at 6 places",
}


def reasoning(rng: random.Random, chars: int) -> str:
    parts, n = [], 0
    while n < chars:
        if rng.random() < 0.15:
            w = f"${rng.randint(2, 99)} \\times {rng.randint(2, 99)} = {rng.randint(100, 9999)}$"
        elif rng.random() < 0.05:
            w = f"\\frac{{{rng.randint(1, 50)}}}{{{rng.randint(2, 50)}}}"
        else:
            w = rng.choice(WORDS)
        parts.append(w)
        n += len(w) + 1
        if rng.random() < 0.06:
            parts.append("\n\n")
    return " ".join(parts)


def make_set(n: int, seed: int = 365):
    """(problems, responses, kinds): deterministic for a seed."""
    from general365.schema import AnswerType, Problem, Response

    rng = random.Random(seed)
    problems, responses, kinds = {}, [], []
    for i in range(n):
        pid = f"p{i % (n // 4 or 1):05d}"
        prng = random.Random(f"{seed}-{pid}")
        kind_of_problem = prng.choice(["int", "int", "frac", "dec", "dec", "interval", "pct", "surd"])
        if pid not in problems:
            if kind_of_problem == "int":
                v = prng.randint(1, 5000)
                p = Problem(pid, "q", str(v), AnswerType.NUMBER)
            elif kind_of_problem == "frac":
                a, b = prng.randint(1, 40), prng.choice([3, 7, 9, 11, 13])
                p = Problem(pid, "q", f"\\frac{{{a}}}{{{b}}}", AnswerType.NUMBER)
            elif kind_of_problem == "dec":
                k = prng.choice([2, 3, 4])
                num, den = prng.randint(1, 999), prng.choice([3, 7, 11, 13])
                from fractions import Fraction

                from general365.answers.exact import round_half_up
                v = round_half_up(Fraction(num, den), k)
                p = Problem(pid, "q", f"{float(v):.{k}f}", AnswerType.NUMBER, float_round=k,
                            extra={"exact": (num, den)})
            elif kind_of_problem == "interval":
                a = prng.randint(-9, 5)
                b = a + prng.randint(1, 6)
                c = b + prng.randint(1, 6)
                p = Problem(pid, "q", f"[{a},{b})\\cup({c},+\\infty)", AnswerType.INTERVAL)
            elif kind_of_problem == "surd":  # an irrational answer, gold rounded to k places
                import math

                k, m = 3, prng.choice([2, 3, 5, 6, 7, 10, 11, 13])
                c = prng.randint(2, 9)
                p = Problem(pid, "q", f"{c * math.sqrt(m):.{k}f}", AnswerType.NUMBER,
                            float_round=k, extra={"surd": (c, m)})
            else:
                v = prng.randint(1, 99)
                p = Problem(pid, "q", str(v), AnswerType.NUMBER)
            problems[pid] = p
        p = problems[pid]
        think = reasoning(rng, rng.randint(1500, 5000))
        r = rng.random()
        ans, kind, tail = _answer(p, kind_of_problem, rng, r)
        if kind == "cutoff":
            text = f"<think>{think} so the value is \\boxed{{{ans}}}"
        elif kind == "reasoning_box":
            text = f"<think>{think} first guess \\boxed{{{ans}}} but wait</think>\nThe answer is \\boxed{{{tail}}}."
        elif kind == "statement":
            text = f"<think>{think}</think>\n**Final Answer:** {ans}"
        elif kind == "noanswer":
            text = f"<think>{think}</think>\nI could not finish the count."
        elif rng.random() < 0.3:
            text = f"{think}\n\nTherefore the answer is $\\boxed{{{ans}}}$."
        else:
            text = f"<think>{think}</think>\n\nSumming up, the result is $\\boxed{{{ans}}}$."
        responses.append(Response(pid, i, text))
        kinds.append(kind)
    return problems, responses, kinds


def _answer(p, pk, rng, r):
    gold = p.answer
    if r < 0.05:
        return gold, "cutoff", None
    if r < 0.08:
        return gold, "noanswer", None
    if r < 0.12:
        return str(rng.randint(1, 99)), "reasoning_box", gold
    if r < 0.25:
        wrong = {"interval": "[0,1]", "frac": "\\frac{1}{2}"}.get(pk, str(rng.randint(1, 9999)))
        return wrong, "wrong", None
    if pk == "int":
        v = int(gold)
        if r < 0.35:
            return f"{v:,} units", "statement", None
        if r < 0.40:
            return f"{v / 1000}\\times10^{{3}}", "sci", None
        return gold, "plain", None
    if pk == "frac":
        return (gold, "plain", None) if r < 0.6 else (gold.replace("\\frac{", "").replace("}{", "/").rstrip("}"), "fraction", None)
    if pk == "dec":
        num, den = p.extra["exact"]
        if r < 0.5:
            return f"\\frac{{{num}}}{{{den}}}", "fraction", None
        if r < 0.8:
            return f"{num / den:.{p.float_round + 2}f}", "float_round", None
        return gold, "plain", None
    if pk == "interval":
        a, rest = gold[1:].split(",", 1)
        b = rest.split(")")[0]
        c = rest.split("(")[1].split(",")[0]
        if r < 0.5:
            return f"({c},\\infty)\\cup[{a},{b})", "interval", None
        if r < 0.7:
            return f"x\\in[{a},{b})\\cup({c},\\infty)", "interval", None
        if r < 0.85:
            return f"{a}\\le x<{b} \\text{{ or }} x>{c}", "inequality", None
        return gold, "interval", None
    if pk == "surd":
        c, m = p.extra["surd"]
        if r < 0.55:
            return f"{c}\\sqrt{{{m}}}", "symbolic", None
        if r < 0.7:
            return f"\\sqrt{{{c * c * m}}}", "symbolic", None
        return f"{c * m ** 0.5:.5f}", "float_round", None
    # percent problems
    return (f"{gold}\\%", "percent", None) if r < 0.7 else (gold, "plain", None)


def plain_math_verify(problems, responses):
    from math_verify import parse, verify

    golds = {pid: parse(p.answer) for pid, p in problems.items()}
    out = []
    for r in responses:
        try:
            ok = verify(golds[r.id], parse(r.response))
        except Exception:
            ok = False
        out.append(bool(ok))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--plain-n", type=int, default=None,
                    help="grade only the first N with plain math-verify (default: all)")
    args = ap.parse_args()
    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    import general365
    from general365.grading.pool import shared_pool

    problems, responses, kinds = make_set(args.n)
    chars = sum(len(r.response) for r in responses) / len(responses)
    print(f"{len(responses)} responses on {len(problems)} problems, mean {chars:.0f} chars; "
          f"kinds: {dict(Counter(kinds))}")
    print(f"machine: {os.cpu_count()} CPUs; ours with {args.workers} workers")

    t0 = time.perf_counter()
    ours = general365.grade(responses, problems, policy="rule", workers=args.workers)
    t_ours = time.perf_counter() - t0  # includes starting the pool's worker processes
    statuses = Counter(v.status.value for v in ours)
    to_pool = shared_pool(args.workers).graded
    # The same again on the now-running pool (as in a notebook, the evaluate metric, or any
    # long-lived process): per-call caches start empty, the workers are warm.
    t0 = time.perf_counter()
    again = general365.grade(responses, problems, policy="rule", workers=args.workers)
    t_warm = time.perf_counter() - t0
    assert [v.status for v in again] == [v.status for v in ours]

    n_plain = args.plain_n or len(responses)
    t0 = time.perf_counter()
    plain = plain_math_verify(problems, responses[:n_plain])
    t_plain = time.perf_counter() - t0

    rate_ours, rate_plain = len(responses) / t_ours, n_plain / t_plain
    rate_warm = len(responses) / t_warm
    print(f"\nours, cold: {rate_ours:9.1f} responses/s  ({t_ours:.2f} s, starting the pool included; "
          f"{to_pool} distinct answers went to math-verify in the pool)  {dict(statuses)}")
    print(f"ours, warm: {rate_warm:9.1f} responses/s  ({t_warm:.2f} s, the pool already running)")
    print(f"plain     : {rate_plain:9.1f} responses/s  ({t_plain:.2f} s for {n_plain})")
    print(f"ratio: {rate_ours / rate_plain:.1f}x cold, {rate_warm / rate_plain:.1f}x warm")

    dis = Counter()
    examples = {}
    for v, ok, kind, r in zip(ours, plain, kinds, responses):
        if v.correct != ok:
            if problems[r.id].answer_type.value == "interval" and kind != "cutoff":
                kind = "interval" if kind != "inequality" else kind  # the bare gold is why
            key = (kind, "ours correct" if v.correct else f"ours {v.status.value}")
            dis[key] += 1
            examples.setdefault(key, (problems[r.id].answer, problems[r.id].float_round,
                                      r.response[-70:].replace("\n", " ")))
    print(f"\nverdict disagreements: {sum(dis.values())} of {n_plain}")
    for (kind, ours_says), count in sorted(dis.items(), key=lambda kv: -kv[1]):
        gold, k, tail = examples[(kind, ours_says)]
        print(f"  {count:5d}  {kind:<14} {ours_says:<18} plain says {'incorrect' if ours_says == 'ours correct' else 'correct'}")
        print(f"         e.g. gold {gold!r} k={k}: ...{tail!r}")
        print(f"         why: {WHY.get(kind, '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
