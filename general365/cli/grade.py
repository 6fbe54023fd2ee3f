"""`general365 grade RESPONSES.jsonl --out GRADED.jsonl`: wiring only (general365.grade_file).

Exit codes: 0 graded; 1 some rows are judge_failed (rerun: cached verdicts are reused, only
those rows are asked again); 2 a user error (one line, nothing written).
"""

from __future__ import annotations

import argparse
import sys

from ..grading.hybrid import POLICIES
from ..grading.pool import DEFAULT_TIMEOUT
from ..tasks.cfe.grade import DEFAULT_TIMEOUT as CFE_TIMEOUT
from ..terminal import shown, shown_lines
from . import flags


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("responses", help="responses.jsonl (one response a line)")
    p.add_argument("--out", required=True, help="where to write graded.jsonl")
    p.add_argument("--dataset", help="the problems: 'sample', a Hub id, a file or a folder "
                                     "(without it, responses must carry their gold inline)")
    p.add_argument("--split", default="public", help="dataset split (default: public)")
    flags.add_benchmark(p)
    p.add_argument("--policy", choices=POLICIES, default=None,
                   help="paper: rule + judge as in the paper; cascade: rule, then the judge "
                        "where the rule says not correct; rule: no judge, text answers left "
                        "ungraded (default: paper with --judge-model, rule without)")
    flags.add_judge(p)
    p.add_argument("--workers", type=int, default=None,
                   help="rule-grading processes (default: CPU count)")
    p.add_argument("--timeout", type=float, default=None,
                   help=f"hard time limit per rule-graded answer, seconds (default "
                        f"{DEFAULT_TIMEOUT:g}; cfe: {CFE_TIMEOUT:g})")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def main(args: argparse.Namespace) -> int:
    from .. import api

    judge = flags.make_judge("grade", args)
    result = api.grade_file(args.responses, args.out, benchmark=flags.benchmark(args),
                            dataset=args.dataset, split=args.split, policy=args.policy,
                            judge=judge, workers=args.workers, timeout=args.timeout,
                            progress=not args.no_progress)
    for note in result.notes:
        print(f"general365 grade: {shown(note)}", file=sys.stderr)
    print(shown_lines(result.render()))
    sys.stdout.flush()
    if result.judge_failed:
        print(f"general365 grade: {result.judge_failed} row(s) are judge_failed (the judge gave "
              "no usable verdict); rerun the same command to retry them: verdicts already "
              "given are cached", file=sys.stderr)
        return 1
    return 0
