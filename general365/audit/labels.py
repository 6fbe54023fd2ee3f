"""Reading labels files: the review page's export, `review.jsonl` with labels filled in, or
lines written by hand (docs/audit.md). A bad line stops the reading with one error; the same
(model, id, run) twice is refused (it would be counted twice)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..errors import DataError, UserError
from ..jsonl import iter_jsonl
from ..schema import AnswerType, Method, Status, row_id_and_run
from ..validators import is_int

LABELS = ("right", "wrong")
_EXPECTED_LABEL = '"right" or "wrong" (is the verdict right?), or null'


@dataclass(frozen=True)
class Label:
    model: str
    id: str
    run: int
    status: Status
    label: str            # "right" or "wrong"
    method: str | None
    answer_type: str | None
    note: str
    stratum: str | None
    stratum_size: int | None
    sample_id: str | None
    path: str
    line: int

    @property
    def graded_correct(self) -> bool:
        """The grader's decision: positive = graded correct."""
        return self.status is Status.CORRECT

    @property
    def right(self) -> bool:
        return self.label == "right"


def _opt_enum(d: Mapping[str, Any], key: str, enum, where: dict) -> str | None:
    v = d.get(key)
    if v is None:
        return None
    return enum.parse(v, field=key, **where).value


def parse_label(d: Any, *, path: str, line: int) -> Label | None:
    """One labels line, checked; None when it carries no label (not reviewed)."""
    where: dict[str, Any] = {"path": path, "line": line}

    def bad(problem: str, **detail: Any) -> DataError:   # `where` gains the id once it is read
        return DataError(problem, **where, **detail)

    if not isinstance(d, Mapping):
        raise bad("not a JSON object", value=d, expected="one JSON object a line")
    # The id and run as the graded row's own reader checks them (schema), so that a label
    # can name only a row that a graded file can hold; null run: the first run.
    rid, run = row_id_and_run({**d, "run": 0} if d.get("run") is None else d, where)
    if "label" not in d:
        raise bad("missing field", field="label", expected=_EXPECTED_LABEL)
    label = d["label"]
    if label is None:
        return None
    if label not in LABELS:
        raise bad("bad label", field="label", value=label, expected=_EXPECTED_LABEL)
    if d.get("status") is None:
        raise bad("missing field", field="status",
                  expected="the grader's status for the row (correct, incorrect, ...)")
    status = Status.parse(d["status"], field="status", **where)
    if status is Status.UNGRADED:
        raise bad("an ungraded row has no verdict to label", field="status",
                  value=status.value, expected="a status with a verdict")
    model = d.get("model") or ""
    if not isinstance(model, str):
        raise bad("wrong type", field="model", value=model, expected="a string")
    size = d.get("stratum_size")
    if size is not None and (not is_int(size) or size < 1):
        raise bad("wrong type", field="stratum_size", value=size,
                  expected="a positive integer (from audit sample) or null")
    texts = {}
    for key in ("note", "stratum", "sample_id"):
        v = d.get(key)
        if v is not None and not isinstance(v, str):
            raise bad("wrong type", field=key, value=v, expected="a string or null")
        texts[key] = v or None
    return Label(model=model, id=rid, run=run, status=status, label=label,
                 method=_opt_enum(d, "method", Method, where),
                 answer_type=_opt_enum(d, "answer_type", AnswerType, where),
                 note=texts["note"] or "", stratum=texts["stratum"], stratum_size=size,
                 sample_id=texts["sample_id"], path=path, line=line)


def read_labels(paths: Sequence[str]) -> tuple[list[Label], int]:
    """Every labelled row of `paths` (and how many rows carried no label yet)."""
    if not paths:
        raise UserError("no labels file given; expected one or more LABELS.jsonl")
    out: list[Label] = []
    unlabelled = 0
    seen: dict[tuple[str, str, int], Label] = {}
    for path in paths:
        if not os.path.isfile(path):
            what = "is a folder" if os.path.isdir(path) else "no such file"
            raise UserError(f"{path}: {what} (expected a labels .jsonl file: the review "
                            "page's export, or review.jsonl with labels filled in)")
        for n, d in iter_jsonl(path):
            lab = parse_label(d, path=path, line=n)
            if lab is None:
                unlabelled += 1
                continue
            key = (lab.model, lab.id, lab.run)
            if (first := seen.get(key)) is not None:
                raise DataError(f"the row is labelled twice (first at {first.path}:{first.line})",
                                path=path, line=n, row_id=lab.id, field="id",
                                expected="each (model, id, run) labelled once")
            seen[key] = lab
            out.append(lab)
    if not out:
        held = (f"{unlabelled} row{'s' if unlabelled != 1 else ''}, none labelled yet"
                if unlabelled else "no rows")
        raise UserError(f"{', '.join(paths)}: {held}; expected \"label\": \"right\" or "
                        "\"wrong\" on the reviewed rows")
    return out, unlabelled
