"""The paper's own numbers (Tables 1, 2 and 3), bundled as CSV in general365/data/published/
with a SOURCE.md note, read into typed records so that a user's runs sit beside them."""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field

from ..schema import Category

PUBLISHED_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             "data", "published")
SOURCE = "General365 paper: Table 1 (full benchmark), Table 2 (public subset), Table 3 (stability)"
CHOICES = ("full", "public", "none")


@dataclass(frozen=True)
class PublishedModel:
    """One model's published accuracies (fractions, 0..1) on the full benchmark or on the
    public subset. The public subset has Overall only."""

    name: str
    group: str                       # reasoning | chat (the paper's Table 1 grouping)
    benchmark: str                   # full | public
    overall: float
    categories: dict[str, float] = field(default_factory=dict)
    paper_rank: int | None = None    # row position in Table 1


@dataclass(frozen=True)
class PublishedStability:
    name: str
    runs: tuple[float, ...]          # fractions
    delta: float                     # as printed (fraction)


def read_csv(name: str) -> list[dict[str, str]]:
    with open(os.path.join(PUBLISHED_DIR, name), encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _pct(text: str) -> float:
    return float(text) / 100.0   # printed with one decimal: shown as percent, as printed


def table1() -> list[PublishedModel]:
    """Table 1: 26 models, 8 categories and Overall, full benchmark, in the paper's order."""
    return [PublishedModel(name=row["model"], group=row["group"], benchmark="full",
                           overall=_pct(row["Overall"]),
                           categories={c.value: _pct(row[c.value]) for c in Category},
                           paper_rank=int(row["rank"]))
            for row in read_csv("table1_full.csv")]


def table2() -> list[PublishedModel]:
    """Table 2's public-subset column (25 models), grouped as in Table 1."""
    groups = {m.name: m.group for m in table1()}
    return [PublishedModel(name=r["model"], group=groups.get(r["model"], "other"),
                           benchmark="public", overall=_pct(r["public"]))
            for r in read_csv("table2_public.csv")]


def table3() -> list[PublishedStability]:
    return [PublishedStability(name=r["model"],
                               runs=tuple(_pct(r[f"rep{i}"]) for i in range(1, 5)),
                               delta=_pct(r["delta"]))
            for r in read_csv("table3_stability.csv")]


def published(which: str) -> list[PublishedModel]:
    return {"full": table1, "public": table2}.get(which, list)()
