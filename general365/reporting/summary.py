"""One summary per model (a user's runs or a published row), and the report's JSON form
(`report.json`, versioned by REPORT_SCHEMA/REPORT_VERSION, documented in docs/reports.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Sequence

from .. import __version__
from ..schema import AnswerType, Category, Status
from . import stats
from .load import ModelRuns
from .published import SOURCE, PublishedModel, PublishedStability

REPORT_SCHEMA = "general365.report"
REPORT_VERSION = 1
GROUP_ORDER = ("reasoning", "chat", "other", "demo")
GROUP_TITLES = {"reasoning": "Reasoning Models", "chat": "Chat Models",
                "other": "Other Models (no reasoning/chat preset recorded)",
                "demo": "Demo Models (random weights: their scores mean nothing)"}
CATEGORY_NOTE = ("A problem with several categories counts in each of them (the paper's "
                 "convention), so category columns do not add up to Overall.")


@dataclass
class ModelSummary:
    name: str
    kind: str                                   # run | published
    group: str                                  # reasoning | chat | other
    accuracy: float | None
    categories: dict[str, float | None]
    benchmark: str | None = None                # published: full | public
    overall: stats.RowCounts | None = None          # runs only, from here on
    interval: stats.Interval | None = None
    category_tallies: dict[str, stats.RowCounts] = field(default_factory=dict)
    answer_types: dict[str, stats.RowCounts] = field(default_factory=dict)
    seed_variant: dict[str, stats.RowCounts] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    tokens: stats.Tokens | None = None
    stability: stats.Stability | None = None
    consistency: stats.Consistency | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    published_runs: PublishedStability | None = None

    @property
    def label(self) -> str:
        """The name as shown in tables and figures; published rows are marked."""
        return f"{self.name} [paper, {self.benchmark}]" if self.kind == "published" else self.name


def summarize_runs(m: ModelRuns, *, resamples: int = stats.BOOTSTRAP_RESAMPLES,
                   seed: int = stats.BOOTSTRAP_SEED) -> ModelSummary:
    rows = m.rows
    overall = stats.tally(rows)
    cat_t = {c.value: stats.tally(r for r in rows if c in r.categories) for c in Category}
    types = {t.value: stats.tally(r for r in rows if r.answer_type is t) for t in AnswerType}
    types["(unknown)"] = stats.tally(r for r in rows if r.answer_type is None)
    return ModelSummary(
        name=m.name, kind="run", group=m.group, accuracy=overall.accuracy,
        categories={k: t.accuracy for k, t in cat_t.items()},
        overall=overall,
        interval=stats.bootstrap_interval(rows, resamples=resamples, seed=seed),
        category_tallies=cat_t,
        answer_types={k: t for k, t in types.items() if t.rows},
        seed_variant={"seed": stats.tally(r for r in rows if r.is_seed),
                      "variant": stats.tally(r for r in rows if not r.is_seed)},
        statuses={s.value: getattr(overall, s.value) for s in Status},
        tokens=stats.tokens(rows),
        stability=stats.stability(rows),
        consistency=stats.consistency(rows),
        provenance=provenance(m),
    )


def summarize_published(p: PublishedModel,
                        runs: PublishedStability | None = None) -> ModelSummary:
    return ModelSummary(name=p.name, kind="published", group=p.group, accuracy=p.overall,
                        categories=dict(p.categories), benchmark=p.benchmark,
                        provenance={"source": SOURCE, "benchmark": p.benchmark},
                        published_runs=runs)


def provenance(m: ModelRuns) -> dict[str, Any]:
    """What a reader needs to trust a run: model, backend, settings, dataset, judge; from
    run.json where present, else from the rows."""
    out: dict[str, Any] = {"model": m.name, "files": list(m.files),
                           "runs": m.runs, "rows": len(m.rows)}
    settings = sorted({r.settings_key for r in m.rows if r.settings_key})
    if settings:
        out["sampling"] = [json.loads(s) for s in settings]
    if m.judge_models:
        out["judge_models"] = m.judge_models
    methods = sorted({r.method for r in m.rows if r.method})
    if methods:
        out["grading_methods"] = methods
    for rj in m.run_json:
        # The run store's keys (runners/provenance.py); anything else stays in run_json.
        for key in ("backend", "revision", "dataset", "sampling", "prompt", "runs",
                    "versions", "started", "ended", "status", "judge"):
            value = rj.get(key)
            if value is not None:
                out.setdefault(f"run.json {key}", value if isinstance(value, str) else
                               json.dumps(value, sort_keys=True, ensure_ascii=False, default=str))
    # say plainly what is not known rather than leave it out
    missing = "not recorded (no run.json beside the graded file)"
    out.setdefault("run.json backend", missing)
    out.setdefault("run.json dataset", missing)
    out.setdefault("judge_models", "none (no row was judged by an LLM)")
    if m.run_json:
        out["run_json"] = m.run_json
    return out


def _rank_key(s: ModelSummary) -> tuple:
    return (-(s.accuracy if s.accuracy is not None else -1.0), s.name, s.kind)


def ranked(models: Sequence[ModelSummary]) -> list[ModelSummary]:
    """Grouped (GROUP_ORDER), ranked by overall accuracy within each group, then by name."""
    return sorted(models, key=lambda s: (GROUP_ORDER.index(s.group) if s.group in GROUP_ORDER
                                         else len(GROUP_ORDER), *_rank_key(s)))


def leaderboard_order(models: Sequence[ModelSummary]) -> list[ModelSummary]:
    """One ranking over all groups (the leaderboard and its bar chart)."""
    return sorted(models, key=_rank_key)


def _opt(obj) -> Any:
    return obj.to_dict() if obj is not None else None


def model_to_dict(s: ModelSummary) -> dict[str, Any]:
    d: dict[str, Any] = {
        "name": s.name, "label": s.label, "kind": s.kind, "group": s.group,
        "benchmark": s.benchmark, "accuracy": s.accuracy, "categories": s.categories,
    }
    if s.kind == "run":
        d.update({
            "overall": _opt(s.overall),
            "coverage": s.overall.coverage if s.overall else None,
            "interval": _opt(s.interval),
            "category_counts": {k: t.to_dict() for k, t in s.category_tallies.items()},
            "answer_types": {k: t.to_dict() for k, t in s.answer_types.items()},
            "seed_variant": {k: t.to_dict() for k, t in s.seed_variant.items()},
            "statuses": s.statuses,
            "tokens": _opt(s.tokens),
            "stability": _opt(s.stability),
            "consistency": _opt(s.consistency),
        })
    elif s.published_runs is not None:
        d["stability"] = {"n_runs": len(s.published_runs.runs),
                          "runs": [{"run": i, "accuracy": a}
                                   for i, a in enumerate(s.published_runs.runs)],
                          "delta": s.published_runs.delta}
    d["provenance"] = s.provenance
    return d


def report_to_dict(models: Sequence[ModelSummary], *, settings: dict[str, Any]) -> dict:
    return {
        "schema": REPORT_SCHEMA, "version": REPORT_VERSION, "general365_version": __version__,
        "settings": settings,
        "conventions": {
            "accuracy": "correct / graded rows; no_answer, timeout, judge_failed and "
                        "incorrect count as wrong; ungraded rows are left out (coverage)",
            "runs": "accuracy pools every (problem, run) row of a model",
            "categories": CATEGORY_NOTE,
            "fractions": "every accuracy, share and rate is a fraction from 0 to 1",
        },
        "categories": [c.value for c in Category],
        "models": [model_to_dict(s) for s in ranked(models)],
    }
