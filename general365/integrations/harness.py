"""What the harness tasks share: the problem a harness row stands for, the judge named in
the environment, and one response graded by the benchmark's own grader. Without a judge the
policy is `rule`: text answers are `ungraded` and left out of accuracy (`coverage` says so).
"""

from __future__ import annotations

import logging
import math
import os
from typing import Any, Mapping

from ..schema import Problem, Status, Verdict

log = logging.getLogger("general365")

JUDGE_MODEL_ENV = "GENERAL365_JUDGE_MODEL"
JUDGE_BASE_URL_ENV = "GENERAL365_JUDGE_BASE_URL"
JUDGE_KEY_ENV = "GENERAL365_JUDGE_API_KEY_ENV"

RULE_NOTE = ("general365: no judge, so the rule policy grades: text answers are left out of "
             "accuracy (status ungraded) and coverage is the share graded; set "
             f"{JUDGE_MODEL_ENV} (and {JUDGE_BASE_URL_ENV}) to judge them")


def judge_from_env(environ: Mapping[str, str] | None = None):
    """The LLM judge the environment names (the key is in OPENAI_API_KEY, or in the variable
    GENERAL365_JUDGE_API_KEY_ENV names), or None."""
    env = os.environ if environ is None else environ
    model = (env.get(JUDGE_MODEL_ENV) or "").strip()
    if not model:
        return None
    return make_judge(model, env.get(JUDGE_BASE_URL_ENV) or None,
                      env.get(JUDGE_KEY_ENV) or "OPENAI_API_KEY")


def make_judge(model: str, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY"):
    from ..extras import require

    require("the General365 judge", ["judge"])
    from ..grading.judge import Judge

    return Judge(model, base_url=base_url, api_key_env=api_key_env)


_noted = False


def grade_one(row: Mapping[str, Any] | Problem, text: str, judge=None) -> Verdict:
    """The verdict `general365 grade` gives `text` as the answer to `row`."""
    global _noted
    from ..grading.hybrid import grade

    problem = row if isinstance(row, Problem) else Problem.from_dict(dict(row))
    response = {"id": problem.id, "run": 0, "response": text if isinstance(text, str) else ""}
    (verdict,) = grade([response], [problem], policy="paper" if judge else "rule", judge=judge)
    if verdict.status is Status.UNGRADED and not _noted:
        _noted = True
        log.warning(RULE_NOTE)
    return verdict


def accuracy_value(verdict: Verdict) -> float:
    """1.0 correct, 0.0 graded and not correct, NaN ungraded (left out of the mean)."""
    if verdict.status is Status.UNGRADED:
        return math.nan
    return 1.0 if verdict.status is Status.CORRECT else 0.0
