"""CFE-Bench graded rows: the Variable score and question status the grader and the report
share; the rows read back (the shared reader's, with `parts`, modality and subject checked
here); the measures over them, as docs/cfe-bench.md's "Measures" defines them; and, for the
grading audit (docs/cfe-bench.md, "Judge validation"), `variable_rows`: each graded variable
as a graded row of its own (id `QUESTION#VARIABLE`), so that `general365 audit sample` and
`score` run on variables.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from math import comb
from typing import Any, Iterable, Iterator, Mapping, Sequence

from ...errors import DataError
from ...jsonl import iter_jsonl, write
from ...reporting.load import ModelRuns, load_graded
from ...schema import Graded, Status

MODALITIES = ("text", "mm")


class Verdicted:
    """`correct` for anything with a `status` (a variable's or a question's)."""

    status: Status

    @property
    def correct(self) -> bool:
        return self.status is Status.CORRECT


class VariableScore:
    """The Variable score from `variables` (each with a `status`): of a row being graded
    (grade.CFEGraded) and one read back (CFERow) alike."""

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
class VariableRow(Verdicted):
    name: str
    type: str
    status: Status
    method: str | None = None


@dataclass(frozen=True)
class CFERow(Verdicted, VariableScore):
    id: str
    run: int
    model: str
    status: Status
    modality: str
    variables: tuple[VariableRow, ...]
    subject: str | None = None
    path: str = ""
    line: int = 0


@dataclass
class CFEModel:
    name: str
    rows: list[CFERow] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def cfe_row(row: Graded) -> CFERow:
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
    return [CFEModel(m.name, [cfe_row(r) for r in m.rows], list(m.files)) for m in models]


def read_cfe_graded(paths: Sequence[str], names: Sequence[str] | None = None
                    ) -> list[CFEModel]:
    """CFE graded files, checked and grouped by model."""
    return from_model_runs(load_graded(paths, names))


# --- measures ------------------------------------------------------------------------


@dataclass(frozen=True)
class Accuracy:
    questions: int                   # rows (question x run)
    graded_questions: int
    correct_questions: int
    variable_accuracy: float | None
    variables: int
    graded_variables: int
    correct_variables: int

    @property
    def question_accuracy(self) -> float | None:
        return self.correct_questions / self.graded_questions if self.graded_questions else None

    @property
    def variable_coverage(self) -> float | None:
        return self.graded_variables / self.variables if self.variables else None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def accuracy(rows: Iterable[CFERow]) -> Accuracy:
    rows = list(rows)
    return Accuracy(
        questions=len(rows),
        graded_questions=sum(r.status is not Status.UNGRADED for r in rows),
        correct_questions=sum(r.correct for r in rows),
        variable_accuracy=_mean([r.score for r in rows if r.score is not None]),
        variables=sum(len(r.variables) for r in rows),
        graded_variables=sum(r.graded_variables for r in rows),
        correct_variables=sum(r.correct_variables for r in rows))


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k runs drawn from n (c right) is right."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


@dataclass(frozen=True)
class RunStats:
    runs: int                        # distinct runs
    per_run: dict[int, Accuracy]
    pass_at: dict[int, float | None]  # k -> pass@k (Question correctness)
    avg_at_n: float | None           # mean over questions of the share of runs right
    variable_avg_at_n: float | None  # mean over questions of their mean Variable score


def run_stats(rows: Sequence[CFERow], ks: Sequence[int] = ()) -> RunStats:
    by_run: dict[int, list[CFERow]] = defaultdict(list)
    by_question: dict[str, list[CFERow]] = defaultdict(list)
    for r in rows:
        by_run[r.run].append(r)
        by_question[r.id].append(r)
    n_runs = len(by_run)
    ks = sorted(set(ks) | {1, n_runs}) if n_runs else []
    passes: dict[int, list[float]] = {k: [] for k in ks}
    shares, var_shares = [], []
    for q in by_question.values():
        graded = [r for r in q if r.status is not Status.UNGRADED]
        right = sum(r.correct for r in graded)
        for k in ks:
            if len(graded) >= k:
                passes[k].append(pass_at_k(len(graded), right, k))
        if graded:
            shares.append(right / len(graded))
        scores = [r.score for r in q if r.score is not None]
        if scores:
            var_shares.append(sum(scores) / len(scores))
    return RunStats(n_runs, {k: accuracy(v) for k, v in sorted(by_run.items())},
                    {k: _mean(v) for k, v in passes.items()}, _mean(shares), _mean(var_shares))


def by_key(rows: Iterable[CFERow], key) -> dict[str, Accuracy]:
    groups: dict[str, list[CFERow]] = defaultdict(list)
    for r in rows:
        k = key(r)
        if k is not None:
            groups[k].append(r)
    return {k: accuracy(v) for k, v in sorted(groups.items())}


@dataclass(frozen=True)
class VariableTally:
    variables: int
    counts: dict[str, int]           # status -> variables

    @property
    def graded(self) -> int:
        return self.variables - self.counts.get(Status.UNGRADED.value, 0)

    @property
    def accuracy(self) -> float | None:
        return self.counts.get(Status.CORRECT.value, 0) / self.graded if self.graded else None


def variable_tallies(rows: Iterable[CFERow], key) -> dict[str, VariableTally]:
    """Variable-level status counts, grouped by `key(variable)` (its type, its method...)."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        for v in r.variables:
            counts[key(v)][v.status.value] += 1
    return {k: VariableTally(sum(c.values()), dict(c)) for k, c in sorted(counts.items())}


# --- per-variable rows for the grading audit ---------------------------------------

SEPARATOR = "#"
_KEEP = ("run", "model", "response", "reasoning", "output_tokens", "reasoning_tokens",
         "finish_reason", "sampling", "modality", "subject")


def variable_rows(path: str) -> Iterator[dict[str, Any]]:
    """One graded row per graded variable of the CFE graded file `path`."""
    for n, d in iter_jsonl(path):
        if not isinstance(d, Mapping):
            raise DataError("not a JSON object", path=path, line=n,
                            expected="one graded row a line")
        parts = d.get("parts")
        if not isinstance(parts, list) or not parts:
            raise DataError("missing field", path=path, line=n, row_id=d.get("id"),
                            field="parts", expected="a CFE-Bench graded row (one graded part "
                                                    "per variable)")
        gold = d.get("variables") if isinstance(d.get("variables"), list) else []
        described = {g.get("name"): g.get("description") for g in gold
                     if isinstance(g, Mapping)}
        for i, v in enumerate(parts):
            if not isinstance(v, Mapping) or not isinstance(v.get("name"), str):
                raise DataError("wrong type", path=path, line=n, row_id=d.get("id"),
                                field=f"parts[{i}]", expected="a graded variable")
            status = Status.parse(v.get("status"), path=path, line=n, row_id=d.get("id"),
                                  field=f"parts[{i}].status")
            description = described.get(v["name"]) or ""
            row = {k: d[k] for k in _KEEP if k in d}
            row.update({
                "id": f"{d.get('id')}{SEPARATOR}{v['name']}",
                "benchmark": "cfe-variable",
                "question": f"{d.get('question') or ''}\n\nVariable: {v['name']} "
                            f"({v.get('type')}): {description}".strip(),
                "answer": v.get("value"),
                "variable_type": v.get("type"),
                "status": status.value, "correct": status is Status.CORRECT,
                "method": v.get("method"), "extracted": v.get("extracted"),
            })
            if v.get("detail"):
                row["detail"] = v["detail"]
            if isinstance(v.get("judge"), Mapping):
                row["judge"] = v["judge"]
            yield row


def write_variable_rows(graded: str, out: str) -> int:
    """Write `variable_rows(graded)` to `out` (whole or not at all); returns the count."""
    return write(out, list(variable_rows(graded)))
