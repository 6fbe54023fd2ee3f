"""A report from graded files only: tables (Markdown, CSV, JSON), figures and the page.
Everything is read and checked before anything is written, in a temporary folder swapped in
whole at the end (folders.py): a bad input leaves nothing, and no reader sees half a report.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .. import folders
from ..fsutil import write_text
from ..errors import OptionError, UserError
from ..validators import option_int
from . import html, plots, stats, summary, tables
from .kinds import GENERAL365, ReportKind
from .load import ModelRuns, load_graded


@dataclass
class Report:
    models: list[summary.ModelSummary]
    tables: list[tables.Table]
    settings: dict
    kind: ReportKind = GENERAL365
    out: str | None = None
    files: list[str] = field(default_factory=list)
    own_tables: list[str] = field(default_factory=list)   # keys of the benchmark's row_tables
    # the graded rows per model, for what is sent on from the report (trackers, the Hub)
    runs: list[ModelRuns] = field(default_factory=list, repr=False)
    sent: list[str] = field(default_factory=list)   # where they were sent, one line each

    def table(self, key: str) -> tables.Table:
        return next(t for t in self.tables if t.key == key)

    def to_dict(self) -> dict:
        d = summary.report_to_dict(self.models, settings=self.settings)
        if self.own_tables:   # a benchmark's own measures, for tools that read report.json
            d["tables"] = {t.key: t.records() for t in self.tables if t.key in self.own_tables}
        return d


def check_report_options(*, published: str, resamples: int, kind: ReportKind = GENERAL365
                         ) -> None:
    if published not in kind.published_choices:
        raise OptionError("published", f"{published!r}: expected one of "
                                       f"{', '.join(kind.published_choices)}"
                                       + ("" if kind.published_choices != ("none",) else
                                          f" ({kind.title} has no published figures here)"))
    option_int("bootstrap", resamples, minimum=100,
               text=f"{resamples}: expected at least 100 resamples")


KindOf = Callable[[str | None], ReportKind]


def build_report(paths: Sequence[str], *, published: str = "full",
                 names: Sequence[str] | None = None,
                 resamples: int = stats.BOOTSTRAP_RESAMPLES,
                 seed: int = stats.BOOTSTRAP_SEED,
                 kind_of: KindOf | None = None) -> Report:
    """Read graded files and compute every table (no files written). `kind_of` gives the
    report kind of the benchmark the rows name."""
    check_report_options(published=published, resamples=resamples)
    if not paths:
        raise UserError("no graded files given; expected one or more GRADED.jsonl")
    runs = load_graded(paths, names)
    kind = _one_kind(runs, kind_of)
    if kind is not GENERAL365:
        if published == "full" and "full" not in kind.published_choices:
            published = "none"   # the default, where none exist
        check_report_options(published=published, resamples=resamples, kind=kind)
    models = [summary.summarize_runs(m, resamples=resamples, seed=seed) for m in runs]
    stab = {s.name: s for s in kind.stability()} if published != "none" else {}
    models += [summary.summarize_published(p, stab.get(p.name)) for p in kind.published(published)]
    settings = {"published": published, "bootstrap_resamples": resamples,
                "bootstrap_seed": seed, "bootstrap_level": stats.BOOTSTRAP_LEVEL,
                "inputs": [os.path.abspath(p) for p in paths],
                "published_source": kind.published_source if published != "none" else None,
                "notes": _comparison_notes(runs, published)}
    if kind is not GENERAL365:
        settings["benchmark"] = kind.name
    own = kind.row_tables(runs, published) if kind.row_tables is not None else []
    return Report(models=models, tables=own + kind.tables(models), settings=settings, kind=kind,
                  own_tables=[t.key for t in own], runs=runs)


def _one_kind(runs: list[ModelRuns], kind_of: KindOf | None) -> ReportKind:
    """One benchmark per report (`general365 analyze` compares benchmarks)."""
    names = sorted({r.benchmark or "general365" for m in runs for r in m.rows})
    if len(names) > 1:
        raise UserError(f"the graded files are of different benchmarks ({', '.join(names)}); "
                        "report each benchmark on its own (general365 analyze difficulty "
                        "compares benchmarks)")
    name = names[0] if names else "general365"
    if name == "general365":
        return GENERAL365
    if kind_of is None:
        raise UserError(f"the graded rows are of benchmark {name!r}; report them through "
                        "general365.report(...) or `general365 report`, which know it")
    return kind_of(name)


def _comparison_notes(runs, published: str) -> list[str]:
    """What the reader must know before comparing the rows: models graded on different
    problems, and the paper's figures on another part of the benchmark than the runs."""
    notes = []
    sets = [(m.name, frozenset(r.id for r in m.rows)) for m in runs]
    if len({ids for _, ids in sets}) > 1:
        # the report still ranks them, as asked, and says so on every output
        common = frozenset.intersection(*(ids for _, ids in sets))
        shown = ", ".join(f"{name} {len(ids)}" for name, ids in sets[:6])
        if len(sets) > 6:
            shown += f", and {len(sets) - 6} more"
        notes.append(f"the models were graded on different problem sets ({shown} problems; "
                     f"{len(common)} in common): their accuracies are not directly "
                     "comparable; grade every model on the same problems (e.g. generate "
                     "--ids) to rank them")
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


TMP_BASE = "general365-report"


def write_report(report: Report, out: str) -> Report:
    """Write the report under `out`, all or nothing (folders.write_folder): report files
    there are replaced, other files are left alone."""
    report.out, report.files = folders.write_folder(
        out, lambda tmp: _build_files(report, tmp), base=TMP_BASE, what="the report",
        own=("tables", "figures", "tensorboard", "hub"))  # the last two: report_to, push_to_hub
    return report


def _build_files(report: Report, tmp: str) -> None:
    os.makedirs(os.path.join(tmp, "tables"))
    for t in [*report.tables, tables.leaderboard_table(report.models)]:
        write_text(os.path.join(tmp, "tables", t.key + ".csv"), tables.to_csv(t))
    kind = report.kind
    md = [f"# {kind.title} report", "",
          f"Published figures: {report.settings['published']}. " + " ".join(kind.notes), ""]
    md += [f"> Note: {n}" for n in report.settings.get("notes", [])]
    md += [tables.to_markdown(t) for t in report.tables]
    write_text(os.path.join(tmp, "report.md"), "\n".join(md))
    write_text(os.path.join(tmp, "report.json"),
               json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n")
    figures = plots.all_figures(report.models, os.path.join(tmp, "figures"), title=kind.title,
                                radar=kind.categories)
    write_text(os.path.join(tmp, "index.html"),
               html.render_page(report.models, report.tables, figures,
                                settings=report.settings, title=kind.title))
