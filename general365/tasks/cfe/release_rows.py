"""One release row checked into a CFEProblem (parse_row), and every row of the release's
files checked at once (parse_rows), each bad row a DataError naming file, row number, id,
field and what was expected; the rules are data.py's."""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from ...errors import DataError, DataErrors
from ...validators import is_finite, is_int
from .records import (DUPLICATE_MARK, FILES, MAX_TOLERANCE, CFEProblem, FlowStep, Variable,
                      VariableType)

class _RowCheck:
    """Checks of one raw row; every failure is a DataError naming the row."""

    def __init__(self, raw: Any, path: str, index: int):
        self.raw, self.path, self.index = raw, path, index
        self.row_id: str | None = None

    def fail(self, message: str, field: str | None = None, value: Any = None,
             expected: str | None = None) -> DataError:
        return DataError(message, path=self.path, line=self.index, row_id=self.row_id,
                         field=field, value=value, expected=expected)

    def get(self, d: Mapping[str, Any], key: str, where: str | None = None) -> Any:
        name = f"{where}.{key}" if where else key
        if key not in d or d[key] is None:
            raise self.fail("missing field", name, expected=_EXPECTED.get(name, "a value"))
        return d[key]

    def text(self, value: Any, name: str, *, empty: bool = True) -> str:
        if not isinstance(value, str):
            raise self.fail("wrong type", name, value, "a string")
        if not empty and not value.strip():
            raise self.fail("empty", name, value, "a non-empty string")
        return value

    def strings(self, value: Any, name: str, *, scalars: bool = False) -> list[str]:
        if not isinstance(value, list):
            raise self.fail("wrong type", name, value, "a list of strings")
        out = []
        for i, v in enumerate(value):
            if scalars and is_finite(v):
                v = str(v)   # a number where the release writes text: read as written
            if not isinstance(v, str):
                raise self.fail("wrong type", f"{name}[{i}]", v, "a string")
            out.append(v)
        return out


_EXPECTED = {
    "id": "a non-empty string",
    "question": "an object with 'text' and 'images'",
    "question.text": "the question as a non-empty string",
    "answer": "an object with 'text' (the instructor's solution) and 'images'",
    "short_answer_value": "a list with one gold value per variable",
    "short_answer_variable": "a list of variable names",
    "short_answer_description": "a list with one description per variable",
    "short_answer_type": "a list of numeric | formula | other, one per variable",
    "reasoning_flow": "a list of {step_id, step, verifiable_answer}",
}

_LISTS = ("short_answer_variable", "short_answer_value", "short_answer_description",
          "short_answer_type")


def _tolerance(row: _RowCheck, value: Any, name: str) -> float | None:
    if value is None:
        return None
    if not is_finite(value) or not 0 <= value <= MAX_TOLERANCE:
        raise row.fail("bad tolerance", name, value,
                       f"a relative tolerance from 0 to {MAX_TOLERANCE} (0.01 = 1%)")
    return float(value)


def _images(row: _RowCheck, value: Any, name: str, folder: Path | None) -> tuple[str, ...]:
    paths = row.strings(value, name)
    if folder is None:
        return tuple(paths)
    root = folder.resolve()
    out = []
    for i, p in enumerate(paths):
        where = f"{name}[{i}]"
        if not p.strip() or os.path.isabs(p):
            raise row.fail("bad image path", where, p, "a path relative to the data folder")
        full = (folder / p).resolve()
        if root not in full.parents:
            raise row.fail("image path leaves the data folder", where, p,
                           "a path inside the data folder")
        if not full.is_file():
            raise row.fail("image file not found", where, p, f"a file under {folder}")
        out.append(str(full))
    return tuple(out)


def _flow(row: _RowCheck, value: Any) -> tuple[FlowStep, ...]:
    if not isinstance(value, list):
        raise row.fail("wrong type", "reasoning_flow", value, _EXPECTED["reasoning_flow"])
    steps = []
    for i, s in enumerate(value):
        where = f"reasoning_flow[{i}]"
        if not isinstance(s, Mapping):
            raise row.fail("wrong type", where, s, "an object {step_id, step, verifiable_answer}")
        sid = s.get("step_id")
        if not is_int(sid) or sid < 0:
            raise row.fail("bad step_id", f"{where}.step_id", sid, "a non-negative integer")
        step = row.text(s.get("step"), f"{where}.step", empty=False)
        ans = s.get("verifiable_answer")
        if isinstance(ans, float) and not math.isfinite(ans):
            ans = None
        if not isinstance(ans, (str, int, float, bool)):
            raise row.fail("bad verifiable_answer", f"{where}.verifiable_answer", ans,
                           "a string, number or boolean")
        steps.append(FlowStep(sid, step, ans))
    # Steps are kept in the order given: the release numbers one flow 1, 2, 2, 3, ...
    return tuple(steps)


def parse_row(raw: Any, *, path: str, index: int, modality: str | None,
              folder: Path | None) -> CFEProblem:
    """One release row as a CFEProblem; a DataError names what is wrong with it."""
    row = _RowCheck(raw, path, index)
    if not isinstance(raw, Mapping):
        raise row.fail("not a JSON object", value=raw, expected="one object per problem")
    rid = row.get(raw, "id")
    if is_int(rid):
        rid = str(rid)
    row.row_id = rid if isinstance(rid, str) else None
    rid = row.text(rid, "id", empty=False)
    q = row.get(raw, "question")
    if not isinstance(q, Mapping):
        raise row.fail("wrong type", "question", q, _EXPECTED["question"])
    question = row.text(row.get(q, "text", "question"), "question.text", empty=False)
    images = _images(row, q.get("images") or [], "question.images", folder)
    a = raw.get("answer") or {}
    if not isinstance(a, Mapping):
        raise row.fail("wrong type", "answer", a, _EXPECTED["answer"])
    solution = row.text(a.get("text") or "", "answer.text")
    solution_images = _images(row, a.get("images") or [], "answer.images", folder)
    lists = {k: row.get(raw, k) for k in _LISTS}
    names = row.strings(lists["short_answer_variable"], "short_answer_variable")
    values = row.strings(lists["short_answer_value"], "short_answer_value", scalars=True)
    descs = row.strings(lists["short_answer_description"], "short_answer_description")
    types = row.strings(lists["short_answer_type"], "short_answer_type")
    if not names:
        raise row.fail("no variables", "short_answer_variable", names,
                       "at least one answer variable")
    for k, got in (("short_answer_value", values), ("short_answer_description", descs),
                   ("short_answer_type", types)):
        if len(got) != len(names):
            raise row.fail(f"{len(got)} entries for {len(names)} variables", k, got,
                           "one entry per short_answer_variable")
    tolerances = raw.get("short_answer_tolerance")
    if tolerances is not None and (not isinstance(tolerances, list)
                                   or len(tolerances) != len(names)):
        raise row.fail("wrong shape", "short_answer_tolerance", tolerances,
                       "a list with one tolerance (or null) per variable")
    variables = []
    for i, (n, v, d, t) in enumerate(zip(names, values, descs, types)):
        n = row.text(n, f"short_answer_variable[{i}]", empty=False).strip()
        if n in [x.name for x in variables]:
            raise row.fail("a variable name appears twice", f"short_answer_variable[{i}]", n,
                           "distinct variable names")
        if not v.strip():
            raise row.fail("empty", f"short_answer_value[{i}]", v, "the gold value")
        try:
            vt = VariableType(t.strip().lower())
        except ValueError:
            raise row.fail("unknown variable type", f"short_answer_type[{i}]", t,
                           "numeric, formula or other") from None
        tol = _tolerance(row, tolerances[i], f"short_answer_tolerance[{i}]") \
            if tolerances is not None else None
        variables.append(Variable(n, vt, d.strip(), v.strip(), tol))
    flow = _flow(row, raw.get("reasoning_flow") or [])
    subject = raw.get("subject", raw.get("field"))
    if subject is not None:
        subject = row.text(subject, "subject", empty=False).strip()
    mod = modality or ("mm" if images else "text")
    if mod == "text" and images:
        raise row.fail("images in a text-only file", "question.images", len(images),
                       f"no images (multimodal rows belong in {FILES['mm']})")
    return CFEProblem(id=rid, question=question, variables=tuple(variables), modality=mod,
                      images=images, solution=solution, solution_images=solution_images,
                      reasoning_flow=flow, subject=subject,
                      tolerance=_tolerance(row, raw.get("tolerance"), "tolerance"),
                      source=f"{path}:{index}")


def parse_rows(files: Iterable[tuple[Path, str | None, list[Any]]], *,
               folder: Path | None) -> tuple[list[CFEProblem], list[str]]:
    """Check every row of every file; raises DataErrors listing each bad row once."""
    problems: list[CFEProblem] = []
    errors: list[DataError] = []
    seen: dict[str, int] = {}
    renamed: list[str] = []
    for path, modality, rows in files:
        for i, raw in enumerate(rows, start=1):
            try:
                p = parse_row(raw, path=str(path), index=i, modality=modality, folder=folder)
            except DataError as exc:
                errors.append(exc)
                continue
            k = seen.get(p.id, 0) + 1
            seen[p.id] = k
            if k > 1:
                new = f"{p.id}{DUPLICATE_MARK}{k}"
                renamed.append(f"{p.source} -> {new[:12]}...{new[-3:]}")
                p = dataclasses.replace(p, id=new, source_id=p.id)
            problems.append(p)
    if errors:
        raise DataErrors(errors)
    final: dict[str, CFEProblem] = {}
    for p in problems:   # a release id that already reads like a renamed duplicate
        if p.id in final:
            errors.append(DataError("the id collides with a renamed duplicate",
                                    path=p.source.rsplit(":", 1)[0],
                                    line=int(p.source.rsplit(":", 1)[1]), row_id=p.id,
                                    field="id", expected=f"ids without '{DUPLICATE_MARK}N' "
                                                         "suffixes"))
        final[p.id] = p
    if errors:
        raise DataErrors(errors)
    notes = []
    if renamed:
        notes.append(f"{len(renamed)} row(s) repeat an earlier id and were renamed ID~k "
                     f"(source_id keeps the release's id): " + "; ".join(renamed))
    return problems, notes
