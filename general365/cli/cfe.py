"""`general365 cfe units|lengths|variables`: CFE-Bench's diagnostics (wiring only:
tasks/cfe/flow.py and tasks/cfe/graded_rows.py). `units` and `lengths` print how many model
calls they will make first (`--dry-run` stops there), and resume: only what `--out` does not
hold yet is asked for. Generating, grading and reporting CFE-Bench: `--benchmark cfe`."""

from __future__ import annotations

import argparse
import sys

from ..grading.hybrid import POLICIES
from ..terminal import shown_lines
from . import flags


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="cfe_command", required=True, metavar="COMMAND")
    u = sub.add_parser("units", help="unit execution accuracy (one model call per unit and run)")
    _common(u)
    u.add_argument("--model", required=True, help="the model answering the units")
    u.add_argument("--runs", type=int, default=1, help="answers per unit (default 1)")
    u.add_argument("--temperature", type=float, default=0.0)
    u.add_argument("--max-tokens", type=int, default=2048)
    u.add_argument("--policy", choices=POLICIES, default=None,
                   help="how unit answers are graded (default: paper with --judge-model, "
                        "rule without)")
    u.add_argument("--workers", type=int, default=None, help="rule-grading processes")
    flags.add_judge(u)
    n = sub.add_parser("lengths", help="reasoning-flow lengths, solved vs unsolved (one "
                                       "model call per graded response)")
    _common(n)
    n.add_argument("--graded", nargs="+", required=True, help="CFE-Bench graded file(s)")
    n.add_argument("--segment-model", required=True,
                   help="the model that counts a response's steps (e.g. the judge's)")
    n.add_argument("--max-tokens", type=int, default=64)
    v = sub.add_parser("variables", help="one graded row per variable, for `general365 audit`")
    v.add_argument("graded", help="a CFE-Bench graded file")
    v.add_argument("--out", required=True, help="the .jsonl file to write")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", default=None, help="the CFE-Bench release folder (default: "
                                                   "$CFE_BENCH_DATA)")
    p.add_argument("--config", choices=("all", "text", "mm"), default="all",
                   help="the subset (default: all)")
    p.add_argument("--limit", type=int, default=None, help="only the first N problems")
    p.add_argument("--out", required=True, help="a run folder for the model's replies")
    p.add_argument("--base-url", default=None, help="the OpenAI-compatible endpoint")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR")
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--dry-run", action="store_true", help="print the number of calls and stop")


def main(args: argparse.Namespace) -> int:
    from ..reporting.tables import to_markdown
    from ..runners.base import SamplingSettings
    from ..runners.registry import make_runner
    from ..tasks.cfe import flow
    from ..tasks.cfe.benchmark import CFEBench

    if args.cfe_command == "variables":
        from ..tasks.cfe.graded_rows import write_variable_rows

        n = write_variable_rows(args.graded, args.out)
        print(f"wrote {n} variable rows to {args.out}")
        return 0
    from ..extras import backend_extra, require

    require("cfe", backend_extra("openai"))
    problems = flow.select(CFEBench().load(args.dataset, config=args.config), args.limit)

    def runner(model: str):
        return lambda: make_runner("openai", model, base_url=args.base_url,
                                   api_key_env=args.api_key_env, concurrency=args.concurrency)

    def say(text: str) -> None:   # may name what the files hold: escaped for the terminal
        print(shown_lines(text), file=sys.stderr, flush=True)

    if args.cfe_command == "units":
        settings = SamplingSettings(temperature=args.temperature, max_tokens=args.max_tokens)
        table = flow.unit_execution(
            problems, make_runner=runner(args.model), model=args.model, out=args.out,
            settings=settings, runs=args.runs, policy=args.policy,
            judge=flags.make_judge("cfe", args), workers=args.workers,
            dry_run=args.dry_run, announce=say)
    else:
        settings = SamplingSettings(temperature=0.0, max_tokens=args.max_tokens)
        table = flow.flow_lengths(
            problems, args.graded, make_runner=runner(args.segment_model),
            model=args.segment_model, out=args.out, settings=settings, dry_run=args.dry_run,
            announce=say)
    if table is not None:
        print(shown_lines(to_markdown(table)))
    return 0
