"""Read graded files (`graded.jsonl`) into typed rows, grouped by model.

The report reads only what the grader wrote (and a run folder's `run.json` for provenance,
when one sits beside the graded file); it never grades. Every row is checked before anything
is computed, so that a bad file is refused with one line (file:line, field, expected) and no
report is half-written.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..errors import DataError, UserError
from ..jsonl import iter_jsonl
from ..jsonl import parse as parse_json
from ..schema import MAX_INT, AnswerType, Category, Status, parse_categories

# Fields a graded row must carry; everything else has a documented default.
REQUIRED = ("id", "run", "status", "correct")


@dataclass(frozen=True)
class GradedRow:
    """The part of one graded row that the report uses."""

    id: str
    run: int
    model: str
    status: Status
    answer_type: AnswerType | None
    categories: tuple[Category, ...]
    seed_id: str
    variant: int
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    finish_reason: str | None = None
    preset: str | None = None
    sampling: str | None = None   # the row's sampling settings as sorted JSON, seed left out
    method: str | None = None
    judge_model: str | None = None
    path: str = ""
    line: int = 0

    @property
    def correct(self) -> bool:
        return self.status is Status.CORRECT

    @property
    def graded(self) -> bool:
        """Ungraded rows have no verdict: they are left out of accuracy (shown as coverage)."""
        return self.status is not Status.UNGRADED

    @property
    def is_seed(self) -> bool:
        return self.variant == 0


@dataclass
class ModelRuns:
    """All rows of one model (over one or several files and runs) and where they came from."""

    name: str
    rows: list[GradedRow] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    run_json: list[dict[str, Any]] = field(default_factory=list)

    @property
    def presets(self) -> set[str]:
        return {r.preset for r in self.rows if r.preset}

    @property
    def group(self) -> str:
        """`reasoning` or `chat` where the rows' sampling preset says so, else `other`."""
        p = self.presets
        return p.pop() if len(p) == 1 and p <= {"reasoning", "chat"} else "other"

    @property
    def runs(self) -> list[int]:
        return sorted({r.run for r in self.rows})

    @property
    def judge_models(self) -> list[str]:
        return sorted({r.judge_model for r in self.rows if r.judge_model})


def _where(path: str, line: int, row_id: str | None = None) -> dict[str, Any]:
    return {"path": path, "line": line, "row_id": row_id}


def _opt_int(d: Mapping[str, Any], key: str, where: dict, *, minimum: int = 0) -> int | None:
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not minimum <= v <= MAX_INT:
        raise DataError("wrong type" if not isinstance(v, int) or isinstance(v, bool)
                        else "out of range", field=key, value=v,
                        expected=f"an integer from {minimum} to {MAX_INT} or null", **where)
    return v


def _opt_str(d: Mapping[str, Any], key: str, where: dict) -> str | None:
    v = d.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        raise DataError("wrong type", field=key, value=v, expected="a string or null", **where)
    return v


def parse_row(d: Any, *, path: str, line: int, model: str) -> GradedRow:
    """One graded row, checked. `model` is used when the row names none."""
    where = _where(path, line)
    if not isinstance(d, Mapping):
        raise DataError("not a JSON object", value=d, expected="one JSON object per line",
                        **where)
    rid = d.get("id")
    if isinstance(rid, int) and not isinstance(rid, bool):
        rid = str(rid)
    if rid is not None and (not isinstance(rid, str) or not rid):
        raise DataError("wrong type", field="id", value=rid, expected="a non-empty string",
                        **where)
    where["row_id"] = rid
    for key in REQUIRED:
        if key not in d or d[key] is None:
            raise DataError("missing field", field=key,
                            expected="a graded row (run `general365 grade` first)", **where)
    run = d["run"]
    if isinstance(run, bool) or not isinstance(run, int) or not 0 <= run <= MAX_INT:
        raise DataError("wrong type", field="run", value=run,
                        expected=f"an integer from 0 to {MAX_INT}", **where)
    status = Status.parse(d["status"], field="status", **where)
    if not isinstance(d["correct"], bool):
        raise DataError("wrong type", field="correct", value=d["correct"],
                        expected="true or false", **where)
    if d["correct"] != (status is Status.CORRECT):
        raise DataError("contradicts status", field="correct", value=d["correct"],
                        expected=f"{str(status is Status.CORRECT).lower()} for status "
                                 f"{status.value!r}", **where)
    at = d.get("answer_type")
    answer_type = None if at is None else AnswerType.parse(at, field="answer_type", **where)
    categories = parse_categories(d.get("categories"), **where)
    variant = d.get("variant", 0)
    if isinstance(variant, bool) or not isinstance(variant, int) or not 0 <= variant <= MAX_INT:
        raise DataError("wrong type", field="variant", value=variant,
                        expected=f"an integer from 0 to {MAX_INT} (0 for a seed)", **where)
    seed_id = d.get("seed_id")
    if seed_id is None:
        if variant > 0:
            raise DataError("missing field", field="seed_id",
                            expected="the id of its seed problem for a variant", **where)
        seed_id = rid
    if isinstance(seed_id, int) and not isinstance(seed_id, bool):
        seed_id = str(seed_id)
    if not isinstance(seed_id, str) or not seed_id:
        raise DataError("wrong type", field="seed_id", value=seed_id,
                        expected="a non-empty string", **where)
    row_model = _opt_str(d, "model", where) or model
    sampling = d.get("sampling")
    if sampling is not None and not isinstance(sampling, Mapping):
        raise DataError("wrong type", field="sampling", value=sampling,
                        expected="an object or null", **where)
    preset = (sampling or {}).get("preset")
    judge = d.get("judge")
    judge_model = judge.get("model") if isinstance(judge, Mapping) else None
    method = d.get("method")
    return GradedRow(
        id=rid, run=run, model=row_model, status=status, answer_type=answer_type,
        categories=categories, seed_id=seed_id, variant=variant,
        output_tokens=_opt_int(d, "output_tokens", where),
        reasoning_tokens=_opt_int(d, "reasoning_tokens", where),
        finish_reason=_opt_str(d, "finish_reason", where),
        preset=preset if isinstance(preset, str) else None,
        sampling=_settings_key(sampling),
        method=method if isinstance(method, str) else None,
        judge_model=judge_model if isinstance(judge_model, str) else None,
        path=path, line=line,
    )


def _settings_key(sampling: Mapping[str, Any] | None) -> str | None:
    # Each run has its own seed; the settings shared by the runs are what provenance shows.
    if not sampling:
        return None
    return json.dumps({k: v for k, v in sampling.items() if k != "seed"}, sort_keys=True,
                      default=str)


def read_run_json(graded_path: str) -> dict[str, Any] | None:
    """The run folder's `run.json` beside a graded file, for provenance; None if absent."""
    path = os.path.join(os.path.dirname(os.path.abspath(graded_path)), "run.json")
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"unreadable run.json ({exc})", path=path,
                        expected="a JSON object describing the run") from None
    data = parse_json(text, path=path, expected="a JSON object describing the run")
    if not isinstance(data, dict):
        raise DataError("not a JSON object", path=path, expected="a JSON object")
    return data


def _default_name(path: str, run_json: Mapping[str, Any] | None) -> str:
    if run_json and isinstance(run_json.get("model"), str) and run_json["model"]:
        return run_json["model"]
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem in ("graded", "responses") or not stem:
        # run folders hold `graded.jsonl`: the folder names the model better.
        stem = os.path.basename(os.path.dirname(os.path.abspath(path))) or stem
    return stem


def read_graded_file(path: str, *, name: str | None = None) -> tuple[list[GradedRow], dict | None]:
    """The rows of one graded file. `name` overrides every row's model (for two files of the
    same model under different settings)."""
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such file (expected a graded .jsonl file)")
    run_json = read_run_json(path)
    fallback = name or _default_name(path, run_json)
    rows: list[GradedRow] = []
    for n, d in iter_jsonl(path):
        row = parse_row(d, path=path, line=n, model=fallback)
        if name:
            row = _renamed(row, name)
        rows.append(row)
    if not rows:
        raise DataError("no rows", path=path, expected="at least one graded row")
    return rows, run_json


def _renamed(row: GradedRow, name: str) -> GradedRow:
    return dataclasses.replace(row, model=name)


def load_graded(paths: Sequence[str], names: Sequence[str] | None = None) -> list[ModelRuns]:
    """All files, grouped by model in order of first appearance. A (model, id, run) seen
    twice is refused: it would be counted twice."""
    if names and len(names) != len(paths):
        raise UserError(f"--name was given {len(names)} time(s) for {len(paths)} file(s); "
                        "expected one name per graded file, or none")
    models: dict[str, ModelRuns] = {}
    seen: dict[tuple[str, str, int], GradedRow] = {}
    for i, path in enumerate(paths):
        rows, run_json = read_graded_file(path, name=names[i] if names else None)
        for row in rows:
            key = (row.model, row.id, row.run)
            if key in seen:
                first = seen[key]
                raise DataError(
                    f"duplicate row: model {row.model!r} run {row.run} already at "
                    f"{first.path}:{first.line}", path=path, line=row.line, row_id=row.id,
                    field="run", expected="each (model, id, run) once; give each file its "
                                          "own name with --name to compare settings")
            seen[key] = row
            entry = models.setdefault(row.model, ModelRuns(name=row.model))
            entry.rows.append(row)
            if path not in entry.files:
                entry.files.append(path)
                if run_json is not None:
                    entry.run_json.append(run_json)
    return list(models.values())

