"""What a report shows that depends on the benchmark (its name, published figures, tables,
categories): General365's kind is the default; another benchmark (general365/tasks/) hands
the report its own `ReportKind`, and the rest of the report machinery is shared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from . import published as pub
from . import tables
from .load import ModelRuns
from .summary import CATEGORY_NOTE, ModelSummary


@dataclass(frozen=True)
class ReportKind:
    name: str                   # the benchmark's name, as graded rows carry it
    title: str                  # "General365", shown on the page, figures and report.md
    tables: Callable[[Sequence[ModelSummary]], list[tables.Table]]
    # --published choice -> the paper's models shown beside the runs (with stability rows)
    published: Callable[[str], list] = lambda choice: []
    stability: Callable[[], list] = lambda: []
    published_choices: tuple[str, ...] = ("none",)
    published_source: str | None = None
    categories: bool = False    # a radar figure and the category note
    notes: Sequence[str] = field(default_factory=tuple)   # said at the head of report.md
    # the benchmark's own measures from the graded rows and the --published choice; first
    row_tables: Callable[[Sequence[ModelRuns], str], list[tables.Table]] | None = None


GENERAL365 = ReportKind(
    name="general365", title="General365", tables=tables.all_tables,
    published=pub.published, stability=pub.table3, published_choices=pub.CHOICES,
    published_source=pub.SOURCE, categories=True, notes=(CATEGORY_NOTE,))


def plain_tables(models: Sequence[ModelSummary]) -> list[tables.Table]:
    """The tables any question/answer benchmark has: statuses, answer types, runs, tokens."""
    return [tables.status_table(models), tables.answer_type_table(models),
            tables.stability_table(models), tables.tokens_table(models)]


def shared_tables(models: Sequence[ModelSummary]) -> list[tables.Table]:
    """Statuses, runs and tokens: the tables of a benchmark whose rows have no answer type."""
    return [tables.status_table(models), tables.stability_table(models),
            tables.tokens_table(models)]
