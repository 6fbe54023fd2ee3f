"""Per-answer latency: our rule grading of one answer against plain math-verify's
parse + verify of the same pair, in this process, answer by answer.

The issue 18 target: on any single answer ours is never more than 2x slower than plain
math-verify. Both sides start cold for each pair (our gold cache and math-verify's parse
are not shared between pairs), and each pair's time is the best of `--repeat` runs, so a
ratio is the code's, not the machine's noise. Prints one line per kind (median and worst
ratio) and the worst pairs.

    python benchmarks/reader_latency.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

# (kind, gold, answer_type, float_round, candidate): the forms the reader meets, plain
# and not, right and wrong.
PAIRS = [
    ("plain", "12", "number", 0, "12"), ("plain", "12", "number", 0, "13"),
    ("plain", "3600", "number", 0, "3,600 seconds"), ("plain", "0.75", "number", 2, r"\frac{3}{4}"),
    ("plain", "2.67", "number", 2, "2.666"), ("plain", "12000", "number", 0, r"1.2\times10^{4}"),
    ("percent", r"25\%", "number", 0, "0.25"), ("percent", "25", "number", 0, r"25\%"),
    ("units", "30", "number", 0, r"30\text{ cm}^2"), ("units", "12", "number", 0, "12 apples"),
    ("list", "1, 2, 2", "number", 0, r"\{2, 1, 2\}"), ("list", "-3, 3", "number", 0, r"\pm 3"),
    ("expression", r"\sqrt{2}", "number", 0, r"\frac{2}{\sqrt{2}}"),
    ("expression", r"\frac{\sqrt{6}+\sqrt{2}}{4}", "number", 0, r"\frac{\sqrt{2}+\sqrt{6}}{4}"),
    ("expression", r"\frac{\sqrt{6}+\sqrt{2}}{4}", "number", 0, r"\frac{\sqrt{2}-\sqrt{6}}{4}"),
    ("expression", r"1-\frac{1}{e}", "number", 0, r"\frac{e-1}{e}"),
    ("expression", r"1-\frac{1}{e}", "number", 0, r"1+\frac{1}{e}"),
    ("expression", "3.14", "number", 2, r"\pi"), ("expression", "28.27", "number", 2, r"9\pi"),
    ("expression", r"2\sqrt{3}", "number", 0, r"\sqrt{12}"),
    ("expression", "120", "number", 0, "5!"), ("expression", "10", "number", 0, r"\binom{5}{2}"),
    ("interval", "[2,5)", "interval", 0, r"2\le x<5"),
    ("interval", r"(-\infty,3)\cup(4,+\infty)", "interval", 0, r"(4,\infty)\cup(-\infty,3)"),
    ("interval", r"[\sqrt{2},5)", "interval", 0, r"x \ge \sqrt{2} \text{ and } x < 5"),
    ("interval", r"[0,360)", "interval", 0, r"[0, 360]"),
    ("refused", "12", "number", 0, r"\text{the answer is not } 12"),
    ("refused", "12", "number", 0, "x+1 = 12"),
]


def _ours(gold, t, k, cand) -> None:
    from general365.answers import gold as gold_mod
    from general365.grading.rule import grade_slow, parse_gold

    gold_mod._GOLD_CACHE.clear()
    grade_slow(parse_gold(gold, t, k), cand)


def _plain(gold, t, k, cand) -> None:
    from math_verify import parse, verify

    verify(parse(f"${gold}$", parsing_timeout=None), parse(f"${cand}$", parsing_timeout=None),
           timeout_seconds=None)


def _best(fn, args, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    for kind, *pair in PAIRS[:3]:   # imports and first-use costs out of the measure
        _ours(*pair), _plain(*pair)
    rows = []
    for kind, *pair in PAIRS:
        ours, plain = _best(_ours, pair, args.repeat), _best(_plain, pair, args.repeat)
        rows.append((kind, pair, ours, plain, ours / plain))
    print(f"{'kind':<11} {'pairs':>5} {'ours ms (median)':>17} {'math-verify ms':>15} "
          f"{'ratio median':>13} {'ratio worst':>12}")
    for kind in dict.fromkeys(r[0] for r in rows):
        sub = [r for r in rows if r[0] == kind]
        print(f"{kind:<11} {len(sub):>5} {statistics.median(r[2] for r in sub) * 1e3:>17.3f} "
              f"{statistics.median(r[3] for r in sub) * 1e3:>15.3f} "
              f"{statistics.median(r[4] for r in sub):>13.2f} {max(r[4] for r in sub):>12.2f}")
    worst = sorted(rows, key=lambda r: -r[4])[:5]
    print("worst pairs (ours / math-verify):")
    for kind, (gold, t, k, cand), ours, plain, ratio in worst:
        print(f"  {ratio:5.2f}x  {ours * 1e3:8.2f} ms vs {plain * 1e3:8.2f} ms  {gold!r} <- {cand!r}")
    print(f"worst ratio over {len(rows)} pairs: {max(r[4] for r in rows):.2f}x (target: <= 2x)")


if __name__ == "__main__":
    main()
