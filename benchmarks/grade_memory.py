"""Streaming: `general365 grade` on 10,000 and on 100,000 responses should peak at about
the same memory (it reads line by line, grades in chunks, writes as it goes).

Writes two responses files (inline gold, rule policy; numbers, fractions, decimals with
float_round, intervals, inequalities that go through the math-verify pool, choice letters,
text rows left ungraded), runs the command on each in a fresh process, and samples the
resident memory of the command's process and of its whole process tree (the pool's
workers and forkserver) every 20 ms.

    .venv/bin/python benchmarks/grade_memory.py [--sizes 10000 100000] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

FILLER = ("we check each case in turn and the count stays consistent with the constraint; "
          "the remaining branch is excluded because the bound is exceeded. ") * 12


def rows(n: int):
    for i in range(n):
        m = i % 10
        base = {"id": f"p{i % 5000}-{m}", "run": i // 5000, "model": "bench"}
        if m in (0, 1, 2):
            v = i % 997
            text, gold, t, k = f"\\boxed{{{v if m else v + 1}}}", str(v), "number", 0
        elif m == 3:
            text, gold, t, k = r"\boxed{\frac{2}{3}}", "0.67", "number", 2
        elif m == 4:
            text, gold, t, k = r"\boxed{(4,\infty)\cup(-\infty,3)}", r"(-\infty,3)\cup(4,+\infty)", "interval", 0
        elif m == 5:  # through math-verify in the pool (a new answer each time: no cache)
            text, gold, t, k = f"\\boxed{{\\sqrt{{{i * i}}}}}", str(i), "number", 0
        elif m == 6:
            text, gold, t, k = r"\boxed{B, D}", "BD", "multiple_choice", 0
        elif m == 7:
            text, gold, t, k = "Paris", "Paris", "text", 0
        elif m == 8:
            text, gold, t, k = r"<think>cut off \boxed{3}", "3", "number", 0
        else:
            text, gold, t, k = "Final answer: 3,600 seconds", "3600", "number", 0
        yield {**base, "response": f"<think>{FILLER}</think>\n{text}" if "<think>" not in text else FILLER + text,
               "answer": gold, "answer_type": t, "float_round": k}


def tree_rss(pid: int) -> tuple[int, int]:
    """(RSS of pid, RSS of pid and all its descendants), bytes."""
    import psutil

    try:
        p = psutil.Process(pid)
        own = p.memory_info().rss
        total = own
        for c in p.children(recursive=True):
            try:
                total += c.memory_info().rss
            except psutil.Error:
                pass
        return own, total
    except psutil.Error:
        return 0, 0


def run(n: int, workers: int, tmp: str) -> dict:
    src = os.path.join(tmp, f"responses-{n}.jsonl")
    with open(src, "w", encoding="utf-8") as f:
        for r in rows(n):
            f.write(json.dumps(r) + "\n")
    out = os.path.join(tmp, f"graded-{n}.jsonl")
    exe = os.path.join(os.path.dirname(sys.executable), "general365")
    t0 = time.perf_counter()
    proc = subprocess.Popen([exe, "grade", src, "--policy", "rule", "--workers", str(workers),
                             "--no-progress", "--out", out], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    peak_own = peak_tree = 0
    while proc.poll() is None:
        own, total = tree_rss(proc.pid)
        peak_own, peak_tree = max(peak_own, own), max(peak_tree, total)
        time.sleep(0.02)
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"grade failed ({proc.returncode}): {stderr}")
    with open(out, encoding="utf-8") as f:
        lines = sum(1 for _ in f)
    return {"n": n, "file_mb": os.path.getsize(src) / 2**20, "peak_main_mb": peak_own / 2**20,
            "peak_tree_mb": peak_tree / 2**20, "seconds": wall, "rows_out": lines,
            "summary": stdout.strip().splitlines()[1]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = [run(n, args.workers, tmp) for n in args.sizes]
    print(f"{'rows':>8} {'file MB':>8} {'peak RSS main MB':>17} {'peak RSS tree MB':>17} {'s':>7} {'rows/s':>8}")
    for r in results:
        print(f"{r['n']:>8} {r['file_mb']:>8.1f} {r['peak_main_mb']:>17.1f} {r['peak_tree_mb']:>17.1f} "
              f"{r['seconds']:>7.1f} {r['n'] / r['seconds']:>8.0f}   {r['summary']}")
        assert r["rows_out"] == r["n"]
    if len(results) > 1:
        a, b = results[0], results[-1]
        print(f"\n{b['n'] // a['n']}x the rows: peak RSS of the command x{b['peak_main_mb'] / a['peak_main_mb']:.2f}, "
              f"of the process tree x{b['peak_tree_mb'] / a['peak_tree_mb']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
