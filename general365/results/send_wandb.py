"""report_to=wandb: one W&B run per model, as W&B's environment says (WANDB_PROJECT,
WANDB_MODE=offline, WANDB_DIR, ...); the per-sample rows as a wandb.Table."""

from __future__ import annotations

import os
import sys
from typing import Sequence

from ..redact import shown_argv
from ..reporting.load import ModelRuns
from . import rows as results
from .trackers import PROJECT, SAMPLE_COLUMNS, params, samples


def send(models: Sequence[ModelRuns], *, logging_dir: str | None) -> str:
    import wandb

    # W&B records sys.argv in every run's metadata: it sees it as run.json stores it,
    # credentials masked, for as long as its runs are open
    argv = sys.argv
    sys.argv = [*argv[:1], *shown_argv(argv[1:])]
    project = os.environ.get("WANDB_PROJECT") or PROJECT
    mode = os.environ.get("WANDB_MODE") or "online"
    where = ""
    try:
        for m in models:
            run = wandb.init(project=project, name=m.name, config=params(m), job_type="eval",
                             reinit="create_new",
                             settings=wandb.Settings(console="off", silent=True,
                                                     x_disable_stats=True))
            try:
                scalars = results.model_scalars(m)
                run.log(scalars, step=0)
                run.log({"samples": wandb.Table(columns=list(SAMPLE_COLUMNS),
                                                data=samples(m))}, step=0)
                run.summary.update(scalars)
                # offline: the run folders under WANDB_DIR (`wandb sync` them later)
                where = os.path.dirname(os.path.dirname(run.dir)) if mode == "offline" \
                    else (run.url or project)
            finally:
                run.finish()
    finally:
        sys.argv = argv
    return f"W&B project {project} ({mode}: {where})"
