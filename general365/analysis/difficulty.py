"""Difficulty across benchmarks (Figures 8 and 9): accuracy and average output tokens per
model per benchmark, from graded files (`BENCHMARK=GRADED.jsonl`, one or more per
benchmark). Graded files are read and checked by the report's reader (general365.reporting.
load), so every graded file that `general365 report` takes is taken here; a graded file of
another benchmark needs the same fields (id, run, status, correct; output_tokens for
Figure 9).

Accuracy counts `correct` rows over graded rows (ungraded rows are left out, as in the
report); average output tokens is over the rows that record output_tokens.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Sequence

from ..errors import UserError
from .solve_rates import DEFAULT_FAMILY_SPREAD, DEFAULT_TOO_EASY, SolveRates, solve_rates


@dataclass(frozen=True)
class Cell:
    benchmark: str
    model: str
    rows: int
    graded: int
    correct: int
    avg_output_tokens: float | None
    token_rows: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.graded if self.graded else None

    def to_dict(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "model": self.model, "accuracy": self.accuracy,
                "rows": self.rows, "graded": self.graded, "correct": self.correct,
                "avg_output_tokens": self.avg_output_tokens, "token_rows": self.token_rows}


@dataclass
class Difficulty:
    benchmarks: list[str]
    models: list[str]
    cells: list[Cell]
    inputs: dict[str, list[str]]
    solve_rates: SolveRates | None = None   # per problem (difficulty filtering)

    def cell(self, benchmark: str, model: str) -> Cell | None:
        return next((c for c in self.cells if c.benchmark == benchmark and c.model == model),
                    None)

    def to_dict(self) -> dict[str, Any]:
        return {"benchmarks": self.benchmarks, "models": self.models,
                "cells": [c.to_dict() for c in self.cells],
                "inputs": {b: [os.path.abspath(p) for p in ps] for b, ps in self.inputs.items()},
                "solve_rates": self.solve_rates.to_dict() if self.solve_rates else None}


def parse_graded_spec(spec: str) -> tuple[str, str]:
    if "=" not in spec or os.path.exists(spec):
        raise UserError(f"--graded {spec!r}: expected BENCHMARK=GRADED.jsonl (the benchmark's "
                        "name, then the graded file)")
    bench, path = (s.strip() for s in spec.split("=", 1))
    if not bench or not path:
        raise UserError(f"--graded {spec!r}: expected BENCHMARK=GRADED.jsonl with both parts")
    return bench, path


def load_difficulty(specs: Sequence[str], *, too_easy: float = DEFAULT_TOO_EASY,
                    family_spread: float = DEFAULT_FAMILY_SPREAD) -> Difficulty | None:
    if not specs:
        return None
    from ..reporting.load import load_graded
    from ..reporting.stats import tally, tokens

    inputs: dict[str, list[str]] = {}
    for spec in specs:
        bench, path = parse_graded_spec(spec)
        inputs.setdefault(bench, []).append(path)
    cells: list[Cell] = []
    models: list[str] = []
    rows: list[tuple[str, list]] = []
    for bench, paths in inputs.items():
        # One benchmark's files together: the same (model, id, run) twice is refused there.
        loaded = load_graded(paths)
        rows.append((bench, [r for m in loaded for r in m.rows]))
        for m in loaded:
            counts, spent = tally(m.rows), tokens(m.rows)
            cells.append(Cell(benchmark=bench, model=m.name, rows=counts.rows,
                              graded=counts.graded, correct=counts.correct,
                              avg_output_tokens=spent.avg_output, token_rows=spent.with_output))
            if m.name not in models:
                models.append(m.name)
    return Difficulty(benchmarks=list(inputs), models=models, cells=cells, inputs=inputs,
                      solve_rates=solve_rates(rows, too_easy=too_easy,
                                              family_spread=family_spread))
