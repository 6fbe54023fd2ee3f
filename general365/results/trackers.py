"""`report_to=` (transformers' names): one tracker run per model (all its runs pooled) with
the scalars of rows.py, the provenance as parameters and the per-sample rows as a table
(send_*.py). Where each one writes is the tracker's own setting (docs/reports.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import re
import sys
from typing import Any, Callable, Sequence

from ..errors import OptionError, UserError
from ..redact import Redactor, shown_urls, url_secrets
from ..reporting.load import ModelRuns
from ..terminal import ShownStream
from . import rows as results

TRACKERS = ("tensorboard", "wandb", "trackio", "mlflow")
PROJECT = "general365"   # W&B project, trackio project, MLflow experiment, unless set
SAMPLE_COLUMNS = ("id", "run", "status", "extracted", "answer", "output_tokens",
                  "reasoning_tokens")


def parse_report_to(value: str | Sequence[str] | None) -> list[str]:
    """The trackers named by `value`: a comma-separated string or a list of names, each a
    tracker, `all` or `none`. None and `none` name no tracker."""
    if value is None:
        return []
    names = [str(v).strip() for v in (value.split(",") if isinstance(value, str) else value)]
    bad = [n for n in names if n not in (*TRACKERS, "all", "none")]
    if bad or not names:
        shown = ", ".join(repr(b) for b in bad) if bad else "''"
        raise OptionError("report_to", f"{shown}: expected a comma-separated list of "
                                       f"{', '.join(TRACKERS)}, or all, or none")
    if "none" in names and len(set(names)) > 1:
        raise OptionError("report_to", "none cannot be given with a tracker")
    return [t for t in TRACKERS if t in names or "all" in names]


def check_logging_dir(logging_dir: str | None, trackers: Sequence[str],
                      out: str | None) -> str | None:
    """Where TensorBoard writes: `logging_dir`, else REPORT_DIR/tensorboard."""
    if logging_dir is not None and "tensorboard" not in trackers:
        raise OptionError("logging_dir", "is where TensorBoard writes; give it with "
                                         "{report_to} tensorboard (or all)")
    if "tensorboard" not in trackers:
        return None
    if logging_dir is None:
        if out is None:
            raise OptionError("logging_dir", "is needed for TensorBoard when the report is "
                                             "not written to a folder (no out)")
        logging_dir = os.path.join(out, "tensorboard")
    if os.path.lexists(logging_dir) and not os.path.isdir(logging_dir):
        raise OptionError("logging_dir", f"{logging_dir}: exists and is not a folder")
    return logging_dir


def log_report(models: Sequence[ModelRuns], trackers: Sequence[str], *,
               logging_dir: str | None) -> list[str]:
    """Send every model's results to each tracker; one line per tracker saying where they
    went. A tracker that fails stops here with one line naming it."""
    done = []
    for tracker in trackers:
        send: Callable[..., str] = importlib.import_module(
            f"{__package__}.send_{tracker}").send
        try:
            # a tracker's chatter goes to stderr, escaped: it may quote a graded file's model
            err = sys.stderr
            with contextlib.redirect_stdout(ShownStream(err)), \
                    contextlib.redirect_stderr(ShownStream(err)):
                where = send(models, logging_dir=logging_dir)
        except UserError:
            raise
        except Exception as exc:   # a tracker's own failure: network, store, permissions
            raise UserError(f"report to {tracker} failed: {type(exc).__name__}: "
                            f"{_one_line(str(exc))}") from None
        done.append(f"{tracker}: {len(models)} run(s) -> {shown_urls(where)}")
    return done


# credentials a tracker's error could echo (a server's message quoting the key it refused)
_SECRETS = ("WANDB_API_KEY", "MLFLOW_TRACKING_TOKEN", "MLFLOW_TRACKING_PASSWORD", "HF_TOKEN")
# servers' URLs, which may carry credentials of their own (user:password@, ?token=)
_URLS = ("MLFLOW_TRACKING_URI", "WANDB_BASE_URL")


def _one_line(text: str) -> str:
    """A tracker's error as one printable line, any credential in it masked."""
    for var in _SECRETS:
        text = Redactor(os.environ.get(var)).clean(text)
    text = Redactor(None, *(s for var in _URLS
                            for s in url_secrets(os.environ.get(var) or ""))).clean(text)
    text = shown_urls(text)
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


def samples(m: ModelRuns) -> list[list[Any]]:
    """One row per graded response, in SAMPLE_COLUMNS' order."""
    return [[d[c] for c in SAMPLE_COLUMNS] for d in (results.detail(r, m.name) for r in m.rows)]


def params(m: ModelRuns) -> dict[str, Any]:
    return {k: v for k, v in results.provenance(m).items() if v is not None}


def folder_name(model: str) -> str:
    """A file name for a model name (which may be a path, or hold any character)."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._-")[:80] or "model"
    return f"{stem}-{hashlib.sha256(model.encode('utf-8')).hexdigest()[:8]}"
