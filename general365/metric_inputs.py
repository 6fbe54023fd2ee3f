"""The metric's inputs: references given as the dataset's own rows, split into the columns
the metric declares. evaluate checks every input against one typed value per row, so a
reference cannot be a dict there: rows (a `datasets.Dataset`, a list of dicts or of
`Problem`, a dict of columns) are split before evaluate sees them, into the gold strings
and the answer_type, float_round, question and categories columns.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import UserError
from .validators import is_int

ROW_FIELDS = ("answer_type", "float_round", "question", "categories")
_OPTIONAL = {"question": "", "categories": []}


def fill_optional_inputs(predictions, kwargs: dict[str, Any]) -> dict[str, Any]:
    """evaluate needs every declared input; give the optional ones their empty defaults."""
    kwargs = dict(kwargs)
    n = len(predictions) if predictions is not None else 0
    for name, empty in _OPTIONAL.items():
        if kwargs.get(name) is None:
            kwargs[name] = [type(empty)() for _ in range(n)]
    if n == 0:   # no input scores 0.0 (README), with or without the columns it would need
        for name in ("answer_type", "float_round"):
            if kwargs.get(name) is None:
                kwargs[name] = []
    return kwargs


def _round_text(v: Any) -> Any:
    if isinstance(v, (bool, str)) or v is None:
        return v   # a bool is refused by the grader's own check, with its message
    if isinstance(v, numbers.Integral) or (isinstance(v, numbers.Real)   # numpy's too
                                           and float(v).is_integer()):
        return str(int(v))
    return v


def float_round_as_text(kwargs: dict[str, Any]) -> dict[str, Any]:
    """float_round as text, whichever way it came (the official release writes "2", the
    Hub layout 2): with two feature sets evaluate picks one from the first example, and
    fails on an empty input, which must score 0.0. The grader reads "2" as it reads 2."""
    column = kwargs.get("float_round")
    if column is None:
        return kwargs
    kwargs = dict(kwargs)
    if isinstance(column, (str, bytes)) or not hasattr(column, "__iter__"):
        kwargs["float_round"] = _round_text(column)     # one example (evaluate's add)
    else:
        kwargs["float_round"] = [_round_text(v) for v in column]
    return kwargs


def _columns_of_dataset(ds) -> dict[str, list]:
    names = set(ds.column_names or ())
    if "answer" not in names:
        raise UserError("the references dataset has no 'answer' column (its columns: "
                        f"{', '.join(sorted(names)) or 'none'})")
    if not hasattr(ds, "__len__"):  # an IterableDataset: read it once, row by row
        return _columns_of_rows(list(ds))
    return {name: list(ds[name]) for name in ("answer", *ROW_FIELDS) if name in names}


def _columns_of_mapping(cols: Mapping) -> dict[str, list]:
    if "answer" not in cols:
        raise UserError("references is a dict of columns without an 'answer' column (its keys: "
                        f"{', '.join(sorted(map(str, cols))) or 'none'})")
    out = {}
    for name in ("answer", *ROW_FIELDS):
        if name in cols:
            column = cols[name]
            if isinstance(column, (str, bytes, Mapping)) or not hasattr(column, "__iter__"):
                raise UserError(f"references[{name!r}] must be a list (one value per prediction)")
            out[name] = list(column)
    return out


def _as_row(row, i: int) -> Mapping:
    if isinstance(row, Mapping):
        return row
    to_dict = getattr(row, "to_dict", None)  # a general365 Problem
    if callable(to_dict) and hasattr(row, "answer_type"):
        return to_dict()
    raise UserError(f"references[{i}] is a {type(row).__name__}; expected every reference to "
                    "be a gold string, or every one a row (a dict with answer, answer_type, "
                    "float_round)")


def _columns_of_rows(rows: Sequence) -> dict[str, list]:
    rows = [_as_row(r, i) for i, r in enumerate(rows)]
    present = {name for r in rows for name in r}
    out: dict[str, list] = {}
    for name in ("answer", *ROW_FIELDS):
        if name not in present:
            continue
        out[name] = [r.get(name) for r in rows]
        missing = [i for i, v in enumerate(out[name]) if v is None]
        if name in ("answer", "answer_type") and missing:
            raise UserError(f"references[{missing[0]}] has no {name!r} (a reference row needs "
                            "answer and answer_type; float_round defaults to 0)")
    if "answer" not in out:
        raise UserError("the reference rows have no 'answer' field")
    return out


def _category_list(value) -> list:
    if value is None:
        return []
    if isinstance(value, str):  # "A, B" as the importer reads it
        return [p.strip() for p in value.replace(";", ",").split(",") if p.strip()]
    return list(value)


def _tidy(columns: dict[str, list]) -> dict[str, list]:
    """Values evaluate's typed columns take: an integer answer as its text, no None in a
    string or list column, and one type for float_round."""
    columns["answer"] = [str(a) if is_int(a) else a for a in columns["answer"]]
    if "question" in columns:
        columns["question"] = ["" if q is None else q for q in columns["question"]]
    if "categories" in columns:
        columns["categories"] = [_category_list(c) for c in columns["categories"]]
    if "float_round" in columns:
        values = [0 if v is None or v == "" else v for v in columns["float_round"]]
        if any(isinstance(v, str) for v in values) and not all(isinstance(v, str) for v in values):
            values = [str(v) if is_int(v) else v for v in values]
        columns["float_round"] = values
    return columns


def split_references(references, given: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(gold strings, columns): `references` and `given` when they are plain strings; else
    the rows' answers, and their other fields as columns (a field also in `given`: an
    error, which one was meant?)."""
    columns = dict(given)
    if references is None or isinstance(references, (str, bytes)):
        return references, columns
    if hasattr(references, "column_names") and hasattr(references, "features"):   # a Dataset
        found = _columns_of_dataset(references)
    elif isinstance(references, Mapping):
        found = _columns_of_mapping(references)
    else:
        try:
            items = list(references)
        except TypeError:
            return references, columns
        if not items or all(isinstance(r, str) for r in items):
            return references, columns
        if any(isinstance(r, str) for r in items):
            first = next(i for i, r in enumerate(items) if not isinstance(r, str))
            raise UserError(f"references mixes gold strings and rows (references[{first}] is a "
                            f"{type(items[first]).__name__}); pass one kind")
        found = _columns_of_rows(items)
    found = _tidy(found)
    if "answer_type" not in found and columns.get("answer_type") is None:
        raise UserError("the reference rows have no 'answer_type' (each row needs answer and "
                        "answer_type; float_round defaults to 0), and no answer_type= was given")
    if "float_round" not in found and columns.get("float_round") is None:
        found["float_round"] = [0] * len(found["answer"])  # rows without it: exact golds
    for name in ROW_FIELDS:
        if name in found and columns.get(name) is not None:
            raise UserError(f"{name} is given twice: in the reference rows and as {name}=; "
                            "pass one of them")
    answers = found.pop("answer")
    columns.update(found)
    return answers, columns


def split_reference_row(reference, given: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """`split_references` for one example (evaluate's `add`)."""
    if reference is None or isinstance(reference, str):
        return reference, dict(given)
    wrapped = {k: None if v is None else [v] for k, v in given.items()}
    answers, columns = split_references([reference], wrapped)
    return answers[0], {k: (v[0] if isinstance(v, list) and len(v) == 1 else v)
                        for k, v in columns.items()}
