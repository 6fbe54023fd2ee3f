"""A results dataset folder (the Hub layout `general365 report --hub-folder` writes, or a
download of such a Hub repository) read back as graded rows, so that a leaderboard can be
built from it: `general365 report DIR --out REPORT_DIR`.

    README.md                      configs `results` and `details` (YAML front matter)
    data/results/<key>.parquet     one row per model and run: flat metrics, provenance
    data/details/<key>.parquet     one row per graded response of that model and run

Each (model, run) has its own files, so that a second model pushed to the same repository
adds files and replaces none. The columns are fixed here, written by general365.results.hub
and read by `datasets.load_dataset(DIR, "results" | "details")` as well as by this module.
"""

from __future__ import annotations

import glob
import json
import os
from typing import Any

from ..errors import DataError, UserError
from ..redact import shown_settings

RESULTS_DIR = "data/results"
DETAILS_DIR = "data/details"
CONFIG_MARK = "general365_results: 1"   # in the card's front matter: a folder of ours


def details_schema():
    import pyarrow as pa

    return pa.schema([
        ("model", pa.string()), ("run", pa.int64()), ("id", pa.string()),
        ("status", pa.string()), ("correct", pa.bool_()), ("method", pa.string()),
        ("extracted", pa.string()), ("answer", pa.string()), ("answer_type", pa.string()),
        ("float_round", pa.int64()), ("categories", pa.list_(pa.string())),
        ("seed_id", pa.string()), ("variant", pa.int64()), ("output_tokens", pa.int64()),
        ("reasoning_tokens", pa.int64()), ("finish_reason", pa.string()),
        ("judge_model", pa.string()), ("sampling", pa.string()), ("benchmark", pa.string()),
    ])


def is_results_folder(path: str) -> bool:
    readme = os.path.join(path, "README.md")
    if not (os.path.isdir(path) and os.path.isfile(readme)):
        return False
    try:
        with open(readme, encoding="utf-8") as f:
            head = f.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    return head.startswith("---") and CONFIG_MARK in head.split("\n---", 1)[0]


def read_folder(path: str) -> list[tuple[list[dict[str, Any]], dict | None]]:
    """(graded rows as dicts, run.json or None) per model, in the files' order."""
    import pyarrow.parquet as pq

    if not is_results_folder(path):
        raise UserError(f"{path}: a folder, but not a results folder (expected the README.md "
                        "that `general365 report --hub-folder` writes); give graded .jsonl "
                        "files or such a folder")
    details = sorted(glob.glob(os.path.join(path, DETAILS_DIR, "*.parquet")))
    if not details:
        raise DataError("no details files", path=os.path.join(path, DETAILS_DIR),
                        expected="data/details/*.parquet, one per model and run")
    run_json: dict[str, dict] = {}
    for f in sorted(glob.glob(os.path.join(path, RESULTS_DIR, "*.parquet"))):
        for row in _rows(pq, f):
            rj = row.get("run_json")
            if isinstance(rj, str) and rj and row.get("model") not in run_json:
                try:
                    # a folder written by an earlier version may hold credentials
                    run_json[row["model"]] = shown_settings(json.loads(rj))
                except ValueError:
                    raise DataError("run_json is not JSON", path=f, field="run_json",
                                    expected="run.json's text") from None
    models: dict[str, list[dict[str, Any]]] = {}
    for f in details:
        for row in _rows(pq, f):
            models.setdefault(str(row.get("model")), []).append(_graded_dict(row, f))
    return [(rows, run_json.get(model)) for model, rows in models.items()]


def _rows(pq, f: str) -> list[dict[str, Any]]:
    try:
        return pq.read_table(f).to_pylist()
    except Exception as exc:   # pyarrow's errors have no common base worth naming
        raise DataError(f"not a readable parquet file ({type(exc).__name__})", path=f,
                        expected="a file written by `general365 report --hub-folder`"
                        ) from None


def _graded_dict(row: dict[str, Any], path: str) -> dict[str, Any]:
    """A details row as the graded row it was made from (no response text: the report
    needs none)."""
    d = {k: v for k, v in row.items() if v is not None and k not in ("judge_model", "sampling")}
    d["response"] = ""
    if row.get("sampling"):
        try:
            d["sampling"] = json.loads(row["sampling"])
        except ValueError:
            raise DataError("sampling is not JSON", path=path, row_id=row.get("id"),
                            field="sampling", expected="the sampling settings as JSON") from None
    if row.get("judge_model"):
        d["judge"] = {"model": row["judge_model"]}
    if d.get("benchmark") == "general365":
        del d["benchmark"]   # General365's own rows carry none
    return d
