"""`general365 report GRADED.jsonl... --out REPORT_DIR`: tables (Markdown, CSV, JSON),
figures (PNG, SVG) and the leaderboard page, from graded files only.

Everything is read and checked before anything is written; the report is built in a
temporary folder beside REPORT_DIR and moved into place file by file at the end, so a bad
input leaves nothing behind and a reader never sees half a report.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Sequence

from ..errors import UserError
from ..extras import require
from . import html, plots, published as pub, stats, summary, tables
from .load import load_graded


@dataclass
class Report:
    """A built report, before or after writing (the Python entry point returns it)."""

    models: list[summary.ModelSummary]
    tables: list[tables.Table]
    settings: dict
    out: str | None = None
    files: list[str] = field(default_factory=list)

    def table(self, key: str) -> tables.Table:
        return next(t for t in self.tables if t.key == key)

    def to_dict(self) -> dict:
        return summary.report_to_dict(self.models, settings=self.settings)


def build_report(paths: Sequence[str], *, published: str = "full",
                 names: Sequence[str] | None = None,
                 resamples: int = stats.BOOTSTRAP_RESAMPLES,
                 seed: int = stats.BOOTSTRAP_SEED) -> Report:
    """Read graded files and compute every table (no files written)."""
    if published not in pub.CHOICES:
        raise UserError(f"--published {published!r}: expected one of {', '.join(pub.CHOICES)}")
    if resamples < 100:
        raise UserError(f"--bootstrap {resamples}: expected at least 100 resamples")
    if not paths:
        raise UserError("no graded files given; expected one or more GRADED.jsonl")
    runs = load_graded(paths, names)
    models = [summary.summarize_runs(m, resamples=resamples, seed=seed) for m in runs]
    stab = {s.name: s for s in pub.table3()} if published != "none" else {}
    models += [summary.summarize_published(p, stab.get(p.name)) for p in pub.published(published)]
    notes = _comparison_notes(runs, published)
    settings = {"published": published, "bootstrap_resamples": resamples,
                "bootstrap_seed": seed, "bootstrap_level": stats.BOOTSTRAP_LEVEL,
                "inputs": [os.path.abspath(p) for p in paths],
                "published_source": pub.SOURCE if published != "none" else None,
                "notes": notes}
    return Report(models=models, tables=tables.all_tables(models), settings=settings)


def _comparison_notes(runs, published: str) -> list[str]:
    """Warn where the paper's figures are on another part of the benchmark than the runs
    (run.json records the split a run used)."""
    datasets = [rj["dataset"] for m in runs for rj in m.run_json
                if isinstance(rj.get("dataset"), dict)]
    if published != "none" and any(d.get("source") == "sample" for d in datasets):
        return ["some runs are on the bundled sample (problems written for this toolkit, not "
                "General365's own): their scores are not comparable with the paper's figures"]
    splits = {d.get("split") for d in datasets}
    if published == "full" and "public" in splits:
        return ["some runs are on the public split while the paper's figures shown are on "
                "the full benchmark; --published public compares like with like"]
    if published == "public" and "test" in splits:
        return ["some runs are on the full test split while the paper's figures shown are "
                "on the public subset; --published full compares like with like"]
    return []


def write_report(report: Report, out: str) -> Report:
    """Write the report under `out` (created if needed); existing report files there are
    replaced, other files are left alone."""
    out = os.path.abspath(out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise UserError(f"--out {out}: exists and is not a folder; expected a folder")
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".general365-report-", dir=parent)
    try:
        os.makedirs(os.path.join(tmp, "tables"))
        for t in report.tables:
            _write(os.path.join(tmp, "tables", t.key + ".csv"), tables.to_csv(t))
        board = tables.leaderboard_table(report.models)
        _write(os.path.join(tmp, "tables", board.key + ".csv"), tables.to_csv(board))
        md = ["# General365 report", "",
              f"Published figures: {report.settings['published']}. "
              + summary.CATEGORY_NOTE, ""]
        md += [tables.to_markdown(t) for t in report.tables]
        _write(os.path.join(tmp, "report.md"), "\n".join(md))
        _write(os.path.join(tmp, "report.json"),
               json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n")
        figures = plots.all_figures(report.models, os.path.join(tmp, "figures"))
        _write(os.path.join(tmp, "index.html"),
               html.render_page(report.models, report.tables, figures,
                                settings=report.settings))
        written = []
        for root, _dirs, files in os.walk(tmp):
            for name in sorted(files):
                src = os.path.join(root, name)
                rel = os.path.relpath(src, tmp)
                dst = os.path.join(out, rel)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                os.replace(src, dst)
                written.append(dst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report.out, report.files = out, sorted(written)
    return report


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("graded", nargs="+", metavar="GRADED.jsonl",
                   help="graded files (a model per file or per row's `model` field)")
    p.add_argument("--out", required=True, metavar="REPORT_DIR", help="folder for the report")
    p.add_argument("--published", choices=pub.CHOICES, default="full",
                   help="show the paper's figures beside yours: Table 1 (full benchmark, "
                        "default), Table 2's public-subset column, or none")
    p.add_argument("--name", action="append", metavar="NAME",
                   help="the model name for each graded file, in order (overrides `model`)")
    p.add_argument("--bootstrap", type=int, default=stats.BOOTSTRAP_RESAMPLES,
                   metavar="N", help="bootstrap resamples for the 95%% intervals (default "
                                     "%(default)s)")
    p.add_argument("--seed", type=int, default=stats.BOOTSTRAP_SEED,
                   help="bootstrap seed (default %(default)s)")


def _pct(x: float | None) -> str:
    return "   -  " if x is None else f"{100 * x:5.1f}%"


def main(args: argparse.Namespace) -> int:
    require("report", ["plots"])
    report = build_report(args.graded, published=args.published, names=args.name,
                          resamples=args.bootstrap, seed=args.seed)
    write_report(report, args.out)
    board = summary.leaderboard_order(report.models)
    print(f"general365 report: {len(args.graded)} file(s), "
          f"{sum(m.kind == 'run' for m in report.models)} model(s) of yours"
          + (f", {sum(m.kind == 'published' for m in report.models)} published "
             f"({args.published})" if args.published != "none" else ""))
    for rank, m in enumerate(board, start=1):
        if m.kind != "run":
            continue
        iv = m.interval
        ci = f" [{_pct(iv.low)}, {_pct(iv.high)}]" if iv else ""
        st = m.statuses
        print(f"  #{rank:<3} {m.name:<40.40} {_pct(m.accuracy)}{ci}  graded "
              f"{m.overall.graded}/{m.overall.rows}  no_answer {st['no_answer']} "
              f"timeout {st['timeout']} judge_failed {st['judge_failed']}")
    for note in report.settings["notes"]:
        print(f"  note: {note}")
    print(f"  page:   {os.path.join(report.out, 'index.html')}")
    print(f"  tables: {os.path.join(report.out, 'report.md')} (+ tables/*.csv, report.json)")
    print(f"  figures: {os.path.join(report.out, 'figures')}/")
    return 0
