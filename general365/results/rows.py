"""What the trackers and the Hub results dataset receive from a model's graded rows: the
scalars (metric.flat_scores, with avg@N and pass@N over runs) and the runs' provenance."""

from __future__ import annotations

import json
from typing import Any, Iterable

from .. import __version__
from ..grading.summary import GradeSummary
from ..metric import flat_scores, slug
from ..reporting import stats
from ..reporting.load import ModelRuns
from ..schema import AnswerType, Category, Graded, Status
from ..validators import is_int

# avg@N and pass@N under names every tracker takes (MLflow refuses "@" in a metric name).
RUNS_KEYS = ("n_runs", "avg_at_n", "pass_at_n")


def scalars(rows: Iterable[Graded]) -> dict[str, int | float]:
    """The metric's flat keys for these rows (accuracy, coverage, status/<status>, ...)."""
    summary = GradeSummary()
    for r in rows:
        summary.add(r)
    return flat_scores(summary)


def model_scalars(m: ModelRuns) -> dict[str, int | float]:
    """A model's scalars over all its runs, with RUNS_KEYS (avg_at_n and pass_at_n absent
    where no row is graded)."""
    out: dict[str, int | float] = dict(scalars(m.rows))
    st = stats.stability(m.rows)
    out["n_runs"] = st.n
    for key in ("avg_at_n", "pass_at_n"):
        if getattr(st, key) is not None:
            out[key] = getattr(st, key)
    return out


def metric_columns() -> list[str]:
    """Every key `scalars` can give, in its order: the results dataset has the same columns
    for every model (files written apart read back as one table)."""
    keys = ["accuracy", "coverage", "total", "graded", "correct"]
    keys += [f"status/{s.value}" for s in Status]
    for name in sorted(t.value for t in AnswerType) + sorted(c.value for c in Category):
        keys += [f"{part}/{slug(name)}" for part in ("total", "graded", "correct", "accuracy")]
    return keys + list(RUNS_KEYS)


def as_text(value: Any) -> str | None:
    """A value as a column's text: strings as they are, anything else as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def detail(r: Graded, model: str) -> dict[str, Any]:
    """One graded row as the results dataset's details row (and a tracker's sample)."""
    inline = r.response.inline
    fr = inline.get("float_round")
    return {"model": model, "run": r.run, "id": r.id, "status": r.status.value,
            "correct": r.correct, "method": r.method.value if r.method else None,
            "extracted": r.verdict.extracted, "answer": as_text(inline.get("answer")),
            "answer_type": r.answer_type.value if r.answer_type else None,
            "float_round": fr if is_int(fr) else None,
            "categories": [c.value for c in r.categories],
            "seed_id": r.seed_id, "variant": r.variant, "output_tokens": r.output_tokens,
            "reasoning_tokens": r.reasoning_tokens, "finish_reason": r.finish_reason,
            "judge_model": r.judge_model,
            "sampling": json.dumps(r.response.sampling, sort_keys=True, default=str)
            if r.response.sampling else None,
            "benchmark": r.benchmark or "general365"}


def provenance(m: ModelRuns) -> dict[str, Any]:
    """Where the model's rows came from, flat (from the first run.json, where any): a
    tracker's run parameters, the results dataset's columns."""
    rj = m.run_json[0] if m.run_json else {}
    dataset = rj.get("dataset") if isinstance(rj.get("dataset"), dict) else {}
    prompt = rj.get("prompt") if isinstance(rj.get("prompt"), dict) else {}
    versions = rj.get("versions") if isinstance(rj.get("versions"), dict) else {}
    settings = sorted({r.settings_key for r in m.rows if r.settings_key})
    sampling = rj.get("sampling")
    if sampling is None and settings:
        sampling = [json.loads(s) for s in settings]
    return {
        "model": m.name,
        "backend": as_text(rj.get("backend")),
        "revision": as_text(rj.get("revision")),
        "benchmark": m.benchmark or "general365",
        "sampling": None if sampling is None else as_text(sampling),
        "judge_models": ", ".join(m.judge_models) or None,
        "general365_version": as_text(versions.get("general365")) or __version__,
        "dataset_source": as_text(dataset.get("source")),
        "dataset_split": as_text(dataset.get("split")),
        "dataset_config": as_text(dataset.get("config")),
        "dataset_fingerprint": as_text(dataset.get("fingerprint")),
        "prompt_version": as_text(prompt.get("version")),
        "random_weights": bool(m.random_weights),
    }
