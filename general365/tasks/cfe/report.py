"""CFE-Bench's report tables beside the paper's published figures (docs/cfe-bench.md,
"Report"); `CFE_REPORT`, the seam's report kind, puts them before the shared tables, which
read the same rows (a CFE row's `status` is its question's).
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from typing import Any, Sequence

from ...reporting.kinds import ReportKind, shared_tables
from ...reporting.tables import INT, PCT, Column, Table, per_run, per_run_columns
from ...schema import Status
from .graded_rows import (CFEModel, accuracy, by_key, from_model_runs, run_stats,
                          variable_tallies)

PUBLISHED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "published")
SOURCE = "CFE-Bench paper (arXiv 2602.19517): Table 2 (text subset), Table 3 (text + multimodal)"
SUBSETS = (("text", "Text"), ("mm", "Multimodal"), ("all", "Text + Multimodal"))


@dataclass(frozen=True)
class PublishedRow:
    model: str
    subset: str                      # text | mm | all
    questions: int
    variable_accuracy: float         # fractions
    question_accuracy: float
    table: str


def published() -> list[PublishedRow]:
    """The paper's figures shipped in published/ (see its SOURCE.md)."""
    out = []
    for name, table in (("table2_text.csv", "Table 2"), ("table3_combined.csv", "Table 3")):
        with open(os.path.join(PUBLISHED_DIR, name), encoding="utf-8", newline="") as f:
            for r in csv.DictReader(f):
                out.append(PublishedRow(r["model"], r["subset"], int(r["questions"]),
                                        float(r["variable_accuracy"]) / 100,
                                        float(r["question_accuracy"]) / 100, table))
    return out


def accuracy_table(models: Sequence[CFEModel], *, with_published: bool = True) -> Table:
    cols = [Column("Model"), Column("Source"), Column("Subset"), Column("Questions", INT),
            Column("Variable Accuracy", PCT), Column("Question Accuracy", PCT),
            Column("Variable coverage", PCT)]
    t = Table("cfe_accuracy", "CFE-Bench: Variable and Question Accuracy", cols,
              note="Variable Accuracy: mean over questions of the share of their variables "
                   "that are right; Question Accuracy: share of questions with every variable "
                   "right (the paper's Table 2). Several runs pool every (question, run) row. "
                   "Questions: rows (question x run). Question Accuracy leaves out a question "
                   "that is ungraded (its graded variables right, some not graded: whether all "
                   "are right is not known); Variable Accuracy one with no graded variable. "
                   "Variable coverage: graded / all variables (policy rule leaves `other` "
                   "answers in words ungraded). Paper rows: " + SOURCE + ".")
    for subset, title in SUBSETS:
        rows = []
        for m in models:
            sub = m.rows if subset == "all" else [r for r in m.rows if r.modality == subset]
            if not sub:
                continue
            a = accuracy(sub)
            rows.append([m.name, "your run", title, a.questions, a.variable_accuracy,
                         a.question_accuracy, a.variable_coverage])
        if with_published:
            rows += [[p.model, f"paper ({p.table})", title, p.questions, p.variable_accuracy,
                      p.question_accuracy, None] for p in published() if p.subset == subset]
        rows.sort(key=lambda r: (-(r[5] if r[5] is not None else -1), r[0]))
        t.rows.extend(rows)
        t.groups.extend([f"{title} subset" if subset != "all" else title] * len(rows))
    return t


def runs_table(models: Sequence[CFEModel]) -> Table:
    n = max([run_stats(m.rows).runs for m in models] + [1])
    cols = per_run_columns([Column("Model"), Column("Runs", INT)], n, " QA",
                           ["pass@1", "pass@N", "avg@N", "Variable avg@N"])
    t = Table("cfe_runs", "CFE-Bench over runs", cols,
              note="Run k QA: Question Accuracy of run k. pass@k: unbiased estimate, over "
                   "questions, that at least one of k runs is right; avg@N: mean over "
                   "questions of the share of runs right; Variable avg@N: mean over "
                   "questions of their mean Variable score.")
    for m in models:
        s = run_stats(m.rows)
        accs = [a.question_accuracy for a in s.per_run.values()]
        t.rows.append([m.name, s.runs] + per_run(accs, n)
                      + [s.pass_at.get(1), s.pass_at.get(s.runs), s.avg_at_n,
                         s.variable_avg_at_n])
    return t


def subjects_table(models: Sequence[CFEModel]) -> Table | None:
    if not any(r.subject for m in models for r in m.rows):
        return None
    cols = [Column("Model"), Column("Subject"), Column("Questions", INT),
            Column("Variable Accuracy", PCT), Column("Question Accuracy", PCT)]
    t = Table("cfe_subjects", "CFE-Bench by subject", cols,
              note="Rows with no subject are left out.")
    for m in models:
        for subject, a in by_key(m.rows, lambda r: r.subject).items():
            t.rows.append([m.name, subject, a.questions, a.variable_accuracy,
                           a.question_accuracy])
    return t


def variables_table(models: Sequence[CFEModel]) -> Table:
    statuses = [s.value for s in Status]
    cols = ([Column("Model"), Column("By"), Column("Value"), Column("Variables", INT),
             Column("Accuracy", PCT)] + [Column(s, INT) for s in statuses])
    t = Table("cfe_variables", "CFE-Bench variables: statuses by type and by method", cols,
              note="Accuracy: correct / graded variables (ungraded left out). Method: what "
                   "decided the variable (rule, judge, or none: not stated or ungraded).")
    for m in models:
        for by, key in (("type", lambda v: v.type), ("method", lambda v: v.method or "none")):
            for value, tl in variable_tallies(m.rows, key).items():
                t.rows.append([m.name, by, value, tl.variables, tl.accuracy]
                              + [tl.counts.get(s, 0) for s in statuses])
    return t


def report_tables(models: Sequence[Any], *, with_published: bool = True) -> list[Table]:
    """CFE-Bench's tables for models (CFEModel, or the shared reader's ModelRuns)."""
    cfe = (list(models) if all(isinstance(m, CFEModel) for m in models)
           else from_model_runs(models))
    tables = [accuracy_table(cfe, with_published=with_published), runs_table(cfe),
              subjects_table(cfe), variables_table(cfe)]
    return [t for t in tables if t is not None]


CFE_REPORT = ReportKind(
    name="cfe", title="CFE-Bench", tables=shared_tables,
    row_tables=lambda runs, published: report_tables(runs, with_published=published != "none"),
    published_choices=("full", "none"), published_source=SOURCE,
    notes=("Accuracy in the shared tables and on the leaderboard is Question Accuracy (a "
           "question is right when all its variables are); Variable Accuracy is in "
           "cfe_accuracy.", "--published full (the default) shows the paper's Tables 2 and 3 "
           "beside the runs; none leaves them out."))
