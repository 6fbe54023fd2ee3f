"""The CFE-Bench diagnostics on the command line (wiring only: flow.py does the work).

    ... cfe units   --data DIR --model M [--base-url URL] --out DIR [--policy ...]
    ... cfe lengths --data DIR --graded FILE... --segment-model M [--base-url URL] --out DIR
    ... cfe variables GRADED --out FILE       (per-variable rows for `general365 audit`)

Each costed command prints how many model calls it will make, then makes them; `--dry-run`
stops after the count. Both resume: rerunning the same command asks only for what the
`--out` folder does not hold yet.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ...errors import UserError
from ...runners.base import SamplingSettings


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="cfe_command", required=True, metavar="COMMAND")
    u = sub.add_parser("units", help="unit execution accuracy (model calls: one per unit)")
    _common(u)
    u.add_argument("--model", required=True, help="the model answering the units")
    u.add_argument("--runs", type=int, default=1)
    u.add_argument("--temperature", type=float, default=0.0)
    u.add_argument("--max-tokens", type=int, default=2048)
    u.add_argument("--policy", choices=("rule", "cascade", "paper"), default=None)
    _judge(u)
    n = sub.add_parser("lengths", help="reasoning-flow lengths, solved vs unsolved "
                                       "(model calls: one per graded response)")
    _common(n)
    n.add_argument("--graded", nargs="+", required=True, help="CFE-Bench graded file(s)")
    n.add_argument("--segment-model", required=True,
                   help="the model that counts a response's steps (e.g. the judge model)")
    n.add_argument("--max-tokens", type=int, default=64)
    v = sub.add_parser("variables", help="write one graded row per variable, for the audit")
    v.add_argument("graded", help="a CFE-Bench graded file")
    v.add_argument("--out", required=True, help="the .jsonl file to write")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", default=None, help="the CFE-Bench release folder (default: "
                                                "$CFE_BENCH_DATA)")
    p.add_argument("--subset", choices=("all", "text", "mm"), default="all")
    p.add_argument("--limit", type=int, default=None, help="the first N problems only")
    p.add_argument("--out", required=True, help="a run folder for the model's replies")
    p.add_argument("--base-url", default=None, help="an OpenAI-compatible endpoint")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY")
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--dry-run", action="store_true", help="print the number of calls and stop")


def _judge(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge-model", default=None)
    p.add_argument("--judge-base-url", default=None)
    p.add_argument("--judge-structured", choices=("json_schema", "vllm"), default=None)


def _problems(args):
    from .data import load

    problems = load(args.data, subset=args.subset).problems
    if args.limit is not None:
        if args.limit < 1:
            raise UserError(f"--limit must be at least 1 (got {args.limit})")
        problems = problems[:args.limit]
    return problems


def _runner(model: str, args):
    from ...runners.registry import make_runner

    return make_runner("openai", model, base_url=args.base_url, api_key_env=args.api_key_env,
                       concurrency=args.concurrency)


def main(args: argparse.Namespace) -> int:
    from ...report.tables import to_markdown
    from . import flow

    if args.cfe_command == "variables":
        from .audit import write_variable_rows

        n = write_variable_rows(args.graded, args.out)
        print(f"wrote {n} variable rows to {args.out}")
        return 0
    problems = _problems(args)
    if args.cfe_command == "units":
        if args.runs < 1:
            raise UserError(f"--runs must be at least 1 (got {args.runs})")
        unit_list = flow.units(problems)
        settings = SamplingSettings(temperature=args.temperature, max_tokens=args.max_tokens)
        requests = flow.unit_requests(unit_list, settings, args.runs)
        print(f"unit execution: {len(requests)} model call(s) ({len(unit_list)} units of "
              f"{len(problems)} problems x {args.runs} run(s)), to {args.model}", flush=True)
        if args.dry_run:
            return 0
        counts = flow.generate_into(args.out, _runner(args.model, args), requests)
        print(json.dumps(counts), file=sys.stderr)
        judge = None
        if args.judge_model:
            from ...grading.judge import Judge

            judge = Judge(args.judge_model, base_url=args.judge_base_url,
                          structured=args.judge_structured)
        results = flow.grade_units(args.out, unit_list, policy=args.policy, judge=judge)
        table = flow.unit_table(results)
    else:
        items = flow.outcomes(args.graded)
        settings = SamplingSettings(temperature=0.0, max_tokens=args.max_tokens)
        requests = flow.segment_requests(items, settings)
        print(f"flow lengths: {len(requests)} model call(s) (one per graded response with a "
              f"final answer), to {args.segment_model}", flush=True)
        if args.dry_run:
            return 0
        flow.generate_into(args.out, _runner(args.segment_model, args), requests)
        counts, failed = flow.read_counts(args.out)
        if failed:
            print(f"general365: note: {failed} segmenter repl(ies) were not {{\"steps\": N}}; "
                  "left out", file=sys.stderr)
        table = flow.length_table(flow.length_rows(items, {p.id: p for p in problems}, counts))
    text = to_markdown(table)
    with open(os.path.join(args.out, f"{table.key}.md"), "w", encoding="utf-8") as f:
        f.write(text)
    print(text)
    return 0
