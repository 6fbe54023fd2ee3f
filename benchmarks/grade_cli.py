"""`general365 grade` end to end, start-up included, against plain math-verify on the same
file (issue 14: at least 20x).

The workload is what a reasoning model leaves in responses.jsonl: 3,000 outputs of 8,000 to
30,000 characters, a thinking block (prose, inline math, fractions, a few tentative boxes)
then the final answer in a box, on the bundled sample's number and interval problems, with
the gold carried inline as `general365 generate` writes it. The answers are what models
write: the gold as written, the same value in another notation (a decimal for a fraction,
thousands separators, units, `\\dfrac`, a reordered union, an inequality), a wrong value,
forms only math-verify reads (`\\sqrt`, products), a cut-off thinking block, no answer.

- ours:  `python -m general365 grade FILE --out G --policy rule` in a fresh process: the
         interpreter, the imports, the pool's start, the reading (one pass under the rule
         policy; two before), the grading, the write;
- plain: what OpenCompass and AMO-Bench do: for each line json.loads, math_verify.parse of
         the gold (once per gold) and of the whole response, verify(gold, pred). Timed in
         its loop only (its interpreter start and imports are left out, which favours it),
         on every `--plain-every`th row of the same file (the same mix), as a rate.

Each round times every side once, back to back, so a round's ratios compare runs under
the same load (the machine may be shared). Prints us/row per round: wall time (what a user
waits), CPU time of every process, and CPU time of the command's own process (its
critical path when a core is free for the pool's server, which starts beside it); the
ratios; ours' start-up alone (the same command on a one-row file); the median ratios.
`--compare TREE` times another checkout the same way (e.g. the commit before:
`git archive COMMIT | tar -x -C TREE`) and checks that both write the same graded rows
(the same bytes, or the same values where the JSON Lines writer changed).
`--profile` also runs the command in this process under cProfile and prints the top
entries.

    .venv/bin/python benchmarks/grade_cli.py [--n 3000] [--workers N] [--plain-every 5]
                                             [--repeat 3] [--compare TREE] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter

from prose import fraction, product, prose

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

WORDS = ("we consider the constraint so the total becomes and therefore each case gives "
         "checking again the count is consistent with the remaining options while the other "
         "branch fails because the bound is exceeded let us verify this step carefully wait "
         "actually hmm that seems off recompute").split()


def thinking(rng: random.Random, chars: int) -> str:
    """Reasoning prose with the math a model writes while it works."""
    return prose(rng, chars, WORDS, (
        (0.10, product), (0.14, fraction(50)),
        (0.16, lambda rng: f"\\[ x_{{{rng.randint(1, 9)}}} = \\sqrt{{{rng.randint(2, 99)}}} + "
                           f"{rng.randint(1, 9)} \\]"),
        (0.163, lambda rng: f"so tentatively \\boxed{{{rng.randint(1, 999)}}}")), paragraph=0.05)


def _other_notation(p, rng: random.Random) -> str | None:
    """The gold's value written another way a careful grader accepts, or None."""
    from general365.answers.exact import plain_intervals

    a = p.answer
    if p.answer_type.value == "interval":
        spans = plain_intervals(a)
        parts = a.split("\\cup")
        if len(parts) > 1 and rng.random() < 0.5:
            return "\\cup".join(reversed(parts)).replace("+\\infty", "\\infty")
        if spans and len(spans) == 1 and spans[0].lo is not None and spans[0].hi is not None:
            s = spans[0]
            lo = "\\le" if s.lo_closed else "<"
            hi = "\\le" if s.hi_closed else "<"
            return f"{_tex(s.lo)} {lo} x {hi} {_tex(s.hi)}"
        return f"x \\in {a.replace('frac', 'dfrac')}"
    q = _plain_value(a)
    if q is None:
        return None
    if p.float_round:
        return (f"{float(q):.{p.float_round + 3}f}" if rng.random() < 0.6
                else f"\\approx {float(q):.{p.float_round + 1}f}")
    if q.denominator != 1:
        return f"\\dfrac{{{q.numerator * 3}}}{{{q.denominator * 3}}}" if rng.random() < 0.5 \
            else f"{q.numerator}/{q.denominator}"
    v = int(q)
    choice = rng.random()
    if v >= 1000 and choice < 0.4:
        return f"{v:,}"
    if choice < 0.7:
        return f"{v} \\text{{ {rng.choice(['seconds', 'ways', 'cm', 'people'])}}}"
    return f"{v}.0"


def _mv_only(p, rng: random.Random) -> str | None:
    """The gold's value in a form only math-verify reads (goes to the pool)."""
    q = _plain_value(p.answer) if p.answer_type.value == "number" else None
    if q is None or q.denominator != 1:
        return None
    v = int(q)
    if v > 1 and v % 2 == 0 and rng.random() < 0.5:
        return f"2 \\cdot {v // 2}"
    return f"\\sqrt{{{v * v}}}"


def _plain_value(answer: str):
    """The gold's exact value when it is one plain number, else None."""
    from general365.answers.reader import Unreadable, read_values

    try:
        values = read_values(answer)
    except Unreadable:
        return None
    if len(values) != 1 or len(values[0].pieces) != 1 or values[0].pieces[0].percent:
        return None
    return values[0].pieces[0].exact


def _tex(q) -> str:
    return str(q.numerator) if q.denominator == 1 else f"\\frac{{{q.numerator}}}{{{q.denominator}}}"


def make_rows(n: int, seed: int = 365, all_types: bool = False) -> list[dict]:
    """`n` responses.jsonl rows (dicts), deterministic for a seed."""
    from general365.data.sample import load_sample
    from general365.schema import INLINE_PROBLEM_FIELDS

    problems = [p for p in load_sample()
                if all_types or p.answer_type.is_rule_graded]
    rng = random.Random(seed)
    runs: Counter = Counter()
    rows = []
    for i in range(n):
        p = problems[i % len(problems)]
        think = thinking(rng, rng.randint(8000, 29000))
        r = rng.random()
        ans = p.answer
        if r < 0.04:
            text = f"<think>{think}"  # cut off while thinking
        elif r < 0.07:
            text = f"<think>{think}</think>\nI could not finish the computation in time."
        else:
            if r < 0.20:
                ans = str(rng.randint(1, 999)) if p.answer_type.value == "number" else "[0,1]"
            elif r < 0.45:
                ans = _other_notation(p, rng) or ans
            elif r < 0.50:
                ans = _mv_only(p, rng) or ans
            closing = rng.choice([
                f"Therefore, the answer is $\\boxed{{{ans}}}$.",
                f"**Final Answer**\n\n$$\\boxed{{{ans}}}$$",
                f"Putting it together:\n\n\\[\n\\boxed{{{ans}}}\n\\]",
            ])
            summary = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 160)))
            text = f"<think>{think}</think>\n\n{summary}\n\n{closing}"
        run = runs[p.id]
        runs[p.id] += 1
        row = {"id": p.id, "run": run, "response": text, "model": "bench-reasoner",
               "output_tokens": len(text) // 4, "finish_reason": "stop",
               "sampling": {"preset": "reasoning", "temperature": 0.6, "top_p": 0.95,
                            "top_k": 20, "max_tokens": 32768, "seed": run},
               "settings_hash": "0123456789abcdef", "prompt_hash": "fedcba9876543210"}
        full = p.to_dict()
        row.update({k: full[k] for k in INLINE_PROBLEM_FIELDS})
        rows.append(row)
    return rows


def write_rows(path: str, rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


# --- the two sides ------------------------------------------------------------------


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


# `python -m general365` (general365/__main__.py), which also says at exit how much CPU its
# own process used (the pool's server and workers run beside it, on the other cores).
_OURS = ("import atexit, resource, sys\n"
         "atexit.register(lambda: sys.stderr.write('\\nCPU-SELF %f\\n' % "
         "sum(resource.getrusage(resource.RUSAGE_SELF)[:2])))\n"
         "from general365.cli import console_main\n"
         "sys.exit(console_main())\n")


def ours(path: str, out: str, workers: int | None, tree: str = ROOT
         ) -> tuple[float, float, float]:
    """(wall, CPU, CPU of the command's own process) seconds of `general365 grade` in a
    fresh process, run from the checkout `tree` (its general365 comes first on the path:
    `--compare` times an older one the same way). CPU: the command's and every process it
    waited for (the pool's server and, through it, the workers)."""
    cmd = [sys.executable, "-c", _OURS, "grade", path, "--out", out, "--policy", "rule",
           "--no-progress"]
    if workers:
        cmd += ["--workers", str(workers)]
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    # As installed: pip writes the bytecode at install time, so a user's start-up does not
    # compile general365's modules from source (PYTHONDONTWRITEBYTECODE, set in some
    # sandboxes, would make every run do that; the warm-up run writes the caches).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cpu = _children_cpu()
    t = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tree, env=env)
    wall = time.perf_counter() - t
    if done.returncode != 0:
        sys.exit(f"general365 grade failed ({done.returncode}):\n{done.stderr[-3000:]}")
    own = float(done.stderr.rsplit("CPU-SELF ", 1)[1].split()[0])
    return wall, _children_cpu() - cpu, own


PLAIN = r"""
import json, logging, sys, time
logging.disable(logging.CRITICAL)
from math_verify import parse, verify
path, every, offset = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t, c = time.perf_counter(), time.process_time()
golds, n, right = {}, 0, 0
with open(path, encoding="utf-8") as f:
    for i, line in enumerate(f):
        if i % every != offset % every:
            continue
        d = json.loads(line)
        if d["answer"] not in golds:
            golds[d["answer"]] = parse(d["answer"])
        try:
            ok = verify(golds[d["answer"]], parse(d["response"]))
        except Exception:
            ok = False
        n += 1
        right += bool(ok)
print(json.dumps({"rows": n, "seconds": time.perf_counter() - t,
                  "cpu": time.process_time() - c, "correct": right}))
"""


def plain(path: str, every: int, offset: int) -> dict:
    done = subprocess.run([sys.executable, "-c", PLAIN, path, str(every), str(offset)],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"plain math-verify failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def profile(path: str, out: str, workers: int | None, top: int) -> None:
    from general365.cli import main

    argv = ["grade", path, "--out", out, "--policy", "rule", "--no-progress"]
    if workers:
        argv += ["--workers", str(workers)]
    prof = cProfile.Profile()
    sink = io.StringIO()
    stdout, sys.stdout = sys.stdout, sink
    try:
        prof.enable()
        rc = main(argv)
        prof.disable()
    finally:
        sys.stdout = stdout
    if rc != 0:
        sys.exit(f"general365 grade failed under the profiler ({rc})")
    for key in ("tottime", "cumulative"):
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats(key).print_stats(top)
        text = s.getvalue()
        print(f"\n--- profile, in-process, by {key} ---")
        print(text[text.find("   ncalls"):].rstrip())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--workers", type=int, default=None,
                    help="rule-grading processes (default: grade's own, the CPU count)")
    ap.add_argument("--plain-every", type=int, default=5,
                    help="plain math-verify grades every Nth row each round (a rate; "
                         "default 5)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    ap.add_argument("--all-types", action="store_true",
                    help="all the sample's answer types (default: number and interval, the "
                         "ones math-verify can grade)")
    ap.add_argument("--compare", metavar="TREE",
                    help="also time the general365 of another checkout (e.g. `git archive "
                         "COMMIT | tar -x -C TREE`), interleaved with this one, and check "
                         "that both write the same graded file")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as d:
        path, out = os.path.join(d, "responses.jsonl"), os.path.join(d, "graded.jsonl")
        rows = make_rows(args.n, all_types=args.all_types)
        write_rows(path, rows)
        one = os.path.join(d, "one.jsonl")
        write_rows(one, rows[:1])
        lengths = sorted(len(r["response"]) for r in rows)
        size = os.path.getsize(path)
        print(f"{len(rows)} responses ({len({r['id'] for r in rows})} problems), "
              f"{lengths[0]:,}-{lengths[-1]:,} chars (median {lengths[len(rows) // 2]:,}), "
              f"{size / 2 ** 20:.0f} MiB; machine: {os.cpu_count()} CPUs")

        trees = {"ours": ROOT}
        if args.compare:
            trees["before"] = args.compare
        outs = {name: os.path.join(d, f"graded-{name}.jsonl") for name in trees}
        for name, tree in trees.items():
            ours(one, os.path.join(d, "g1.jsonl"), args.workers, tree)  # warm the file cache
        # Each round measures every side once, back to back, so that the ratios of a round
        # compare runs under the same load (this may be a shared machine); plain grades a
        # different 1/N of the rows each round.
        rounds = []
        for r in range(args.repeat):
            got = {}
            for name, tree in trees.items():
                start = ours(one, os.path.join(d, "g1.jsonl"), args.workers, tree)
                got[name] = (ours(path, outs[name], args.workers, tree), start)
            got["plain"] = plain(path, args.plain_every, r)
            rounds.append(got)
        with open(outs["ours"], encoding="utf-8") as f:
            statuses = Counter(json.loads(line)["status"] for line in f)
        if args.compare:
            with open(outs["ours"], "rb") as a, open(outs["before"], "rb") as b:
                mine, theirs = a.read(), b.read()
            same = [json.loads(ln) for ln in mine.splitlines()] == \
                [json.loads(ln) for ln in theirs.splitlines()]
            print("graded files of ours and before: "
                  + ("identical" if mine == theirs else "the same rows, written another way"
                     if same else "DIFFERENT"))

        n = len(rows)
        print("\nper row, start-up included: wall (what a user waits), CPU of all processes, "
              "CPU of the command's own process (its critical path when a core is free for "
              "the pool's server); ratios: plain's figure over ours, within each round")
        for r, got in enumerate(rounds, start=1):
            p = got["plain"]
            pw, pc = 1e6 * p["seconds"] / p["rows"], 1e6 * p["cpu"] / p["rows"]
            print(f"round {r}: plain  wall {pw:7.0f} us  CPU {pc:7.0f} us  ({p['rows']} rows, "
                  f"its loop only; {p['correct']} correct)")
            for name in trees:
                (wall, cpu, own), (s_wall, s_cpu, s_own) = got[name]
                w, c, o = (1e6 * x / n for x in (wall, cpu, own))
                print(f"         {name:<6} wall {w:7.0f} us  CPU {c:7.0f} us  own {o:6.0f} us  "
                      f"-> {pw / w:5.1f}x wall  {pc / c:5.1f}x CPU  {pc / o:5.1f}x own CPU   "
                      f"(start-up alone, a one-row file: {s_wall:.2f} s wall, {s_own:.2f} s own "
                      f"CPU)")
        for name in trees:
            ratios = sorted((1e6 * g["plain"]["seconds"] / g["plain"]["rows"])
                            / (1e6 * g[name][0][0] / n) for g in rounds)
            cpu = sorted((g["plain"]["cpu"] / g["plain"]["rows"]) / (g[name][0][1] / n)
                         for g in rounds)
            print(f"{name}: median over {len(rounds)} rounds {ratios[len(ratios) // 2]:.1f}x plain "
                  f"math-verify (wall), {cpu[len(cpu) // 2]:.1f}x (CPU of all processes)")
        print(f"statuses: {dict(statuses)}")
        if args.profile:
            profile(path, out, args.workers, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
