"""`general365 report GRADED.jsonl... --out REPORT_DIR`: wiring only (general365.report)."""

from __future__ import annotations

import argparse
import os

from ..reporting import published as pub
from ..reporting import stats
from ..reporting.summary import leaderboard_order
from ..terminal import shown
from . import flags


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("graded", nargs="+", metavar="GRADED.jsonl",
                   help="graded files (a model per file or per row's `model` field), or "
                        "results folders written by --hub-folder")
    p.add_argument("--out", required=True, metavar="REPORT_DIR", help="folder for the report")
    p.add_argument("--published", choices=pub.CHOICES, default="full",
                   help="show the paper's figures beside yours: Table 1 (full benchmark, "
                        "default), Table 2's public-subset column, or none (CFE-Bench: "
                        "full shows its paper's Tables 2 and 3)")
    p.add_argument("--name", action="append", metavar="NAME", dest="names",
                   help="the model name for each graded file, in order (overrides `model`)")
    p.add_argument("--bootstrap", type=int, default=stats.BOOTSTRAP_RESAMPLES,
                   metavar="N", help="bootstrap resamples for the 95%% intervals (default "
                                     "%(default)s)")
    p.add_argument("--seed", type=int, default=stats.BOOTSTRAP_SEED,
                   help="bootstrap seed (default %(default)s)")
    add_publish_arguments(p.add_argument_group("results sent on (docs/reports.md)"),
                          tensorboard_default="REPORT_DIR/tensorboard")


def add_publish_arguments(g, *, tensorboard_default: str) -> None:
    """Trackers and the Hub: the same flags on `report` and `run`."""
    g.add_argument("--report-to", metavar="LIST",
                   help="experiment trackers for the results, comma-separated: tensorboard, "
                        "wandb, trackio, mlflow, all or none (one tracker run per model)")
    g.add_argument("--logging-dir", metavar="DIR",
                   help=f"where TensorBoard writes (default {tensorboard_default})")
    g.add_argument("--hub-folder", metavar="DIR",
                   help="write the results as a dataset in the Hub layout (configs results "
                        "and details); a folder written before gets the new rows added")
    g.add_argument("--push-to-hub", metavar="ORG/NAME",
                   help="upload the results dataset to this Hub dataset repository "
                        "(private unless --public; other models' rows there are kept)")
    g.add_argument("--public", action="store_true",
                   help="with --push-to-hub: create the repository public")
    g.add_argument("--token-env", metavar="VAR",
                   help="with --push-to-hub: the environment variable that holds the Hub "
                        "token (default "
                        "HF_TOKEN; when it is unset the saved `hf auth login` token is used)")


def _pct(x: float | None) -> str:
    return "   -  " if x is None else f"{100 * x:5.1f}%"


def print_summary(report, n_files: int) -> None:
    published = report.settings["published"]
    n_published = sum(m.kind == "published" for m in report.models)
    paper = ""
    if published != "none":   # a benchmark's own tables may carry its paper's figures
        paper = (f", {n_published} published ({published})" if n_published or not
                 report.own_tables else f", the paper's figures in its tables ({published})")
    print(f"general365 report: {n_files} file(s), "
          f"{sum(m.kind == 'run' for m in report.models)} model(s) of yours" + paper)
    for rank, m in enumerate(leaderboard_order(report.models), start=1):
        if m.kind != "run":
            continue
        iv = m.interval
        ci = f" [{_pct(iv.low)}, {_pct(iv.high)}]" if iv else ""
        st = m.statuses
        # The model's name comes from the graded file: shown escaped, never raw.
        print(f"  #{rank:<3} {shown(m.name):<40.40} {_pct(m.accuracy)}{ci}  graded "
              f"{m.overall.graded}/{m.overall.rows}  no_answer {st['no_answer']} "
              f"timeout {st['timeout']} judge_failed {st['judge_failed']}")
    if report.own_tables:
        print(f"  {report.kind.title}'s own tables: {', '.join(report.own_tables)}")
        for note in report.kind.notes[:1]:
            print(f"  {note}")
    for note in report.settings["notes"]:
        print(f"  note: {shown(note)}")
    print(f"  page:   {os.path.join(report.out, 'index.html')}")
    print(f"  tables: {os.path.join(report.out, 'report.md')} (+ tables/*.csv, report.json)")
    print(f"  figures: {os.path.join(report.out, 'figures')}/")
    for line in report.sent:
        print(f"  sent:   {line}")


def main(args: argparse.Namespace) -> int:
    from .. import api

    report = api.report(**flags.keywords(api.report, args))   # each flag is a keyword
    print_summary(report, len(args.graded))
    return 0
