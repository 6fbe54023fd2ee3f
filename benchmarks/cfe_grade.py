"""CFE-Bench rule grading: general365's per-variable rule path against plain math-verify.

Both grade the same responses, written from the release's golds: every problem answered
`--runs` times, each run stating every variable as a final `name = value` line, in run r>0
one variable per problem written another way (a number in e-notation or one SI prefix down,
a formula multiplied by 1 as `\\frac{2}{3}\\cdot\\frac{3}{2}(...)`):

- ours:  the CFE grader under policy rule (tasks/cfe/grade.py): the lines read, numbers with
         units compared in process with the tolerance, formulas in the grading pool of W
         processes with a hard limit per comparison;
- plain: per variable, in one process, math_verify.parse of the gold and of the stated
         value, then verify(gold, answer): what a grader without CFE's rules would do.

Prints variables/s for both, the ratio, and how many variables each finds correct, by type
(the golds are right by construction, so every miss is a miss).

    .venv/bin/python benchmarks/cfe_grade.py [--data DIR] [--runs 2] [--workers 2]
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def rewritten(value: str, vtype: str) -> str:
    """The same value written another way (the grader must still find it right)."""
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)\s*([kMGm]?)(m|s|g|bp|Pa|eV|Hz|J|W|V|A|N)", value)
    if m:
        down = {"": "m", "k": "", "M": "k", "G": "M", "m": "µ"}[m.group(2)]
        return f"{float(m.group(1)) * 1000:.12g} {down}{m.group(3)}"
    if re.fullmatch(r"-?\d+\.\d+", value):
        return f"{float(value):.10e}"
    if vtype == "formula" and "=" not in value and len(value) < 80:
        return r"\frac{2}{3}\cdot\frac{3}{2}\left(" + value.strip().strip("$") + r"\right)"
    return value


def responses(problems, runs: int):
    from general365.schema import Response

    out = []
    for run in range(runs):
        for i, p in enumerate(problems):
            lines = []
            for k, v in enumerate(p.variables):
                value = v.value
                if run and k == (i + run) % len(p.variables):
                    value = rewritten(value, v.type.value)
                lines.append(f"{v.name} = {value}")
            out.append((Response(p.id, run, "Working.\n\n" + "\n".join(lines)), p))
    return out


def plain_grade(pairs) -> list[tuple[str, bool]]:
    from math_verify import parse, verify

    from general365.tasks.cfe.stated import read_answers

    got = []
    golds: dict[str, object] = {}
    for resp, p in pairs:
        stated = read_answers(resp.response, [v.name for v in p.variables])
        for v in p.variables:
            if v.value not in golds:
                golds[v.value] = parse(v.value)
            s = stated.get(v.name)
            ok = bool(s) and bool(verify(golds[v.value], parse(s.text)))
            got.append((v.type.value, ok))
    return got


def default_data() -> str | None:
    here = os.path.abspath(os.path.dirname(__file__))
    while True:
        candidate = os.path.join(here, "shared", "data", "cfe-bench")
        if os.path.isdir(candidate):
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.environ.get("CFE_BENCH_DATA") or default_data(),
                    help="the release folder (default: $CFE_BENCH_DATA, else the nearest "
                         "shared/data/cfe-bench above this checkout)")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--show", action="store_true", help="print each wrong verdict of ours")
    args = ap.parse_args()
    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    from general365.tasks.cfe.data import load
    from general365.tasks.cfe.grade import grade

    problems = load(args.data).problems
    pairs = responses(problems, args.runs)
    n = sum(len(p.variables) for _, p in pairs)
    print(f"{len(pairs)} responses, {n} variables ({len(problems)} problems x {args.runs} runs)")

    t = time.perf_counter()
    verdicts = [v for g in grade(pairs, policy="rule", workers=args.workers)
                for v in g.variables]
    t_ours = time.perf_counter() - t
    ours = [(v.variable.type.value, v.correct) for v in verdicts]
    t = time.perf_counter()
    plain = plain_grade(pairs)
    t_plain = time.perf_counter() - t

    print(f"ours  (CFE rule path, pool of {args.workers}, start included): {t_ours:7.1f} s "
          f"{n / t_ours:8.1f} variables/s")
    print(f"plain (math-verify parse + verify, one process):          {t_plain:7.1f} s "
          f"{n / t_plain:8.1f} variables/s")
    print(f"ratio ours/plain: {t_plain / t_ours:.2f}x")
    for name, got in (("ours", ours), ("plain", plain)):
        right = Counter(t for t, ok in got if ok)
        total = Counter(t for t, _ in got)
        print(f"{name:<6} correct: " + "  ".join(f"{k} {right[k]}/{total[k]}"
                                                 for k in sorted(total)))
    missed = Counter((v.variable.type.value, v.status.value) for v in verdicts
                     if not v.correct)
    print("ours, the rest (ungraded goes to the judge under cascade): "
          + "  ".join(f"{t} {s} {n}" for (t, s), n in sorted(missed.items())))
    if args.show:
        for v in verdicts:
            if not v.correct and v.status.value != "ungraded":
                print(f"  {v.variable.type.value} {v.status.value}: gold {v.variable.value!r} "
                      f"stated {v.extracted!r} ({v.detail})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
