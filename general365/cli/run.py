"""`general365 run`: generate + grade + report into one run folder (general365.run):
RUN_DIR/responses.jsonl and run.json (resumable), RUN_DIR/graded.jsonl, RUN_DIR/report/."""

from __future__ import annotations

import argparse
import sys

from ..extras import backend_extra, require
from ..grading.hybrid import POLICIES
from ..grading.pool import DEFAULT_TIMEOUT
from ..tasks.cfe.grade import DEFAULT_TIMEOUT as CFE_TIMEOUT
from ..terminal import shown, shown_lines
from ..reporting import published as pub
from . import generate as generate_cli
from . import flags
from .report import add_publish_arguments, print_summary


def add_arguments(p: argparse.ArgumentParser) -> None:
    generate_cli.add_arguments(p)
    g = p.add_argument_group("grading (see `general365 grade`)")
    g.add_argument("--policy", choices=POLICIES,
                   help="default: paper with --judge-model, rule without (then text answers "
                        "are left ungraded)")
    g.add_argument("--grade-workers", type=int, help="rule-grading processes (default: CPUs)")
    g.add_argument("--grade-timeout", type=float, default=None,
                   help=f"hard time limit per rule-graded answer, seconds (default "
                        f"{DEFAULT_TIMEOUT:g}; cfe: {CFE_TIMEOUT:g})")
    flags.add_judge(p)
    g = p.add_argument_group("report (see `general365 report`)")
    g.add_argument("--published", default="full", choices=pub.CHOICES,
                   help="the paper's figures beside yours (default: full)")
    g.add_argument("--name", help="the model's name in the report (default: the model as the "
                                  "run records it: --model, or --model@--revision)")
    add_publish_arguments(p.add_argument_group("results sent on (see `general365 report`)"),
                          tensorboard_default="RUN_DIR/tensorboard")


def main(args: argparse.Namespace) -> int:
    from .. import api

    if args.judge_model:   # every extra the run needs, named in one line before any work
        from ..results.trackers import parse_report_to

        require("run", [*backend_extra(args.backend), "judge", "plots",
                        *parse_report_to(args.report_to)])
    judge = flags.make_judge("run", args)
    # generate()'s flags, then run()'s own (grading, the report, the results sent on)
    options = {**generate_cli.generate_kwargs(args), **flags.keywords(api.run, args, "model")}
    result = api.run(args.model, judge=judge, on_stage=print_stage, **options)
    return print_result(result, args.out)


def print_stage(name: str, path: str) -> None:
    n = {"generate": 1, "grade": 2, "report": 3}[name]
    print(f"general365 run: {n}/3 {name} -> {path}", file=sys.stderr)


def print_result(result, out: str) -> int:
    """What each stage of a run said, and the exit code (shared with `general365 demo`)."""
    gen = result.generate
    for note in gen.notes:
        print(f"general365 generate: {shown(note)}", file=sys.stderr)
    print(shown_lines(gen.render(f"{out}/responses.jsonl")))
    if not gen.ok:
        print("general365 run: generation did not complete; rerun the same command to resume "
              "(grading and the report wait for it)", file=sys.stderr)
        return 1
    if result.grade is not None:
        for note in result.grade.notes:
            print(f"general365 grade: {shown(note)}", file=sys.stderr)
        print(shown_lines(result.grade.render()))
        if result.grade.judge_failed:
            print(f"general365 grade: {result.grade.judge_failed} row(s) are judge_failed; "
                  "rerun the same command to retry them (verdicts given are cached)",
                  file=sys.stderr)
            return 1
    if result.report is not None:
        print_summary(result.report, 1)
    return result.exit_code
