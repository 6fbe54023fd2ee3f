"""The `evaluate` metric's logic, kept in the package so the Space script
(metric/general365/general365.py) stays a thin wrapper and training loops can call
`compute` without evaluate. Grading is `grading.hybrid.grade_iter`, as on the CLI; the
default output is flat numbers under keys that every logger takes (`flat_scores`).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from .errors import OptionError, UserError
from .grading.summary import GradeSummary, VerdictCounts
from .metric_inputs import (  # noqa: F401 (the Space script reaches them through here)
    fill_optional_inputs, float_round_as_text, split_reference_row, split_references)
from .schema import Problem, Response

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
    categories (list of list of str, optional): challenge categories, for the breakdown.
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
            "categories": list(categories[i] or ()) if categories is not None else [],
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
