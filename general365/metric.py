"""The `evaluate` metric's logic, kept in the package so the Space script
(metric/general365/general365.py) stays a thin wrapper and training loops can call
`compute` directly without evaluate.

Each prediction is a model's full output (reasoning included); each reference is the gold
answer. Grading is `general365.grading.hybrid.grade`, with the same contract as the CLI.
"""

from __future__ import annotations

from typing import Any, Sequence

from .errors import UserError
from .grading.summary import GradeSummary
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
    references (list of str): the gold answers.
    answer_type (list of str): number | interval | single_choice | multiple_choice | text.
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
    return_details (bool): also return one verdict per prediction.
Returns:
    accuracy: correct / graded (ungraded rows are left out; see coverage),
    coverage: graded / total, total, graded, correct,
    statuses: count per status (correct, incorrect, no_answer, timeout, judge_failed, ungraded),
    by_answer_type, by_category: {name: {total, graded, correct, accuracy}},
    policy: the policy used, details (with return_details): per-prediction verdicts.
Examples:
    >>> import evaluate, general365
    >>> metric = evaluate.load(general365.METRIC_PATH)
    >>> metric.compute(predictions=["... so \\\\boxed{12}"], references=["12"],
    ...                answer_type=["number"], float_round=[0])["accuracy"]
    1.0
"""

_OPTIONAL = {"question": "", "categories": []}


def fill_optional_inputs(predictions, kwargs: dict[str, Any]) -> dict[str, Any]:
    """evaluate needs every declared input; give the optional ones their empty defaults."""
    kwargs = dict(kwargs)
    n = len(predictions) if predictions is not None else 0
    for name, empty in _OPTIONAL.items():
        if kwargs.get(name) is None:
            kwargs[name] = [type(empty)() for _ in range(n)]
    return kwargs


def _make_judge(judge):
    if judge is None or callable(getattr(judge, "judge_batch", None)):
        return judge
    from .grading.judge import Judge

    if isinstance(judge, str):
        return Judge(model=judge)
    if isinstance(judge, dict):
        return Judge(**judge)
    raise UserError(f"judge must be a Judge, a dict of Judge arguments or a model name "
                    f"(got {type(judge).__name__})")


def compute(predictions: Sequence[str], references: Sequence[str], answer_type: Sequence[str],
            float_round: Sequence[Any], question: Sequence[str] | None = None,
            categories: Sequence[Sequence[str]] | None = None, policy: str | None = None,
            judge=None, workers: int | None = None, timeout: float | None = None,
            return_details: bool = False) -> dict[str, Any]:
    n = len(predictions)
    for name, column in (("references", references), ("answer_type", answer_type),
                         ("float_round", float_round), ("question", question),
                         ("categories", categories)):
        if column is not None and len(column) != n:
            raise UserError(f"{name} has {len(column)} items, predictions has {n}")
    judge = _make_judge(judge)
    from .grading.hybrid import default_policy

    policy = default_policy(policy, judge)
    problems, responses = [], []
    for i in range(n):
        problems.append(Problem.from_dict({
            "id": str(i),
            "question": (question[i] if question is not None and question[i] else "(not given)"),
            "answer": references[i],
            "answer_type": answer_type[i],
            "float_round": float_round[i],
            "categories": list(categories[i]) if categories is not None else [],
        }, line=i))
        responses.append(Response(id=str(i), run=0, response=predictions[i] or ""))

    from .grading.hybrid import grade

    kwargs: dict[str, Any] = {"policy": policy, "judge": judge, "workers": workers}
    if timeout is not None:
        kwargs["timeout"] = timeout
    verdicts = grade(responses, problems, **kwargs)
    summary = GradeSummary.from_verdicts(verdicts, problems).to_dict()
    out: dict[str, Any] = {
        "accuracy": summary["accuracy"],
        "coverage": summary["coverage"],
        "total": summary["total"],
        "graded": summary["graded"],
        "correct": summary["correct"],
        "statuses": summary["statuses"],
        "by_answer_type": summary["by_answer_type"],
        "by_category": summary["by_category"],
        "policy": policy,
    }
    if return_details:
        out["details"] = [v.to_dict() for v in verdicts]
    return out
