"""A report's results as a dataset in the Hub layout (reporting/hub_folder.py reads it back):
`hub_folder=DIR` writes it, `push_to_hub=ORG/NAME` uploads it. Each (model, run) is its own
pair of files, named by what was evaluated: a second model's push adds files and replaces
none, the same evaluation pushed again replaces its own files with equal ones.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
from typing import Any, Sequence

from ..errors import OptionError, UserError
from ..fsutil import WriteFailed, write_text
from ..reporting import hub_folder as layout
from ..reporting.load import ModelRuns
from . import rows as results

_REPO = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")

CARD = """---
{mark}
configs:
- config_name: results
  data_files:
  - split: train
    path: {results}/*.parquet
- config_name: details
  data_files:
  - split: train
    path: {details}/*.parquet
tags:
- general365
- evaluation
---

# General365 results

Evaluation results written by [general365](https://general365.github.io)
(`general365 report --hub-folder` / `--push-to-hub`).

- `results`: one row per model and run: the flat metrics (`accuracy`, `coverage`,
  `status/<status>`, `accuracy/<answer type>`, `accuracy/<category>`, ...; `n_runs`,
  `avg_at_n` and `pass_at_n` are the model's, over all its runs) and where the run came
  from (model, backend, sampling, general365's version, the dataset's fingerprint).
- `details`: one row per graded response (id, run, status, extracted and gold answer,
  tokens).

```python
from datasets import load_dataset
results = load_dataset("REPO", "results", split="train")
details = load_dataset("REPO", "details", split="train")
```

Each model and run is its own pair of files, so pushing another model to this repository
adds rows. `general365 report DIR --out REPORT_DIR` builds the leaderboard page from a
download of it.
"""


def check_repo(repo: str | None) -> None:
    if repo is not None and not _REPO.match(repo):
        raise OptionError("push_to_hub", f"{repo!r}: expected ORG/NAME (e.g. my-org/"
                                         "general365-results)")


def require_hub(repo: str) -> None:
    """Refuse a push at once, before the report is built, when the Hub cannot be reached."""
    from ..data.readers import hub_unreachable_reason

    reason = hub_unreachable_reason()
    if reason:
        raise UserError(f"cannot push to {repo}: the Hugging Face Hub cannot be reached "
                        f"({reason}); nothing was written. Write the results with --hub-folder "
                        f"DIR and upload DIR where the Hub is reachable (hf upload {repo} DIR "
                        "--repo-type dataset), or rerun there")


def check_folder(folder: str) -> None:
    """A folder that is absent, empty, or a results folder already (rows are added)."""
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise OptionError("hub_folder", f"{folder}: exists and is not a folder")
    if os.path.isdir(folder) and os.listdir(folder) and not layout.is_results_folder(folder):
        raise OptionError("hub_folder", f"{folder}: holds other files; expected an empty or "
                                        "new folder, or one written by --hub-folder before")


def _key(m: ModelRuns, run: int, prov: dict[str, Any]) -> str:
    what = json.dumps([m.name, run, prov.get("dataset_fingerprint"), prov.get("sampling"),
                       prov.get("benchmark")], sort_keys=True, ensure_ascii=False)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", m.name).strip("._-")[-60:] or "model"
    return f"{stem}-run{run}-{hashlib.sha256(what.encode('utf-8')).hexdigest()[:12]}"


def _results_schema():
    import pyarrow as pa

    fields = [(k, pa.bool_() if k == "random_weights" else pa.string())
              for k in results.provenance(ModelRuns(name=""))]
    fields += [("run", pa.int64()), ("created", pa.string()), ("run_json", pa.string())]
    rates = ("accuracy", "coverage", "avg_at_n", "pass_at_n")
    fields += [(k, pa.float64() if k.split("/")[0] in rates else pa.int64())
               for k in results.metric_columns()]
    return pa.schema(fields)


def write_folder(models: Sequence[ModelRuns], folder: str) -> list[str]:
    """Write (or add to) the results folder; returns the files written, relative to it.
    Each file is written whole or not at all (fsutil), a run's details before its results
    row (so that a results row never lacks its details), the card last."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    check_folder(folder)
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    rschema, dschema = _results_schema(), layout.details_schema()
    staged: list[tuple[str, Any]] = []
    for m in models:
        prov = results.provenance(m)
        model_level = {k: v for k, v in results.model_scalars(m).items()
                       if k in results.RUNS_KEYS}
        run_json = json.dumps(m.run_json[0], ensure_ascii=False, default=str) \
            if m.run_json else None
        for run in m.runs:
            rows = [r for r in m.rows if r.run == run]
            metrics = {**results.scalars(rows), **model_level}
            row = {**prov, "run": run, "created": created, "run_json": run_json}
            row.update({k: metrics.get(k) for k in results.metric_columns()})
            key = _key(m, run, prov)
            staged.append((f"{layout.DETAILS_DIR}/{key}.parquet",
                           pa.Table.from_pylist([results.detail(r, m.name) for r in rows],
                                                schema=dschema)))
            staged.append((f"{layout.RESULTS_DIR}/{key}.parquet",
                           pa.Table.from_pylist([row], schema=rschema)))
    written = []
    try:
        for rel, table in staged:
            dest = os.path.join(folder, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink)
            write_text(dest, sink.getvalue().to_pybytes())
            written.append(rel)
        card = CARD.format(mark=layout.CONFIG_MARK, results=layout.RESULTS_DIR,
                           details=layout.DETAILS_DIR)
        write_text(os.path.join(folder, "README.md"), card)
    except WriteFailed as exc:
        raise UserError(f"{exc.path}: cannot write the results folder ({exc.reason}); "
                        f"{_kept(written)}") from None
    except OSError as exc:   # a folder of the layout that cannot be made
        raise UserError(f"{exc.filename or folder}: cannot write the results folder "
                        f"({exc.strerror or exc}); {_kept(written)}") from None
    return ["README.md", *written]


def _kept(written: Sequence[str]) -> str:
    pairs = sum(rel.startswith(layout.RESULTS_DIR + "/") for rel in written)
    return (f"{pairs} model run(s) were written whole before it" if pairs
            else "no model run was added")


def push_folder(folder: str, repo: str, *, files: Sequence[str], private: bool = True,
                token: str | None = None, api: Any = None) -> str:
    """Upload `files` (relative to `folder`) to a Hub dataset repository, leaving other files
    there as they are; returns its URL."""
    check_repo(repo)
    if api is None:
        from huggingface_hub import HfApi

        require_hub(repo)
        api = HfApi(token=token)
    from ..data.hub import upload_dataset

    return upload_dataset(api, repo, folder, private=private, allow_patterns=list(files),
                          commit_message=f"Add general365 results ({len(files) - 1} files)")
