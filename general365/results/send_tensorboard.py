"""report_to=tensorboard: event files (TensorBoard's own writer, no TensorFlow), one folder
per model under logging_dir; the per-sample rows as a text summary and samples.csv."""

from __future__ import annotations

import csv
import os
import time
from typing import Any, Sequence

from ..reporting.load import ModelRuns
from ..reporting.tables import md_cell
from . import rows as results
from .trackers import SAMPLE_COLUMNS, folder_name, params, samples


def send(models: Sequence[ModelRuns], *, logging_dir: str | None) -> str:
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.plugins.text.summary_v2 import text_pb
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    assert logging_dir is not None
    for m in models:
        folder = os.path.join(logging_dir, folder_name(m.name))
        os.makedirs(folder, exist_ok=True)
        writer = EventFileWriter(folder)
        now = time.time()
        try:
            values = [Summary.Value(tag=k, simple_value=float(v))
                      for k, v in results.model_scalars(m).items()]
            writer.add_event(Event(wall_time=now, step=0, summary=Summary(value=values)))
            fields = "\n".join(f"| {k} | {_md(v)} |" for k, v in params(m).items())
            writer.add_event(Event(wall_time=now, step=0, summary=text_pb(
                "provenance", "| field | value |\n|---|---|\n" + fields)))
            head = "| " + " | ".join(SAMPLE_COLUMNS) + " |\n|" + "---|" * len(SAMPLE_COLUMNS)
            body = "\n".join("| " + " | ".join(_md(v) for v in r) + " |" for r in samples(m))
            writer.add_event(Event(wall_time=now, step=0,
                                   summary=text_pb("samples", head + "\n" + body)))
        finally:
            writer.close()
        # TensorBoard has no tables: the rows are also an artifact beside the events
        with open(os.path.join(folder, "samples.csv"), "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(SAMPLE_COLUMNS)
            w.writerows(samples(m))
    return logging_dir


def _md(value: Any) -> str:
    return md_cell("" if value is None else str(value))
