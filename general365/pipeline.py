"""`general365 run`: generate + grade + report into one run folder.

Pure wiring: each stage is the verb's own `main`, given the arguments that verb would get on
the command line, so `run` can never drift from `generate`, `grade` and `report`.

    RUN_DIR/responses.jsonl, run.json    (generate; resumable)
    RUN_DIR/graded.jsonl                  (grade)
    RUN_DIR/report/                       (report: tables, figures, index.html)
"""

from __future__ import annotations

import argparse
import os
import sys

from .errors import UserError
from .extras import backend_extra, require
from .grading import commands as grade_cmd
from .report import commands as report_cmd
from .runners import commands as generate_cmd


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .grading.hybrid import POLICIES

    generate_cmd.add_arguments(p)
    g = p.add_argument_group("grading (see `general365 grade`)")
    g.add_argument("--policy", choices=POLICIES,
                   help="default: paper with --judge-model, rule without (then text answers "
                        "are left ungraded)")
    g.add_argument("--judge-model", help="judge model name, e.g. gpt-4.1")
    g.add_argument("--judge-base-url", help="the judge's OpenAI-compatible base URL")
    g.add_argument("--judge-api-key-env", default="OPENAI_API_KEY", metavar="VAR")
    g.add_argument("--judge-concurrency", type=int, default=16)
    g.add_argument("--judge-votes", type=int, default=1)
    g.add_argument("--judge-structured", choices=("json_schema", "vllm"),
                   help="constrain the judge's reply (see `general365 grade --help`)")
    g.add_argument("--judge-max-tokens", type=int, help="output limit of each judge reply")
    g.add_argument("--grade-workers", type=int, help="rule-grading processes (default: CPUs)")
    g = p.add_argument_group("report (see `general365 report`)")
    g.add_argument("--published", default="full", choices=("full", "public", "none"),
                   help="the paper's figures beside yours (default: full)")
    g.add_argument("--name", help="the model's name in the report (default: the model as the "
                                  "run records it: --model, or --model@--revision)")


def stage_args(verb_module, argv: list[str]) -> argparse.Namespace:
    """The Namespace `verb_module.main` would get from `general365 VERB argv...`."""
    parser = argparse.ArgumentParser(prog="general365 run")
    verb_module.add_arguments(parser)
    return parser.parse_args(argv)


def grade_argv(args: argparse.Namespace, responses: str, graded: str) -> list[str]:
    argv = [responses, "--out", graded]
    if args.policy:
        argv += ["--policy", args.policy]
    if args.judge_model:
        argv += ["--judge-model", args.judge_model, "--judge-api-key-env", args.judge_api_key_env,
                 "--judge-concurrency", str(args.judge_concurrency),
                 "--judge-votes", str(args.judge_votes)]
        if args.judge_base_url:
            argv += ["--judge-base-url", args.judge_base_url]
        if args.judge_structured:
            argv += ["--judge-structured", args.judge_structured]
        if args.judge_max_tokens is not None:
            argv += ["--judge-max-tokens", str(args.judge_max_tokens)]
    if args.grade_workers:
        argv += ["--workers", str(args.grade_workers)]
    return argv


def main(args: argparse.Namespace) -> int:
    require("run", [*backend_extra(args.backend), *(["judge"] if args.judge_model else []),
                    "plots"])
    if args.policy in ("paper", "cascade") and not args.judge_model:
        raise UserError(f"--policy {args.policy} needs a judge: give --judge-model "
                        "(and --judge-base-url), or use --policy rule")
    if args.grade_workers is not None and args.grade_workers < 1:
        raise UserError(f"--grade-workers must be at least 1 (got {args.grade_workers})")
    run_dir = args.out
    responses = os.path.join(run_dir, "responses.jsonl")
    graded = os.path.join(run_dir, "graded.jsonl")
    report_dir = os.path.join(run_dir, "report")

    # Every stage's options are checked before anything is generated: a typo in a grading
    # option must not cost a generation.
    grade_args = stage_args(grade_cmd, grade_argv(args, responses, graded))
    try:
        grade_cmd.check_args(grade_args)
    except UserError as exc:
        raise UserError(str(exc).replace("--workers", "--grade-workers")) from None
    report_argv = [graded, "--out", report_dir, "--published", args.published]
    if args.name:
        report_argv += ["--name", args.name]
    report_args = stage_args(report_cmd, report_argv)

    print(f"general365 run: 1/3 generate -> {responses}", file=sys.stderr)
    code = generate_cmd.main(args)
    if code:
        print("general365 run: generation did not complete; rerun the same command to resume "
              "(grading and the report wait for it)", file=sys.stderr)
        return code

    print(f"general365 run: 2/3 grade -> {graded}", file=sys.stderr)
    code = grade_cmd.main(grade_args)
    if code:
        return code

    print(f"general365 run: 3/3 report -> {report_dir}", file=sys.stderr)
    return report_cmd.main(report_args)
