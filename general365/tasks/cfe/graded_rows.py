"""CFE-Bench graded rows: the Variable score and the question status that the grader and
the report share (VariableScore, question_status), and the rows read back for the report:
the shared reader's rows (reporting/load.py: schema.Graded, every field checked, grouped by
model, duplicates refused) with each row's `parts` (one verdict per variable), modality and
subject checked here, one DataError naming file:line, id and field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ...errors import DataError
from ...reporting.load import ModelRuns, load_graded
from ...schema import Graded, Status

MODALITIES = ("text", "mm")


class VariableScore:
    """The Variable score of a question, from its `variables` (each with a `status`): for
    a row being graded (grade.CFEGraded) and one read back (CFERow) alike."""

    variables: Sequence

    @property
    def graded_variables(self) -> int:
        return sum(v.status is not Status.UNGRADED for v in self.variables)

    @property
    def correct_variables(self) -> int:
        return sum(v.status is Status.CORRECT for v in self.variables)

    @property
    def score(self) -> float | None:
        """The share of graded variables that are right (None: none graded)."""
        g = self.graded_variables
        return self.correct_variables / g if g else None


def question_status(statuses: Sequence[Status]) -> Status:
    """One question's status from its variables': correct when all are; incorrect when one
    is incorrect, or some (not all) are unstated; no_answer when none is stated; else the
    first failure (judge_failed, timeout); ungraded when the rest are correct and some
    could not be graded."""
    s = list(statuses)
    if s and all(x is Status.CORRECT for x in s):
        return Status.CORRECT
    if Status.INCORRECT in s:
        return Status.INCORRECT
    if Status.NO_ANSWER in s:
        return Status.NO_ANSWER if all(x is Status.NO_ANSWER for x in s) else Status.INCORRECT
    for failure in (Status.JUDGE_FAILED, Status.TIMEOUT):
        if failure in s:
            return failure
    return Status.UNGRADED


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
class CFERow(VariableScore):
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


@dataclass
class CFEModel:
    name: str
    rows: list[CFERow] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def cfe_row(row: Graded) -> CFERow:
    """The CFE view of one graded row (read by the shared reader)."""
    where = {"path": row.path, "line": row.line, "row_id": row.id}
    raw = row.verdict.parts
    if not raw:
        raise DataError("missing field" if raw is None else "wrong type", field="parts",
                        value=raw, expected="a CFE-Bench graded row: one graded part per "
                                            "variable (run `general365 grade` on it)", **where)
    variables = []
    for i, v in enumerate(raw):
        if not isinstance(v.get("name"), str):
            raise DataError("wrong type", field=f"parts[{i}].name", value=v.get("name"),
                            expected="the variable's name", **where)
        status = Status.parse(v.get("status"), field=f"parts[{i}].status", **where)
        vtype = v.get("type")
        method = v.get("method")
        variables.append(VariableRow(v["name"], vtype if isinstance(vtype, str) else "?",
                                     status, method if isinstance(method, str) else None))
    expected = question_status([v.status for v in variables])
    if expected is not row.status:
        raise DataError("contradicts the parts' statuses", field="status",
                        value=row.status.value,
                        expected=f"{expected.value!r} (correct only when every variable is)",
                        **where)
    fields = {**row.response.inline, **row.response.extra}
    modality = fields.get("modality", "text")
    if modality not in MODALITIES:
        raise DataError("unknown modality", field="modality", value=modality,
                        expected="text or mm", **where)
    subject = fields.get("subject")
    if subject is not None and not isinstance(subject, str):
        raise DataError("wrong type", field="subject", value=subject, expected="a string",
                        **where)
    return CFERow(row.id, row.run, row.model or "", row.status, modality, tuple(variables),
                  subject or None, row.path, row.line)


def from_model_runs(models: Sequence[ModelRuns]) -> list[CFEModel]:
    """The CFE view of the models the shared reader loaded."""
    return [CFEModel(m.name, [cfe_row(r) for r in m.rows], list(m.files)) for m in models]


def read_cfe_graded(paths: Sequence[str], names: Sequence[str] | None = None
                    ) -> list[CFEModel]:
    """CFE graded files, checked and grouped by model."""
    return from_model_runs(load_graded(paths, names))
