"""A results dataset folder (the Hub layout `general365 report --hub-folder` writes, or a
download of it) read back as graded rows, so that `general365 report DIR` builds from it.

    README.md                      configs `results` and `details` (YAML front matter)
    data/results/<key>.parquet     one row per model and run: flat metrics, provenance
    data/details/<key>.parquet     one row per graded response of that model and run
"""

from __future__ import annotations

import glob
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
        for n, row in enumerate(_rows(pq, f), start=1):
            model, rj = row.get("model"), row.get("run_json")
            if model is not None and not isinstance(model, str):
                raise DataError("model is not a string", path=f, line=n, field="model",
                                value=model, expected="the model's name")
            if isinstance(rj, str) and rj and model not in run_json:
                # a folder written by an earlier version may hold credentials
                run_json[model] = shown_settings(_json_object(rj, f, n, "run_json",
                                                              "run.json's text, a JSON object"))
    models: dict[str, list[dict[str, Any]]] = {}
    for f in details:
        for n, row in enumerate(_rows(pq, f), start=1):
            models.setdefault(str(row.get("model")), []).append(_graded_dict(row, f, n))
    return [(rows, run_json.get(model)) for model, rows in models.items()]


def _rows(pq, f: str) -> list[dict[str, Any]]:
    try:
        return pq.read_table(f).to_pylist()
    except Exception as exc:   # pyarrow's errors have no common base worth naming
        raise DataError(f"not a readable parquet file ({type(exc).__name__})", path=f,
                        expected="a file written by `general365 report --hub-folder`"
                        ) from None


def _json_object(text: str, path: str, n: int, field: str, expected: str,
                 row_id: Any = None) -> dict[str, Any]:
    """A column's JSON object, read as strictly as a graded file (jsonl.parse)."""
    from ..jsonl import parse

    try:
        value = parse(text, expected=expected)
    except DataError as exc:
        raise DataError(exc.detail, path=path, line=n, row_id=row_id, field=field,
                        expected=exc.expected) from None
    if not isinstance(value, dict):
        raise DataError(f"{field} is not a JSON object", path=path, line=n, row_id=row_id,
                        field=field, value=value if len(text) < 200 else None,
                        expected=expected)
    return value


def _graded_dict(row: dict[str, Any], path: str, n: int) -> dict[str, Any]:
    """A details row as the graded row it was made from, less the response text."""
    d = {k: v for k, v in row.items() if v is not None and k not in ("judge_model", "sampling")}
    d["response"] = ""
    if row.get("sampling"):
        d["sampling"] = _json_object(row["sampling"], path, n, "sampling",
                                     "the sampling settings as a JSON object",
                                     row_id=row.get("id"))
    if row.get("judge_model"):
        d["judge"] = {"model": row["judge_model"]}
    if d.get("benchmark") == "general365":
        del d["benchmark"]   # General365's own rows carry none
    return d
