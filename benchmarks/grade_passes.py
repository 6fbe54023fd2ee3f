"""What grading a snapshot costs: `general365 grade` reads the responses file twice (pass 1
checks every line before any judge is paid; pass 2 grades). Since issue 13 pass 1 reads
strictly (duplicate keys, depth, surrogates) and keeps each line's CRC-32, and pass 2
(read the same way) checks each line against it before use (so a file changed between the passes is caught,
and rows appended meanwhile are not graded). Measured side by side, on the same file:

- before:   both passes with plain json.loads (what grade did before issue 13);
- now:      both passes strict (jsonl.iter_jsonl: orjson, checked), pass 1 keeping each
            line's CRC-32, pass 2 checking each line against it (what grade does with a
            judge);
- by copy:  the other way to a snapshot, a copy of the file first, then both plain passes
            (a third full read and a full write).

Each pass also builds the Response records, as grade does. Then the whole command on the
file (rule policy), for the share reading takes of it.

    .venv/bin/python benchmarks/grade_passes.py [--n 20000] [--workers 2] [--no-cli]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def write_file(path: str, n: int) -> None:
    from grade_throughput import make_set

    problems, responses, _ = make_set(n)
    with open(path, "w", encoding="utf-8") as f:
        for r in responses:
            p = problems[r.id]
            row = {"id": r.id, "run": r.run, "response": r.response, "model": "bench-model",
                   "output_tokens": len(r.response) // 4, "finish_reason": "stop",
                   "sampling": {"preset": "reasoning", "temperature": 1.0, "top_p": 1.0,
                                "top_k": -1, "max_tokens": 32768, "seed": r.run},
                   "settings_hash": "0123456789abcdef", "prompt_hash": "fedcba9876543210",
                   "question": p.question, "answer": p.answer,
                   "answer_type": p.answer_type.value, "float_round": p.float_round}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def before(path: str) -> int:
    from general365.schema import Response

    rows = 0
    for _ in range(2):
        with open(path, "rb") as f:
            for n, raw in enumerate(f, start=1):
                Response.from_dict(json.loads(raw.decode("utf-8")), path=path, line=n)
                rows += 1
    return rows


def now(path: str) -> int:
    from general365.jsonl import Snapshot, iter_jsonl
    from general365.schema import Response

    snap = Snapshot()
    rows = 0
    for n, d in iter_jsonl(path, snapshot=snap):
        Response.from_dict(d, path=path, line=n)
        rows += 1
    for n, d in iter_jsonl(path, expect=snap):
        Response.from_dict(d, path=path, line=n)
        rows += 1
    return rows


def by_copy(path: str) -> int:
    copy = path + ".snapshot"
    shutil.copyfile(path, copy)
    try:
        return before(copy)
    finally:
        os.unlink(copy)


def best_of(fn, path: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(path)
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-cli", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "responses.jsonl")
        write_file(path, args.n)
        size = os.path.getsize(path)
        print(f"{args.n} responses, {size / 2**20:.1f} MiB ({size / args.n:,.0f} bytes a line); "
              f"best of {args.repeat}")
        results = {name: best_of(fn, path, args.repeat)
                   for name, fn in (("before", before), ("now", now), ("by copy", by_copy))}
        base = results["before"]
        for name, t in results.items():
            print(f"  {name:<8} {t:6.2f} s  ({2 * args.n / t:,.0f} rows/s over both passes)  "
                  f"x{t / base:.2f} of before")
        if not args.no_cli:
            exe = [sys.executable, "-m", "general365.cli"]
            t = time.perf_counter()
            done = subprocess.run([*exe, "grade", path, "--out", os.path.join(d, "g.jsonl"),
                                   "--policy", "rule", "--workers", str(args.workers),
                                   "--no-progress"], capture_output=True, text=True)
            total = time.perf_counter() - t
            if done.returncode != 0:
                print(done.stderr[-2000:])
                return 1
            extra = results["now"] - base
            print(f"  the whole `general365 grade` (rule, {args.workers} workers): {total:.1f} s; "
                  f"the snapshot's extra reading cost ({extra:+.2f} s) is "
                  f"{100 * extra / total:+.1f}% of it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
