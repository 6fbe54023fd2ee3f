"""One response's reading as a pool task: its stated values (stated.py) and the rule
path's plan for each variable (rule.py). It runs in a pool worker under the `--timeout`
limit: the reading sees the whole response, and a hostile one (thousands of nested
`\\boxed{`) must end as `timeout` for its variables, never hang the grade.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...grading.rule import RuleResult
from ...schema import Status
from .data import Variable
from .rule import Plan, plan
from .stated import Stated, read_answers


@dataclass(frozen=True)
class ReadTask:
    """The problem side of one response's reading; the pool's candidate is the response's
    final-answer region. `plans`: also the rule path's plans (not under `paper`, where the
    judge decides everything and only the stated values are kept)."""

    variables: tuple[Variable, ...]
    tolerances: tuple[float, ...]
    plans: bool

    def grade_in_worker(self, region: str) -> RuleResult:
        return RuleResult(Status.CORRECT, None, read(self, region))


def read(task: ReadTask, region: str) -> tuple[tuple[Stated | None, Plan | None], ...]:
    """(stated value, plan) per variable, in the task's order."""
    stated = read_answers(region, [v.name for v in task.variables])
    out = []
    for v, tol in zip(task.variables, task.tolerances):
        s = stated.get(v.name)
        out.append((s, plan(v, s, tol) if task.plans else None))
    return tuple(out)
