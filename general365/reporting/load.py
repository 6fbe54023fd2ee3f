"""Read graded files (`graded.jsonl`, and a run folder's `run.json` for provenance) into
typed rows, grouped by model. Every row is checked before anything is computed, so that a bad
file is refused with one line (file:line, field, expected) and no report is half-written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..errors import DataError, OptionError, UserError
from ..jsonl import iter_jsonl
from ..jsonl import parse as parse_json
from ..redact import shown_settings
from ..schema import Graded


@dataclass
class ModelRuns:
    """All rows of one model (over one or several files and runs) and where they came from."""

    name: str
    rows: list[Graded] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    run_json: list[dict[str, Any]] = field(default_factory=list)

    @property
    def random_weights(self) -> bool:
        return any(rj.get("random_weights") is True for rj in self.run_json)

    @property
    def group(self) -> str:
        """`demo` for a random-weight model (whatever its preset), else the rows' one preset,
        `reasoning` or `chat`, else `other`."""
        if self.random_weights:
            return "demo"
        p = {r.preset for r in self.rows if r.preset}
        return p.pop() if len(p) == 1 and p <= {"reasoning", "chat"} else "other"

    @property
    def runs(self) -> list[int]:
        return sorted({r.run for r in self.rows})

    @property
    def judge_models(self) -> list[str]:
        return sorted({r.judge_model for r in self.rows if r.judge_model})

    @property
    def benchmark(self) -> str | None:
        """The benchmark the rows were graded for (None: General365)."""
        names = {r.benchmark for r in self.rows}
        return names.pop() if len(names) == 1 else None


def parse_row(d: Any, *, path: str, line: int, model: str) -> Graded:
    """One graded row, checked, without its response text; `model` where the row names none."""
    row = Graded.from_dict(d, path=path, line=line, with_text=False)
    if not row.response.model:
        row.response.model = model
    return row


def read_run_json(graded_path: str) -> dict[str, Any] | None:
    """The run folder's `run.json` beside a graded file; None if absent."""
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
    # copied into the page and report.json: credentials earlier versions stored are masked
    return shown_settings(data)


def _default_name(path: str, run_json: Mapping[str, Any] | None) -> str:
    if run_json and isinstance(run_json.get("model"), str) and run_json["model"]:
        return run_json["model"]
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem in ("graded", "responses") or not stem:
        # run folders hold `graded.jsonl`: the folder names the model better.
        stem = os.path.basename(os.path.dirname(os.path.abspath(path))) or stem
    return stem


def load_graded(paths: Sequence[str], names: Sequence[str] | None = None) -> list[ModelRuns]:
    """All files, grouped by model in order of first appearance. A (model, id, run) seen
    twice is refused: it would be counted twice."""
    if names and len(names) != len(paths):
        raise OptionError("names", f"was given {len(names)} time(s) for {len(paths)} file(s); "
                        "expected one name per graded file, or none")
    models: dict[str, ModelRuns] = {}
    seen: dict[tuple[str, str, int], Graded] = {}
    for i, path in enumerate(paths):
        for rows, run_json in _read_input(path, name=names[i] if names else None):
            for row in rows:
                key = (row.model, row.id, row.run)
                if key in seen:
                    first = seen[key]
                    raise DataError(
                        f"duplicate row: model {row.model!r} run {row.run} already at "
                        f"{first.path}:{first.line}", path=path, line=row.line, row_id=row.id,
                        field="run", expected="each (model, id, run) once; give each file "
                                              "its own name with --name to compare settings")
                seen[key] = row
                entry = models.setdefault(row.model, ModelRuns(name=row.model))
                entry.rows.append(row)
                if path not in entry.files:
                    entry.files.append(path)
                    if run_json is not None:
                        entry.run_json.append(run_json)
    return list(models.values())


def _read_input(path: str, *, name: str | None) -> list[tuple[list[Graded], dict | None]]:
    """A graded file's rows, or each model's rows of a results folder (hub_folder.py);
    `name` overrides every row's model."""
    if os.path.isdir(path):
        from . import hub_folder

        runs = hub_folder.read_folder(path)
        if name and len(runs) > 1:   # one name for several models would merge their rows
            raise OptionError("names", f"{name!r} for {path}: that results folder holds "
                                       f"{len(runs)} models, and --name names one; leave "
                                       "--name out for it to keep the models' own names")
        return [(_rows(enumerate(dicts, start=1), path, name or "", name), run_json)
                for dicts, run_json in runs]
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such file (expected a graded .jsonl file)")
    run_json = read_run_json(path)
    rows = _rows(iter_jsonl(path), path, name or _default_name(path, run_json), name)
    if not rows:
        raise DataError("no rows", path=path, expected="at least one graded row")
    return [(rows, run_json)]


def _rows(lines: Iterable[tuple[int, Any]], path: str, model: str,
          name: str | None) -> list[Graded]:
    rows = [parse_row(d, path=path, line=n, model=model) for n, d in lines]
    if name:
        for row in rows:
            row.response.model = name
    return rows
