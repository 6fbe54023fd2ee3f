"""report_to=trackio: one trackio run per model in its local store (TRACKIO_DIR, default
under HF_HOME); the per-sample rows as a trackio.Table."""

from __future__ import annotations

from typing import Sequence

from ..reporting.load import ModelRuns
from . import rows as results
from .trackers import PROJECT, SAMPLE_COLUMNS, params, samples


def send(models: Sequence[ModelRuns], *, logging_dir: str | None) -> str:
    import trackio

    for m in models:
        trackio.init(project=PROJECT, name=m.name, config=params(m), auto_log_cpu=False,
                     auto_log_gpu=False)
        try:
            table = trackio.Table(columns=list(SAMPLE_COLUMNS), data=samples(m))
            trackio.log({**results.model_scalars(m), "samples": table}, step=0)
        finally:
            trackio.finish()
    from trackio.utils import TRACKIO_DIR

    return f"trackio project {PROJECT} ({TRACKIO_DIR})"
