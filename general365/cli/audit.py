"""`general365 audit sample|score`: the command line of the grading audit (wiring only;
the work is in general365.audit: sampling.py and scoring.py)."""

from __future__ import annotations

import argparse
import os
import sys

from ..terminal import shown_lines


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="audit_verb", metavar="sample|score", required=True)
    s = sub.add_parser("sample", help="draw graded rows for a person to review",
                       description="A stratified, seeded sample of graded rows (by method, "
                                   "status and answer type), plus every row where the rule "
                                   "and the judge disagree, as review.jsonl and a review page.")
    s.add_argument("graded", nargs="+", metavar="GRADED.jsonl", help="graded files")
    s.add_argument("--n", type=int, required=True, metavar="N",
                   help="rows in the stratified sample (disagreements come on top)")
    s.add_argument("--out", required=True, metavar="DIR", help="folder for the review files")
    s.add_argument("--seed", type=int, default=0, help="sampling seed (default %(default)s)")
    s.add_argument("--name", action="append", metavar="NAME", dest="names",
                   help="the model name for each graded file, in order (as in report)")
    c = sub.add_parser("score", help="grading accuracy from reviewed labels",
                       description="Accuracy (95%% Wilson interval), precision, recall, F1, "
                                   "false positives and negatives from labels files, overall "
                                   "and per method, answer type and model.")
    c.add_argument("labels", nargs="+", metavar="LABELS.jsonl",
                   help="labels: the review page's export or review.jsonl filled in by hand")
    c.add_argument("--out", required=True, metavar="DIR", help="folder for the score files")


def main(args: argparse.Namespace) -> int:
    return {"sample": _sample, "score": _score}[args.audit_verb](args)


def _sample(args) -> int:
    from ..audit.sampling import sample, write_sample

    # Reading is three passes over the files (check, strata, the drawn rows' text): say so.
    print(f"general365 audit sample: reading {len(args.graded)} graded file(s) ...",
          file=sys.stderr, flush=True)
    s = write_sample(sample(args.graded, args.n, seed=args.seed, names=args.names), args.out)
    drawn = len(s.rows) - s.disagreements
    print(f"general365 audit sample: {len(s.rows)} rows to review from "
          f"{s.settings['population']} graded rows: {drawn} sampled over "
          f"{sum(1 for st in s.strata if st.drawn and st.name != 'rule-judge disagreement')} "
          f"strata (seed {args.seed}), {s.disagreements} where the rule and the judge disagree")
    if drawn < args.n:
        print(f"  note: only {drawn} rows could be drawn for --n {args.n} (every row is in)")
    print(f"  page:   {os.path.join(s.out, 'review.html')}")
    print(f"  review: {os.path.join(s.out, 'review.jsonl')} (fill in \"label\" by hand, or "
          "export from the page)")
    print("  then:   general365 audit score LABELS.jsonl --out DIR")
    return 0


def _score(args) -> int:
    from ..audit.scoring import score, summary_lines, write_score

    a = write_score(score(args.labels), args.out)
    for line in summary_lines(a):
        print(shown_lines(line))
    print(f"  tables: {os.path.join(a.out, 'score.md')} (+ score.csv, score.json)")
    return 0
