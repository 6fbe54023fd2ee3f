"""The `evaluate` metric's logic, kept in the package so the Space script
(metric/general365/general365.py) stays a thin wrapper and training loops can call
`compute` without evaluate. Grading is `grading.hybrid.grade_iter`, as on the CLI; the
default output is flat numbers under keys that every logger takes (`flat_scores`).

The inputs: evaluate checks every input against one typed value per row, so a reference
cannot be a dict there: rows (a `datasets.Dataset`, a list of dicts or of `Problem`, a dict
of columns) are split before evaluate sees them (`split_references`), into the gold strings
and the answer_type, float_round, question and categories columns.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from typing import Any, Sequence

from .errors import OptionError, UserError
from .grading.summary import GradeSummary, VerdictCounts
from .schema import Problem, Response
from .validators import is_int

CITATION = """\
@article{general365,
  title   = {General365: Benchmarking General Reasoning in Large Language Models Across Diverse and Challenging Tasks},
  author  = {{Meituan LongCat Team}},
  year    = {2026},
  url     = {https://general365.github.io}
}
"""

DESCRIPTION = """\
General365 measures general reasoning with K-12 knowledge across eight challenge
categories. This metric grades model outputs the way the benchmark does: math-verify with
each problem's `float_round` for number and interval answers, an option-letter grader or the
official LLM-judge prompt for choice answers, and the judge for text answers. The answer is
taken from the last \\boxed{} after the model's reasoning block; a reasoning block that was
never closed has no answer.
"""

KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): the models' full outputs.
    references: the gold answers (list of str), or the dataset's own rows: a
        datasets.Dataset, a list of dicts, or a dict of columns, each row with answer,
        answer_type, float_round and optionally question and categories. With rows,
        answer_type/float_round/question/categories are read from them.
    answer_type (list of str): number | interval | single_choice | multiple_choice | text
        (only with plain-string references).
    float_round (list of int or str): decimal places the gold was rounded to (0 = exact).
    question (list of str, optional): the questions (the judge needs them).
    categories (list of list of str, optional): challenge categories, for the breakdown (an
        item may also be the release's text form, "A; B").
    policy (str, optional): "rule" (no judge, no network; text answers are left ungraded),
        "paper" (rule for number/interval, judge for choice/text) or "cascade" (rule first,
        the judge wherever the rule does not find the answer correct). Default: "paper" when
        a judge is given, else "rule".
    judge (optional): a general365.grading.judge.Judge, a dict of its arguments
        ({"model": "gpt-4.1", "base_url": ...}), or a model name.
    workers (int, optional): rule-grading processes (default: CPU count).
    timeout (float, optional): per-answer time limit of the rule grader, in seconds.
    breakdown (bool): also return the nested breakdown (statuses, by_answer_type,
        by_category, policy).
    return_details (bool): also return one verdict per prediction (`details`).
Returns:
    Flat numbers only (by default): accuracy (correct / graded; 0.0 when nothing was
    graded), coverage (graded / total; 0.0 when there is nothing), total, graded, correct;
    status/<status> counts; per answer type and per category (slugged: lowercase, runs of
    other characters as "_"): total/<group>, graded/<group>, correct/<group>, and
    accuracy/<group> when that group has graded rows.
Examples:
    >>> import evaluate, general365
    >>> metric = evaluate.load(general365.METRIC_PATH)
    >>> metric.compute(predictions=["... so \\\\boxed{12}"], references=["12"],
    ...                answer_type=["number"], float_round=[0])["accuracy"]
    1.0
"""


def _make_judge(judge):
    if judge is None or callable(getattr(judge, "judge_batch", None)):
        return judge
    from .grading.judge import Judge

    if isinstance(judge, str):
        return Judge(model=judge)
    if isinstance(judge, dict):
        return Judge(**judge)
    raise OptionError("judge", f"must be a Judge, a dict of Judge arguments or a model name "
                               f"(got {type(judge).__name__})")


# --- the flat output -------------------------------------------------------------------

_SLUG_RE = re.compile(r"[^a-z0-9]+")


def slug(name: str) -> str:
    """A group's key part: lowercase, every run of other characters one "_"
    ("Spatial & Temporal" -> "spatial_temporal"): every logger takes such keys as they are."""
    return _SLUG_RE.sub("_", name.lower()).strip("_")


def _rate(num: int, den: int) -> float:
    # Never None (loggers drop or choke on it) and never NaN (it breaks JSON and
    # metric_for_best_model): nothing graded scores 0.0, and `graded` says why.
    return num / den if den else 0.0


def flat_scores(summary: GradeSummary) -> dict[str, int | float]:
    """The default output: numbers only, one level, keys joined with "/"."""
    o = summary.overall
    out: dict[str, Any] = {
        "accuracy": _rate(o.correct, o.graded),
        "coverage": _rate(o.graded, o.total),
        "total": o.total, "graded": o.graded, "correct": o.correct,
    }
    for status, n in summary.counts.items():
        out[f"status/{status}"] = n
    for name, tally in [*sorted(summary.by_type.items()), *sorted(summary.by_category.items())]:
        out.update((f"{k}/{slug(name)}", v) for k, v in _nested(tally).items())
    return out


def _nested(tally: VerdictCounts) -> dict[str, Any]:
    d: dict[str, Any] = {"total": tally.total, "graded": tally.graded, "correct": tally.correct}
    if tally.graded:  # a group with nothing graded (text under `rule`) has no accuracy key
        d["accuracy"] = tally.correct / tally.graded
    return d


# --- compute ---------------------------------------------------------------------------


def compute(predictions: Sequence[str], references, answer_type: Sequence[str] | None = None,
            float_round: Sequence[Any] | None = None, question: Sequence[str] | None = None,
            categories: Sequence[Sequence[str]] | None = None, policy: str | None = None,
            judge=None, workers: int | None = None, timeout: float | None = None,
            breakdown: bool = False, return_details: bool = False) -> dict[str, Any]:
    given = {"answer_type": answer_type, "float_round": float_round, "question": question,
             "categories": categories}
    references, columns = split_references(references, {k: v for k, v in given.items()
                                                        if v is not None})
    answer_type, float_round = columns.get("answer_type"), columns.get("float_round")
    question, categories = columns.get("question"), columns.get("categories")
    n = len(predictions)
    if answer_type is None:
        raise UserError("answer_type is missing: pass answer_type=[...] beside plain-string "
                        "references, or pass the dataset's rows as references")
    for name, column in (("references", references), ("answer_type", answer_type),
                         ("float_round", float_round), ("question", question),
                         ("categories", categories)):
        if column is not None and len(column) != n:
            raise UserError(f"{name} has {len(column)} items, predictions has {n}")
    for i, prediction in enumerate(predictions):
        if prediction is not None and not isinstance(prediction, str):
            raise UserError(f"predictions[{i}] is a {type(prediction).__name__}; expected "
                            "every prediction to be the model's output as a string (or None)")
    judge = _make_judge(judge)
    from .grading.engine import default_policy

    policy = default_policy(policy, judge)
    problems, responses = [], []
    for i in range(n):
        problems.append(Problem.from_dict({
            "id": str(i),
            "question": (question[i] if question is not None and question[i] else "(not given)"),
            "answer": references[i],
            "answer_type": answer_type[i],
            "float_round": float_round[i] if float_round is not None else 0,
            "categories": _category_list(categories[i]) if categories is not None else [],
        }, line=i))
        responses.append(Response(id=str(i), run=0, response=predictions[i] or ""))

    from .grading.hybrid import grade_iter

    kwargs: dict[str, Any] = {"policy": policy, "judge": judge, "workers": workers}
    if timeout is not None:
        kwargs["timeout"] = timeout
    summary = GradeSummary()
    details = []
    for graded in grade_iter(responses, problems, **kwargs):  # `Graded` rows, in order
        summary.add(graded)
        if return_details:
            details.append(graded.verdict.to_dict())
    out: dict[str, Any] = flat_scores(summary)
    if breakdown:
        out.update(statuses=summary.counts,
                   by_answer_type={k: _nested(t) for k, t in sorted(summary.by_type.items())},
                   by_category={k: _nested(t) for k, t in summary.by_category.items()},
                   policy=policy)
    if return_details:
        out["details"] = details
    return out


# --- the inputs ------------------------------------------------------------------------

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
