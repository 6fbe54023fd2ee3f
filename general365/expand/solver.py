"""The optional solver check (docs/expand.md, "The solver check"): each gradable candidate
answered k times and graded against its own gold, as an ordinary `general365.generate`
and `grade_file` in `DIR/solver/` (each candidate its own seed).
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import UserError
from ..jsonl import iter_jsonl, write
from ..runners.session import GenerateResult
from ..validators import is_int, loads
from .candidates import ExpansionCandidate, Solver
from .checks import BLOCKING

SOLVER_DIR = "solver"


@dataclass
class SolverResult:
    generation: GenerateResult | None
    graded: str | None
    agreement: dict[str, Solver]
    skipped: int   # candidates with a blocking flag: not asked


def gradable(c: ExpansionCandidate) -> bool:
    return not set(c.flag_names) & set(BLOCKING)


def solver_problem(c: ExpansionCandidate) -> dict[str, Any]:
    """The candidate as a General365 row of its own (its own seed)."""
    return {"id": c.id, "seed_id": c.id, "variant": 0, "question": c.get("question"),
            "answer": c.get("answer"), "answer_type": c.get("answer_type"),
            "float_round": c.get("float_round"), "categories": list(c.categories),
            "reasoning": c.get("reasoning") or "",
            "source": f"general365 expand: candidate {c.candidate} of {c.seed_id}"}


def read_agreement(graded: str, model: str, k: int) -> dict[str, Solver]:
    """Per candidate id: how many of its graded answers were correct."""
    out: dict[str, Solver] = defaultdict(lambda: Solver(model=model, k=k))
    for _line, row in iter_jsonl(graded):
        s = out[str(row["id"])]
        status = row.get("status")
        if status == "ungraded":
            s.ungraded_reason = row.get("detail") or "not graded (a text answer needs a judge)"
            continue
        if status == "judge_failed":
            s.ungraded_reason = "the judge failed; rerun to retry it"
            continue
        s.graded += 1
        s.correct += bool(row.get("correct"))
    return dict(out)


def run_solver(folder: str, cands: Sequence[ExpansionCandidate], *, model: str, k: int,
               generate_options: Mapping[str, Any], judge: Any = None,
               progress: bool = True) -> SolverResult:
    """Answer every gradable candidate k times, grade, and count agreement per candidate."""
    from .. import api

    out = os.path.join(folder, SOLVER_DIR)
    ready = [c for c in cands if gradable(c)]
    skipped = len(cands) - len(ready)
    if not ready:
        return SolverResult(None, None, {}, skipped)
    problems_path = os.path.join(out, "problems.jsonl")
    os.makedirs(out, exist_ok=True)
    write(problems_path, [solver_problem(c) for c in ready])
    gen = api.generate(model, out=out, dataset=problems_path, runs=k, progress=progress,
                       **generate_options)
    responses = os.path.join(out, "responses.jsonl")
    graded = os.path.join(out, "graded.jsonl")
    if not os.path.isfile(responses) or os.path.getsize(responses) == 0:
        return SolverResult(gen, None, {}, skipped)
    try:
        api.grade_file(responses, graded, judge=judge, progress=progress)
    except UserError as exc:
        raise UserError(f"solver check: {exc}") from None
    wanted = {c.id for c in ready}
    agreement = {i: s for i, s in read_agreement(graded, model, k).items() if i in wanted}
    return SolverResult(gen, graded, agreement, skipped)


def previous_agreement(folder: str) -> dict[str, Solver]:
    """The agreement an earlier solver check left in `DIR/solver/` ({} if none), so that a
    later `expand` without --solver-model keeps it in candidates.jsonl."""
    graded = os.path.join(folder, SOLVER_DIR, "graded.jsonl")
    if not os.path.isfile(graded):
        return {}
    try:
        run = loads(Path(folder, SOLVER_DIR, "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):   # StrictJSONError and UnicodeDecodeError are ValueErrors
        run = {}
    run = run if isinstance(run, dict) else {}
    runs = run.get("runs")   # 1e999, NaN or "x" would escape int() as a bare error
    return read_agreement(graded, str(run.get("model") or "solver"),
                          runs if is_int(runs) and runs > 0 else 0)
