"""Reward latency: `general365.rewards.accuracy_reward` against plain math-verify, per batch.

A batch is 64 realistic completions of 3k to 30k characters: a reasoning block (prose,
arithmetic, LaTeX, a tentative \\boxed{} or two), then the final answer, on the bundled
sample's problems with its mix of answer kinds (number, interval, single and multiple
choice, text). Answers are right or wrong in the forms models write: boxed numbers,
fractions, decimals, units, a final-answer statement, option letters; 5% are cut off
inside the reasoning. Batches come in three kinds:

- fast:  every answer the exact fast path (or the letter grader) decides;
- mixed: 1 in 8 answers needs math-verify (`\\sqrt{15376}` for 124, `2^{3}\\cdot 3`), graded
         in the shared warm pool;
- GRPO-shaped (8 prompts x 8 generations, the default) or --group 1 (64 prompts).

Measured, per batch, in this process:
- ours, warm: the reward on fresh batches (new completions) after a first call;
- ours, cold: the first call in a fresh interpreter (imports of the grader, and for mixed
  batches the start of the rule pool, included), over --cold fresh processes;
- plain: math-verify as TRL's and most RL recipes use it: parse(gold) once per gold,
  parse(completion), verify(gold, pred), in this process, on the same batches (its own
  cold: the first batch in a fresh interpreter).

Prints p50 and p95 per batch for each, the ratios, and how often the two agree.

    .venv/bin/python benchmarks/reward_latency.py [--batches 30] [--plain-batches 4]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import time

from prose import fraction, product, prose

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, REPO)

BATCH = 64
WORDS = ("so the count of cases is then consider each arrangement where the constraint holds "
         "and the remaining options fail because the bound is exceeded let us check again "
         "carefully the total becomes wait that double counts the symmetric case").split()


def reasoning(rng: random.Random, chars: int) -> str:
    return prose(rng, chars, WORDS, (
        (0.10, product), (0.14, fraction(60)),
        (0.145, lambda rng: f"tentatively \\boxed{{{rng.randint(1, 500)}}} but let me verify")),
        paragraph=0.04)


def _wrong_number(gold: str, rng: random.Random) -> str:
    try:
        return str(int(gold) + rng.choice([-2, -1, 1, 3]))
    except ValueError:
        return str(rng.randint(1, 999))


def answer_for(p, rng: random.Random, slow: bool) -> tuple[str, str]:
    """(the final part of a completion, its kind)."""
    t, gold = p.answer_type.value, p.answer
    right = rng.random() < 0.55
    if t == "number":
        if slow and gold.isdigit():  # math-verify must evaluate it, right or wrong
            v = int(gold) if right else int(_wrong_number(gold, rng))
            form = rng.choice([f"\\sqrt{{{v * v}}}", f"{v}\\cdot 1^{{2}}", f"\\sqrt{{{4 * v * v}}}/2"])
            return f"So the answer is $\\boxed{{{form}}}$.", "mv"
        value = gold if right else _wrong_number(gold, rng)
        style = rng.random()
        if style < 0.6:
            return f"The answer is $\\boxed{{{value}}}$.", "boxed"
        if style < 0.8 and "\\" not in value:  # `\frac{1}{2} units` is math-verify's
            return f"\\boxed{{{value} \\text{{ units}}}}", "units"
        return f"**Final Answer:** {value}", "statement"
    if t == "interval":
        return (f"Hence $x \\in \\boxed{{{gold if right else '[0, 1]'}}}$.", "interval")
    if t in ("single_choice", "multiple_choice"):
        letters = gold if right else ("A" if gold != "A" else "B")
        if rng.random() < 0.7:
            return f"The correct option is \\boxed{{{', '.join(letters)}}}.", "choice"
        return f"Answer: {letters}", "choice_statement"
    return f"\\boxed{{{gold if right else 'Bob'}}}", "text"


def make_batch(problems, rng: random.Random, group: int, slow_share: float):
    """(completions, columns, kinds) of one batch."""
    picked = [rng.choice(problems) for _ in range(BATCH // group)]
    completions, kinds = [], []
    cols = {"answer": [], "answer_type": [], "float_round": [], "question": []}
    for p in picked:
        for _ in range(group):
            think = reasoning(rng, rng.randint(3000, 30000))
            if rng.random() < 0.05:
                text, kind = f"<think>{think} and so \\boxed{{{p.answer}}}", "cutoff"
            else:
                final, kind = answer_for(p, rng, rng.random() < slow_share)
                text = f"<think>{think}</think>\n\n{final}"
            completions.append(text)
            kinds.append(kind)
            cols["answer"].append(p.answer)
            cols["answer_type"].append(p.answer_type.value)
            cols["float_round"].append(p.float_round)
            cols["question"].append(p.question)
    return completions, cols, kinds


def batches(n: int, seed: int, group: int, slow_share: float):
    import general365

    problems = general365.load_problems(source="sample")
    rng = random.Random(seed)
    return [make_batch(problems, rng, group, slow_share) for _ in range(n)]


# --- the two graders ----------------------------------------------------------------------


class PlainMathVerify:
    def __init__(self):
        from math_verify import parse, verify

        self.parse, self.verify, self.golds = parse, verify, {}

    def __call__(self, completions, answer, **_):
        out = []
        for text, gold in zip(completions, answer):
            if gold not in self.golds:
                self.golds[gold] = self.parse(gold)
            try:
                out.append(float(self.verify(self.golds[gold], self.parse(text))))
            except Exception:
                out.append(0.0)
        return out


def timed(fn, batch) -> tuple[float, list]:
    took, _, rewards = timed_cpu(fn, batch)
    return took, rewards


def timed_cpu(fn, batch) -> tuple[float, float, list]:
    """(wall seconds, this thread's CPU seconds, rewards): on a shared machine the CPU time
    is the figure that does not depend on what else runs."""
    completions, cols, _ = batch
    t0, c0 = time.perf_counter(), time.thread_time()
    rewards = fn(completions, **cols)
    return time.perf_counter() - t0, time.thread_time() - c0, rewards


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def fmt(values: list[float]) -> str:
    return f"p50 {1000 * pct(values, 0.5):8.2f} ms   p95 {1000 * pct(values, 0.95):8.2f} ms"


_COLD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import reward_latency as b
batch = b.batches(1, int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))[0]
t0 = time.perf_counter()
if sys.argv[5].startswith("ours"):
    from general365.rewards import accuracy_reward as fn
    if sys.argv[5] == "ours-prestarted":  # as while a trainer loads its model
        fn.warm_up(wait=True)
        t0 = time.perf_counter()
else:
    import logging; logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    fn = b.PlainMathVerify()
took, _ = b.timed(fn, batch)
print(json.dumps({"first_call": took, "with_import": time.perf_counter() - t0}))
"""


def cold(which: str, runs: int, seed: int, group: int, slow: float) -> tuple[list, list]:
    first, with_import = [], []
    for k in range(runs):
        r = subprocess.run([sys.executable, "-c", _COLD, os.path.dirname(os.path.abspath(__file__)),
                            str(seed + 1000 + k), str(group), str(slow), which],
                           capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            raise SystemExit(f"cold run failed:\n{r.stderr[-3000:]}")
        out = json.loads(r.stdout.strip().splitlines()[-1])
        first.append(out["first_call"])
        with_import.append(out["with_import"])
    return first, with_import


def run_kind(name: str, args, slow: float) -> dict:
    from general365.grading.pool import shared_pool
    from general365.rewards import AccuracyReward

    data = batches(args.batches + 1, args.seed, args.group, slow)
    sent_before = shared_pool().graded
    ours = AccuracyReward()
    timed(ours, data[0])  # the first call: imports, and the pool for math-verify answers
    warm, warm_cpu = [], []
    agree = total = 0
    differ: dict[str, int] = {}
    statuses: dict[str, int] = {}
    for batch in data[1:]:
        took, cpu, _ = timed_cpu(ours, batch)
        warm.append(took)
        warm_cpu.append(cpu)
        for s in ours.last_statuses:
            statuses[s] = statuses.get(s, 0) + 1
    plain = PlainMathVerify()
    plain_times = []
    for batch in data[1: 1 + args.plain_batches]:
        took, rewards = timed(plain, batch)
        plain_times.append(took)
        ours_rewards = ours(batch[0], **batch[1])
        for a, b, kind, t in zip(ours_rewards, rewards, batch[2], batch[1]["answer_type"]):
            total += 1
            if a == b:
                agree += 1
            else:
                differ[f"{t}/{kind}: ours {a:g}, plain {b:g}"] = \
                    differ.get(f"{t}/{kind}: ours {a:g}, plain {b:g}", 0) + 1
    cold_ours, cold_ours_imp = cold("ours", args.cold, args.seed, args.group, slow)
    cold_pre, _ = cold("ours-prestarted", args.cold, args.seed, args.group, slow)
    cold_plain, cold_plain_imp = cold("plain", max(1, args.cold // 2), args.seed, args.group, slow)
    chars = statistics.mean(len(c) for b in data for c in b[0])
    mv = statistics.mean(b[2].count("mv") for b in data)
    print(f"\n== {name} batches: {BATCH} completions, mean {chars:,.0f} chars, {mv:.1f} a batch "
          f"written for math-verify; {shared_pool().graded - sent_before} answers went to the "
          f"pool in all; statuses {statuses}")
    print(f"  ours, warm  ({len(warm):3d} batches)  {fmt(warm)}   (this thread's CPU: {fmt(warm_cpu)})")
    print(f"  ours, cold  ({len(cold_ours):3d} processes) {fmt(cold_ours)}   "
          f"(with `import general365.rewards`: {fmt(cold_ours_imp)})")
    print(f"  ours, cold after warm_up() ({len(cold_pre)} processes; the pool started before the "
          f"first call) {fmt(cold_pre)}")
    print(f"  plain, warm ({len(plain_times):3d} batches)  {fmt(plain_times)}")
    print(f"  plain, cold ({len(cold_plain):3d} processes) {fmt(cold_plain)}   "
          f"(with `from math_verify import ...`: {fmt(cold_plain_imp)})")
    print(f"  ratio plain/ours: warm p50 {pct(plain_times, .5) / pct(warm, .5):7.1f}x   "
          f"cold p50 {pct(cold_plain, .5) / pct(cold_ours, .5):7.1f}x   "
          f"cold with imports p50 {pct(cold_plain_imp, .5) / pct(cold_ours_imp, .5):7.1f}x   "
          f"cold after warm_up() p50 {pct(cold_plain, .5) / pct(cold_pre, .5):7.1f}x")
    print(f"  rewards agree with plain math-verify on {agree}/{total} completions; where not "
          f"(answer type/kind of completion):")
    for what, k in sorted(differ.items(), key=lambda kv: -kv[1]):
        print(f"    {k:4d}  {what}")
    print("  (plain reads a cut-off reasoning's box, a box inside the reasoning when the final "
          "answer is a statement, parses bare interval golds and letter lists its own way)")
    return {"warm_p50": pct(warm, .5)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=30, help="warm batches for ours")
    ap.add_argument("--plain-batches", type=int, default=4)
    ap.add_argument("--cold", type=int, default=4, help="fresh processes for the cold figures")
    ap.add_argument("--group", type=int, default=8, help="generations per prompt in a batch")
    ap.add_argument("--seed", type=int, default=365)
    ap.add_argument("--kinds", default="fast,mixed", help="which batch kinds to run")
    args = ap.parse_args()
    if BATCH % args.group:
        ap.error(f"--group must divide {BATCH}")
    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"machine: {os.cpu_count()} CPUs, load average {load:.1f}; {BATCH // args.group} "
          f"prompts x {args.group} generations per batch")
    for kind in args.kinds.split(","):
        run_kind(kind, args, slow={"fast": 0.0, "mixed": 0.3}[kind])
    return 0


if __name__ == "__main__":
    sys.exit(main())
