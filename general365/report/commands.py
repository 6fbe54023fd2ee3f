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
from dataclasses import dataclass, field
from typing import Sequence

from ..errors import UserError
from .. import fsutil
from ..extras import require
from . import folder, html, plots, published as pub, stats, summary, tables
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
    """What the reader must know before comparing the rows: models graded on different
    problems, and the paper's figures on another part of the benchmark than the runs
    (run.json records the split a run used)."""
    notes = []
    problem_sets = _problem_set_note(runs)
    if problem_sets:
        notes.append(problem_sets)
    datasets = [rj["dataset"] for m in runs for rj in m.run_json
                if isinstance(rj.get("dataset"), dict)]
    splits = {d.get("split") for d in datasets}
    if published != "none" and any(d.get("source") == "sample" for d in datasets):
        notes.append("some runs are on the bundled sample (problems written for this toolkit, "
                     "not General365's own): their scores are not comparable with the paper's "
                     "figures")
    elif published == "full" and "public" in splits:
        notes.append("some runs are on the public split while the paper's figures shown are "
                     "on the full benchmark; --published public compares like with like")
    elif published == "public" and "test" in splits:
        notes.append("some runs are on the full test split while the paper's figures shown "
                     "are on the public subset; --published full compares like with like")
    return notes


def _problem_set_note(runs) -> str | None:
    """A warning when the models were not graded on the same problems: a ranking of
    accuracies over different problem sets compares the sets as much as the models. (The
    report still ranks them, as asked; it says so on every output: summary, page, tables.)"""
    sets = [(m.name, frozenset(r.id for r in m.rows)) for m in runs]
    if len({ids for _, ids in sets}) <= 1:
        return None
    common = frozenset.intersection(*(ids for _, ids in sets))
    shown = ", ".join(f"{name} {len(ids)}" for name, ids in sets[:6])
    if len(sets) > 6:
        shown += f", and {len(sets) - 6} more"
    return (f"the models were graded on different problem sets ({shown} problems; "
            f"{len(common)} in common): their accuracies are not directly comparable; "
            "grade every model on the same problems (e.g. generate --ids) to rank them")


TMP_BASE = "general365-report"


def write_report(report: Report, out: str) -> Report:
    """Write the report under `out` (created if needed), all or nothing: it is built in a
    temporary folder beside `out`, then swapped in whole (see folder.py). Existing report
    files there are replaced, other files are left alone. Temporaries that a killed report
    left are removed first."""
    out = os.path.abspath(out)
    if os.path.islink(out) and os.path.isdir(out):
        out = os.path.realpath(out)   # the folder the link names is the one replaced
    if os.path.lexists(out) and not os.path.isdir(out):
        raise UserError(f"--out {out}: exists and is not a folder; expected a folder")
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    fsutil.recover_dir(out)
    fsutil.sweep(parent, fsutil.temp_pattern(TMP_BASE))
    tmp = os.path.join(parent, fsutil.temp_name(TMP_BASE))
    os.mkdir(tmp)
    lock = fsutil.hold_lock(tmp)   # while held, no other run takes it for a leftover
    try:
        try:
            _build_files(report, tmp)
        except OSError as exc:   # a full disk: the OS error of a write names no file
            raise UserError(f"{out}: cannot write the report ({_reason(exc)}); the folder "
                            "is as it was") from None
        written = folder.install(tmp, out)
    finally:
        fsutil.release(lock)
        if os.path.lexists(tmp):
            fsutil.remove(tmp)
    report.out, report.files = out, sorted(written)
    return report


def _reason(exc: OSError) -> str:
    why = exc.strerror or str(exc)
    return f"{why}: {exc.filename}" if exc.filename else why


def _build_files(report: Report, tmp: str) -> None:
    os.makedirs(os.path.join(tmp, "tables"))
    for t in report.tables:
        _write(os.path.join(tmp, "tables", t.key + ".csv"), tables.to_csv(t))
    board = tables.leaderboard_table(report.models)
    _write(os.path.join(tmp, "tables", board.key + ".csv"), tables.to_csv(board))
    md = ["# General365 report", "",
          f"Published figures: {report.settings['published']}. " + summary.CATEGORY_NOTE, ""]
    md += [f"> Note: {n}" for n in report.settings.get("notes", [])]
    md += [tables.to_markdown(t) for t in report.tables]
    _write(os.path.join(tmp, "report.md"), "\n".join(md))
    _write(os.path.join(tmp, "report.json"),
           json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n")
    figures = plots.all_figures(report.models, os.path.join(tmp, "figures"))
    _write(os.path.join(tmp, "index.html"),
           html.render_page(report.models, report.tables, figures, settings=report.settings))


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
