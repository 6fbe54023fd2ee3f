"""report_to=mlflow: one MLflow run per model, to MLFLOW_TRACKING_URI (mlflow's own default
when unset); the per-sample rows as a table artifact (mlflow.log_table)."""

from __future__ import annotations

import os
from typing import Sequence

from ..redact import shown_url
from ..reporting.load import ModelRuns
from . import rows as results
from .trackers import PROJECT, SAMPLE_COLUMNS, params, samples


def send(models: Sequence[ModelRuns], *, logging_dir: str | None) -> str:
    import mlflow

    if not (os.environ.get("MLFLOW_EXPERIMENT_NAME") or os.environ.get("MLFLOW_EXPERIMENT_ID")):
        mlflow.set_experiment(PROJECT)
    for m in models:
        with mlflow.start_run(run_name=m.name):
            mlflow.log_params({k: str(v)[:500] for k, v in params(m).items()})
            # `accuracy.number`: MLflow's file store names a metric's file by its key, so
            # it cannot hold both `accuracy` and `accuracy/number`
            mlflow.log_metrics({k.replace("/", "."): float(v)
                                for k, v in results.model_scalars(m).items()})
            rows = samples(m)
            columns = {c: [r[i] for r in rows] for i, c in enumerate(SAMPLE_COLUMNS)}
            mlflow.log_table(data=columns, artifact_file="samples.json")
    return f"MLflow {shown_url(mlflow.get_tracking_uri())}"
