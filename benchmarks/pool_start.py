"""Cold start of the rule-grading pool: how long a fresh process waits for its first
math-verify verdict (the metric's first compute(), the first reward in a training loop),
and how long a worker killed at its time limit takes to be replaced.

Each repetition is a fresh caller process (a script with the `__main__` guard, so the
measure also runs under multiprocessing-based pools):

- first result: RulePool(W).map([one answer that needs math-verify]), pool start included;
- heavy caller: the same, from a script that imports torch at module level (a training
  script); a pool that re-imports the caller's main module pays for torch again;
- replace: a warm pool, an item killed at a 0.2 s limit, then the next answer: the time
  past the limit until that answer is back (kill, new worker, grade);
- baselines, in the same run: a fresh interpreter that does the pool's warm-up in process
  (imports math-verify and sympy, grades a number and an interval answer: what a pool of
  warm workers must pay once, its floor), and one that only imports math-verify and grades
  the answer (plain math-verify, cold).

    .venv/bin/python benchmarks/pool_start.py [--reps 5] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

CALLER = textwrap.dedent('''
    {heavy}
    import json, sys, time
    t_start = time.perf_counter()
    from general365.grading.pool import RulePool, RuleTask
    from general365.answers.gold import parse_gold
    from general365.schema import AnswerType

    if __name__ == "__main__":
        gold = parse_gold("12", AnswerType.NUMBER, 0)
        easy = RuleTask(gold, r"\\sqrt{{144}}")
        t0 = time.perf_counter()
        pool = RulePool({workers})
        [first] = pool.map([easy], timeout=60)
        t_first = time.perf_counter() - t0
        assert first.status.value == "correct", first
        pool.map([easy] * {workers}, timeout=60)           # every worker warm
        t0 = time.perf_counter()
        pool.map([easy], timeout=60)
        t_warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        [slow] = pool.map([RuleTask(gold, "9^{{9^{{9^{{9}}}}}}")], timeout=0.2)
        [after] = pool.map([easy], timeout=60)
        t_replace = time.perf_counter() - t0 - 0.2
        assert slow.status.value == "timeout" and after.status.value == "correct"
        pool.close()
        print(json.dumps({{"first": t_first, "warm": t_warm, "replace": t_replace}}))
''')

PLAIN = textwrap.dedent(r'''
    import json, time
    t0 = time.perf_counter()
    from math_verify import parse, verify
    assert verify(parse("$12$"), parse(r"$\sqrt{144}$"))
    print(json.dumps({"first": time.perf_counter() - t0}))
''')

FLOOR = textwrap.dedent(r'''
    import json, time
    import general365.grading.rule
    t0 = time.perf_counter()
    import general365.grading._warm
    print(json.dumps({"first": time.perf_counter() - t0}))
''')


def run(code: str, env) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "caller.py")
        with open(path, "w") as f:
            f.write(code)
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, path], capture_output=True, text=True, env=env,
                             cwd=tmp, timeout=600)
        wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"caller failed:\n{out.stderr[-2000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["wall"] = wall
    return result


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-heavy", action="store_true", help="skip the torch-importing caller")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": os.path.abspath(ROOT) + os.pathsep
           + os.environ.get("PYTHONPATH", "")}
    kinds = {"plain": CALLER.format(heavy="", workers=args.workers)}
    if not args.no_heavy:
        kinds["heavy"] = CALLER.format(heavy="import torch", workers=args.workers)
    kinds.update(floor=FLOOR, plain_mv=PLAIN)
    rows: dict[str, list[dict]] = {k: [] for k in kinds}
    for _ in range(args.reps):  # interleaved, so load on a shared machine hits all alike
        for kind, code in kinds.items():
            rows[kind].append(run(code, env))

    def med(kind, key):
        return statistics.median(r[key] for r in rows[kind])

    base = med("floor", "first")
    print(f"{args.reps} fresh callers each; pool of {args.workers} workers; medians (min)")
    labels = {"floor": "baseline: the warm-up in process", "plain_mv": "plain math-verify, one answer",
              "plain": "first result", "heavy": "first result, caller imports torch"}
    for kind in ["floor", "plain_mv", "plain", "heavy"]:
        if kind not in rows:
            continue
        first = med(kind, "first")
        lo = min(r["first"] for r in rows[kind])
        print(f"{labels[kind]:<36}: {first * 1000:7.0f} ms ({lo * 1000:.0f})  "
              f"{first / base:.2f}x the in-process warm-up")
    print(f"{'warm item':<36}: {med('plain', 'warm') * 1000:7.1f} ms")
    print(f"{'replace after a kill + next item':<36}: {med('plain', 'replace') * 1000:7.1f} ms "
          f"({min(r['replace'] for r in rows['plain']) * 1000:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
