"""CFE-Bench graded rows, read for the report: what the shared reader keeps (report/load.py:
id, run, model, question status, tokens...) plus the per-variable verdicts, the modality
and the subject.

The shared reader checks every row and groups them by model (the same names, the same
duplicate refusal as General365's report); the CFE fields are then read from the same
lines and checked here, one DataError naming file:line, id and field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ...errors import DataError
from ...jsonl import iter_jsonl
from ...report.load import GradedRow, ModelRuns, load_graded
from ...schema import Status

MODALITIES = ("text", "mm")


@dataclass(frozen=True)
class VariableRow:
    name: str
    type: str
    status: Status
    method: str | None = None

    @property
    def correct(self) -> bool:
        return self.status is Status.CORRECT


@dataclass(frozen=True)
class CFERow:
    id: str
    run: int
    model: str
    status: Status
    modality: str
    variables: tuple[VariableRow, ...]
    subject: str | None = None
    path: str = ""
    line: int = 0

    @property
    def correct(self) -> bool:
        return self.status is Status.CORRECT

    @property
    def graded_variables(self) -> int:
        return sum(v.status is not Status.UNGRADED for v in self.variables)

    @property
    def correct_variables(self) -> int:
        return sum(v.correct for v in self.variables)

    @property
    def score(self) -> float | None:
        g = self.graded_variables
        return self.correct_variables / g if g else None


@dataclass
class CFEModel:
    name: str
    rows: list[CFERow] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def parse_cfe_fields(d: Mapping[str, Any], base: GradedRow) -> CFERow:
    where = {"path": base.path, "line": base.line, "row_id": base.id}
    raw = d.get("variables")
    if not isinstance(raw, list) or not raw:
        raise DataError("missing field" if raw is None else "wrong type", field="variables",
                        value=raw, expected="a CFE-Bench graded row: a list of graded "
                                            "variables (run `general365 grade` on it)", **where)
    variables = []
    for i, v in enumerate(raw):
        if not isinstance(v, Mapping) or not isinstance(v.get("name"), str):
            raise DataError("wrong type", field=f"variables[{i}]", value=v,
                            expected="an object with name, type, status", **where)
        status = Status.parse(v.get("status"), field=f"variables[{i}].status", **where)
        vtype = v.get("type")
        method = v.get("method")
        variables.append(VariableRow(v["name"], vtype if isinstance(vtype, str) else "?",
                                     status, method if isinstance(method, str) else None))
    from .grade import question_status

    expected = question_status([v.status for v in variables])
    if expected is not base.status:
        raise DataError("contradicts the variables' statuses", field="status",
                        value=base.status.value,
                        expected=f"{expected.value!r} (correct only when every variable is)",
                        **where)
    modality = d.get("modality", "text")
    if modality not in MODALITIES:
        raise DataError("unknown modality", field="modality", value=modality,
                        expected="text or mm", **where)
    subject = d.get("subject")
    if subject is not None and not isinstance(subject, str):
        raise DataError("wrong type", field="subject", value=subject, expected="a string",
                        **where)
    return CFERow(base.id, base.run, base.model, base.status, modality, tuple(variables),
                  subject or None, base.path, base.line)


def from_model_runs(models: Sequence[ModelRuns]) -> list[CFEModel]:
    """The CFE view of models the shared reader loaded: each file read once more."""
    wanted: dict[tuple[str, int], list[tuple[int, GradedRow]]] = {}
    out = [CFEModel(m.name, files=list(m.files)) for m in models]
    for i, m in enumerate(models):
        for row in m.rows:
            wanted.setdefault((row.path, row.line), []).append((i, row))
    paths = dict.fromkeys(p for p, _ in wanted)
    for path in paths:
        for n, d in iter_jsonl(path):
            for i, base in wanted.get((path, n), ()):
                out[i].rows.append(parse_cfe_fields(d, base))
    for m in out:
        m.rows.sort(key=lambda r: (r.path, r.line))
    return out


def read_cfe_graded(paths: Sequence[str], names: Sequence[str] | None = None
                    ) -> list[CFEModel]:
    """CFE graded files, checked and grouped by model."""
    return from_model_runs(load_graded(paths, names))
