"""The report's tables as typed values (raw cells: fractions, counts, text, None, so that
tests check values), and their Markdown and CSV forms, which decide the look.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..schema import Category
from .stats import RowCounts
from .summary import CATEGORY_NOTE, GROUP_TITLES, ModelSummary, leaderboard_order, ranked

PCT, INT, TEXT, NUM = "pct", "int", "text", "num"
DEC = "dec"   # a small mean (steps, lengths): two decimals on the page, three in CSV
SIM = "sim"   # a similarity (the analysis's tables): three decimals everywhere
STATUS_COLUMNS = ("no_answer", "timeout", "judge_failed", "ungraded")


@dataclass(frozen=True)
class Column:
    name: str
    kind: str = TEXT


STATUS_COLS = [Column(s, INT) for s in STATUS_COLUMNS]


@dataclass
class Table:
    key: str                      # file stem: tables/<key>.csv
    title: str
    columns: list[Column]
    rows: list[list[Any]] = field(default_factory=list)
    groups: list[str | None] = field(default_factory=list)  # a group title per row, or None
    note: str = ""

    def column(self, name: str) -> list[Any]:
        i = [c.name for c in self.columns].index(name)
        return [r[i] for r in self.rows]

    def records(self) -> list[dict[str, Any]]:
        names = [c.name for c in self.columns]
        return [dict(zip(names, r)) for r in self.rows]

    def cell(self, row_label: str, column: str, *, label_column: int = 0) -> Any:
        """The cell in the first row whose first column equals `row_label`."""
        i = [c.name for c in self.columns].index(column)
        for r in self.rows:
            if r[label_column] == row_label:
                return r[i]
        raise KeyError(row_label)


def fmt(value: Any, kind: str, *, digits: int) -> str:
    if value is None:
        return ""
    if kind == PCT:
        return f"{100.0 * value:.{digits}f}"
    if kind == NUM:
        return f"{value:.{max(digits - 1, 0)}f}"
    if kind == DEC:
        return f"{value:.{digits + 1}f}"
    if kind == SIM:
        return f"{value:.3f}"
    return str(value)


def md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(t: Table) -> str:
    out = [f"### {t.title}", ""]
    if t.note:
        out += [t.note, ""]
    out.append("| " + " | ".join(md_cell(c.name) for c in t.columns) + " |")
    out.append("|" + "|".join("---" if c.kind == TEXT else "---:" for c in t.columns) + "|")
    last_group = None
    for i, row in enumerate(t.rows):
        group = t.groups[i] if i < len(t.groups) else None
        if group and group != last_group:
            out.append("| **" + md_cell(group) + "** |" + " |" * (len(t.columns) - 1))
            last_group = group
        out.append("| " + " | ".join(md_cell(fmt(v, c.kind, digits=1))
                                     for v, c in zip(row, t.columns)) + " |")
    return "\n".join(out) + "\n"


def to_csv(t: Table) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    headers = [c.name + (" (%)" if c.kind == PCT else "") for c in t.columns]
    has_groups = any(t.groups)
    w.writerow((["group"] if has_groups else []) + headers)
    for i, row in enumerate(t.rows):
        cells = [fmt(v, c.kind, digits=2) for v, c in zip(row, t.columns)]
        w.writerow(([t.groups[i] or ""] if has_groups else []) + cells)
    return buf.getvalue()


def _source(s: ModelSummary) -> str:
    return f"paper ({s.benchmark})" if s.kind == "published" else "your run"


def _statuses(t: RowCounts | None) -> list[Any]:
    return [None if t is None else getattr(t, s) for s in STATUS_COLUMNS]


def _ci(s: ModelSummary) -> list[Any]:
    return [s.interval.low, s.interval.high] if s.interval else [None, None]


def categories_table(models: Sequence[ModelSummary]) -> Table:
    """The paper's Table 1: the 8 categories and Overall, grouped, ranked by Overall."""
    cols = ([Column("Model"), Column("Source")] + [Column(c.value, PCT) for c in Category]
            + [Column("Overall", PCT), Column("95% CI low", PCT), Column("95% CI high", PCT),
               Column("Graded", INT)] + STATUS_COLS + [Column("Coverage", PCT)])
    t = Table("table1_categories", "Table 1: accuracy by challenge category", cols,
              note=CATEGORY_NOTE + " 95% CI: percentile bootstrap over seed families "
                   "(a seed and its variants resampled together), seeded. Published rows "
                   "are the paper's figures (full benchmark or public subset).")
    for s in ranked(models):
        t.rows.append([s.name, _source(s)] + [s.categories.get(c.value) for c in Category]
                      + [s.accuracy, *_ci(s), s.overall.graded if s.overall else None]
                      + _statuses(s.overall) + [s.overall.coverage if s.overall else None])
        t.groups.append(GROUP_TITLES.get(s.group, s.group))
    return t


def leaderboard_table(models: Sequence[ModelSummary]) -> Table:
    """One ranking over all models: the leaderboard page's sortable table."""
    cols = ([Column("Rank", INT), Column("Model"), Column("Source"), Column("Group"),
             Column("Overall", PCT), Column("95% CI low", PCT), Column("95% CI high", PCT)]
            + [Column(c.value, PCT) for c in Category]
            + [Column("Avg output tokens", NUM), Column("Truncation", PCT),
               Column("Graded", INT)] + STATUS_COLS)
    t = Table("leaderboard", "Leaderboard", cols)
    for i, s in enumerate(leaderboard_order(models), start=1):
        tk = s.tokens
        t.rows.append([i, s.name, _source(s), s.group, s.accuracy, *_ci(s)]
                      + [s.categories.get(c.value) for c in Category]
                      + [tk.avg_output if tk else None, tk.truncation_rate if tk else None,
                         s.overall.graded if s.overall else None] + _statuses(s.overall))
    return t


def _slice_table(key: str, title: str, label: str, models: Sequence[ModelSummary],
                 attr: str, note: str = "") -> Table:
    cols = ([Column("Model"), Column(label), Column("Accuracy", PCT), Column("Correct", INT),
             Column("Graded", INT)] + STATUS_COLS)
    t = Table(key, title, cols, note=note)
    for s in ranked(m for m in models if m.kind == "run"):
        for name, tl in getattr(s, attr).items():
            t.rows.append([s.name, name, tl.accuracy, tl.correct, tl.graded] + _statuses(tl))
    return t


def answer_type_table(models: Sequence[ModelSummary]) -> Table:
    return _slice_table("answer_types", "Accuracy by answer type", "Answer type", models,
                        "answer_types")


def seed_variant_table(models: Sequence[ModelSummary]) -> Table:
    return _slice_table("seed_variant", "Seeds versus variants", "Subset", models,
                        "seed_variant", note="A seed is variant 0; its variants are the "
                                             "rewritten problems that share its seed_id.")


def per_run_columns(lead: list[Column], n: int, each: str, tail: Sequence[str]) -> list[Column]:
    """`lead`, a percentage column for each of `n` runs ("Run 1" + `each`, ...), then `tail`'s."""
    return (lead + [Column(f"Run {i + 1}{each}", PCT) for i in range(n)]
            + [Column(name, PCT) for name in tail])


def per_run(values: list[Any], n: int) -> list[Any]:
    """A value a run, padded with blanks to `n` runs."""
    return values + [None] * (n - len(values))


def stability_table(models: Sequence[ModelSummary]) -> Table:
    """The paper's Table 3, with avg@N and pass@N for the user's runs."""
    n = max([s.stability.n for s in models if s.stability] +
            [len(s.published_runs.runs) for s in models if s.published_runs] + [1])
    cols = per_run_columns([Column("Model"), Column("Source"), Column("Runs", INT)], n, "",
                           ["Mean", "Delta (max-min)", "avg@N", "pass@N"])
    t = Table("stability", "Run-to-run stability", cols,
              note="Delta = max - min of the runs' accuracies (the paper's Appendix D). "
                   "avg@N: mean over problems of the share of runs correct; pass@N: share "
                   "of problems correct in at least one of the N runs. Paper rows show "
                   "their printed Delta.")
    for s in ranked(models):
        if s.stability is not None:
            st = s.stability
            accs = [tl.accuracy for _, tl in sorted(st.runs.items())]
            t.rows.append([s.name, _source(s), st.n] + per_run(accs, n)
                          + [st.mean, st.delta, st.avg_at_n, st.pass_at_n])
        elif s.published_runs is not None:
            pr = s.published_runs
            accs = list(pr.runs)
            t.rows.append([s.name, "paper (full, Table 3)", len(accs)] + per_run(accs, n)
                          + [sum(accs) / len(accs), pr.delta, None, None])
    return t


def consistency_table(models: Sequence[ModelSummary]) -> Table:
    cols = [Column("Model"), Column("Families", INT), Column("Runs", INT),
            Column("All correct", PCT), Column("All wrong", PCT), Column("Mixed", PCT)]
    t = Table("consistency", "Consistency within seed families", cols,
              note="Share of seed families whose graded members (the seed and its variants) "
                   "are all correct, all wrong, or mixed; computed in each run over families "
                   "with at least two graded members, then averaged over runs. Families: "
                   "the number counted, summed over runs.")
    for s in ranked(m for m in models if m.consistency is not None):
        c = s.consistency
        t.rows.append([s.name, c.families, c.runs, c.all_correct, c.all_wrong, c.mixed])
    return t


def tokens_table(models: Sequence[ModelSummary]) -> Table:
    cols = [Column("Model"), Column("Overall", PCT), Column("Avg output tokens", NUM),
            Column("Avg reasoning tokens", NUM), Column("Truncated", INT),
            Column("Truncation rate", PCT), Column("Rows with tokens", INT), Column("Rows", INT)]
    t = Table("tokens", "Output length and truncation", cols,
              note="Truncation rate: share of rows with finish_reason \"length\" among rows "
                   "that report a finish_reason. Averages are over rows that report them.")
    for s in ranked(m for m in models if m.tokens is not None):
        k = s.tokens
        t.rows.append([s.name, s.accuracy, k.avg_output, k.avg_reasoning, k.truncated,
                       k.truncation_rate, k.with_output, k.rows])
    return t


def status_table(models: Sequence[ModelSummary]) -> Table:
    cols = ([Column("Model"), Column("Rows", INT), Column("Graded", INT),
             Column("Coverage", PCT), Column("Accuracy", PCT), Column("correct", INT),
             Column("incorrect", INT)] + STATUS_COLS)
    t = Table("statuses", "Grading statuses", cols,
              note="Accuracy counts only `correct` as right, over graded rows; `ungraded` "
                   "rows have no verdict and are left out (Coverage = graded / rows).")
    for s in ranked(m for m in models if m.overall is not None):
        o = s.overall
        t.rows.append([s.name, o.rows, o.graded, o.coverage, o.accuracy, o.correct,
                       o.incorrect] + _statuses(o))
    return t


def all_tables(models: Sequence[ModelSummary]) -> list[Table]:
    return [categories_table(models), status_table(models), answer_type_table(models),
            seed_variant_table(models), stability_table(models), consistency_table(models),
            tokens_table(models)]
