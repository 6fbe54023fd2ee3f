"""Reading and writing JSON Lines, this checkout against another (`--compare TREE`), side by
side: what `general365 grade` spends on its input and output files, apart from grading.

The file is grade_cli.py's workload (reasoning-model outputs of 8,000 to 30,000 characters,
the gold inline). Each side runs in a fresh process with its checkout first on the path,
and times, best of `--repeat`:

- read, one pass: the rule policy's single read (strict, and checked at its end against a
  rewrite of the file);
- read, two passes: the judge policies' reads (every line checked, then exactly those
  lines reread, each checked against the first read);
- write: the graded rows (each response row and a grader's fields, read beforehand)
  written to a file as grade writes them (fsutil.atomic_write);
- plain: json.loads of each line and json.dumps of each row, nothing checked (a floor).

Times are CPU seconds of the worker (a shared machine's load shows less in them than in
wall time), the best of `--repeat`; sides are run alternately, round by round, so that a
round's ratios compare runs under the same load. Prints MiB/s and us a row for each (the
least over the rounds), and the median of the rounds' ratios this checkout / the other
(`plain` is the same code on both sides: its ratio shows the noise).
Whichever API a checkout has is used: before issue 22 (Fingerprint, iter_same_lines,
parse_strict_verbatim, dumps with verbatim strings) or after (Snapshot, iter_jsonl with
snapshot/expect, line).

    .venv/bin/python benchmarks/jsonl_io.py [--n 2000] [--repeat 5] [--rounds 3] \\
                                            [--compare TREE]
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
KINDS = ("read, one pass", "read, two passes", "write", "plain")


def _best(fn, repeat: int) -> float:
    """The least CPU time of `repeat` calls (CPU, not wall: the machine may be shared)."""
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def worker(path: str, repeat: int) -> dict[str, float]:
    """Seconds for each kind, with the general365 first on the path."""
    from general365 import jsonl
    from general365.fsutil import atomic_write

    out = path + ".out"
    graded = {"status": "correct", "correct": True, "score": 1.0, "method": "rule",
              "extracted": "12", "detail": None, "judge": None}

    def drain(rows) -> None:
        for _ in rows:
            pass

    if hasattr(jsonl, "Snapshot"):   # this API
        def one() -> None:
            drain(jsonl.iter_jsonl(path, snapshot=jsonl.Snapshot()))

        def two() -> None:
            snap = jsonl.Snapshot()
            drain(jsonl.iter_jsonl(path, snapshot=snap))
            drain(jsonl.iter_jsonl(path, expect=snap))

        rows = [{**d, **graded} for _, d in jsonl.iter_jsonl(path)]

        def write() -> None:
            with atomic_write(out) as f:
                for row in rows:
                    f.write(jsonl.line(row))
    else:   # before: the verbatim strings and the per-line fingerprint
        def one() -> None:
            drain(jsonl.iter_jsonl(path, reader=jsonl.parse_strict_verbatim, unchanged=True))

        def two() -> None:
            fp = jsonl.Fingerprint()
            drain(jsonl.iter_jsonl(path, fingerprint=fp))
            drain(jsonl.iter_same_lines(path, fp, jsonl.parse_verbatim))

        rows = [({**d, **graded}, kept) for _, (d, kept)
                in jsonl.iter_jsonl(path, reader=jsonl.parse_strict_verbatim)]

        def write() -> None:
            with atomic_write(out) as f:
                for row, kept in rows:
                    f.write(jsonl.dumps(row, kept, end="\n"))

    def plain() -> None:
        with open(path, "rb") as f:
            rows = [json.loads(raw) for raw in f]
        with open(out, "w", encoding="utf-8") as f:
            for d in rows:
                f.write(json.dumps({**d, **graded}, ensure_ascii=False) + "\n")

    times = {kind: _best(fn, repeat) for kind, fn in zip(KINDS, (one, two, write, plain))}
    os.unlink(out)
    return times


def run_side(tree: str, path: str, repeat: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", path,
                           "--repeat", str(repeat)], capture_output=True, text=True,
                          cwd=tree, env=env)
    if done.returncode != 0:
        sys.exit(f"{tree}: the worker failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5, help="best of N within a round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--compare", metavar="TREE",
                    help="another checkout (e.g. `git archive COMMIT | tar -x -C TREE`)")
    ap.add_argument("--worker", metavar="FILE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.repeat)))
        return 0

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, ROOT)
    from grade_cli import make_rows, write_rows

    trees = {"this": ROOT}
    if args.compare:
        trees["other"] = args.compare
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "responses.jsonl")
        write_rows(path, make_rows(args.n))
        time.sleep(2.1)   # past the clock-tick margin: the end-of-read check is a stat
        mib = os.path.getsize(path) / 2 ** 20
        print(f"{args.n} rows, {mib:.0f} MiB; best of {args.repeat} in each of "
              f"{args.rounds} rounds")
        rounds = []
        for r in range(args.rounds):
            rounds.append({name: run_side(tree, path, args.repeat)
                           for name, tree in trees.items()})
        for kind in KINDS:
            line = f"{kind:<17}"
            for name in trees:
                best = min(g[name][kind] for g in rounds)
                line += (f"  {name}: {mib * (2 if 'two' in kind else 1) / best:6.0f} MiB/s "
                         f"{1e6 * best / args.n:6.1f} us/row")
            if args.compare:
                ratios = sorted(g["other"][kind] / g["this"][kind] for g in rounds)
                line += (f"  -> this is {ratios[len(ratios) // 2]:.2f}x as fast "
                         f"(rounds {ratios[0]:.2f}-{ratios[-1]:.2f})")
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
