"""Grading CFE-Bench responses variable by variable under a policy (docs/cfe-bench.md):
`rule` (no judge: what the rule path cannot decide is `ungraded`), `cascade` (the judge
decides every variable the rule path did not find correct) or `paper` (the judge decides
every variable); none named: `paper` with a judge, `rule` without. A response whose
reasoning block was never closed is `no_answer` throughout, and nothing is judged.

The judge prompt, one answer variable at a time, is our own wording (the paper publishes
none), versioned by a hash of its text, which is part of every judge cache key; the reply
is every general365 judge's JSON `accuracy`. The item's `question` is the problem followed
by the variable block, so the variable is part of the cache key too.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Iterable

from ...grading.engine import Grader, Judged
from ...grading.extract import NO_REGION, final_region
from ...grading.judge_task import JudgePrompt
from ...grading.pool import RuleTask
from ...grading.rule import RuleResult
from ...schema import Graded, Method, Response, Status, Verdict
from ...validators import option_number
from . import NAME
from .data import MAX_TOLERANCE, CFEProblem, Variable
from .graded_rows import VariableScore, Verdicted, question_status
from .quantity import DEFAULT_TOLERANCE
from .rule import ReadTask
from .stated import Stated

CHUNK_SIZE = 500
# Seconds per response's reading, and per formula comparison, in the pool. Longer than
# General365's 5 s: a page-long physics formula takes math-verify seconds to parse on a
# busy machine (measured: up to ~5 s on two shared cores), and a timeout counts as wrong.
DEFAULT_TIMEOUT = 30.0
DETAIL_CHARS = 500

SYSTEM_PROMPT = """You are grading one answer variable of a university exam problem.
You are given the problem, the variable to check (its name, type and description), its reference value, and the final part of a student's response.

Steps:
1. Find the value the response finally gives for this variable. It is normally on a line "name = value" near the end, or in a \\boxed{} expression, but it may be stated in words. Use the response's final value, not intermediate work.
2. Compare that value with the reference value:
   - numbers: equal within the stated relative tolerance, after converting units (6.25 Mbp equals 6250 kbp); a missing unit is read in the reference's unit;
   - formulas: mathematically equivalent, in the same symbols as the reference (rearranged, factored or expanded forms are equal);
   - other answers (words, choices, descriptions): the same meaning; every essential part of the reference must be present and nothing in the value may contradict it.
3. The value is incorrect if the response gives no value for this variable, gives several different final values for it, or gives a value that does not match.
Do not challenge the reference value.
Output a JSON object with a single field 'accuracy' whose value is true or false."""

USER_TEMPLATE = """{question}

Reference value: {answer}

Response (final part):
{prediction}"""

VARIABLE_TEMPLATE = """Problem:
{question}

Variable to check: {name}
Type: {type}
Description: {description}
Relative tolerance for numbers: {tolerance:g}"""

PROMPT_VERSION = "cfe-" + hashlib.sha256(
    (SYSTEM_PROMPT + "\x00" + USER_TEMPLATE + "\x00" + VARIABLE_TEMPLATE).encode("utf-8")
).hexdigest()[:16]


def judge_question(problem: CFEProblem, variable: Variable, tolerance: float) -> str:
    return VARIABLE_TEMPLATE.format(question=problem.question, name=variable.name,
                                    type=variable.type.value,
                                    description=variable.description or "(none given)",
                                    tolerance=tolerance)


CFE_JUDGE_PROMPT = JudgePrompt("cfe-variable", PROMPT_VERSION, SYSTEM_PROMPT, USER_TEMPLATE)


@dataclass
class VariableVerdict(Verdicted):
    variable: Variable
    status: Status
    method: str | None = None          # "rule" | "judge" | None
    extracted: str | None = None
    source: str | None = None          # "line" | "box": where the value was read
    detail: str | None = None
    judge: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The variable's part of a graded row (`parts`); its description and tolerance are
        in the row's `variables`."""
        v = self.variable
        d = {"name": v.name, "type": v.type.value, "value": v.value,
             "status": self.status.value, "correct": self.correct, "method": self.method,
             "extracted": self.extracted, "source": self.source}
        if self.detail:
            d["detail"] = self.detail
        if self.judge is not None:
            d["judge"] = self.judge
        return d


@dataclass
class CFEGraded(Verdicted, VariableScore):
    """One graded response: the response, its problem, a verdict per variable."""

    response: Response
    problem: CFEProblem
    variables: list[VariableVerdict]
    policy: str
    rule_status: Status | None = None   # cascade: the question's status before the judge

    @property
    def status(self) -> Status:
        return question_status([v.status for v in self.variables])

    @property
    def method(self) -> str | None:
        methods = {v.method for v in self.variables if v.method}
        return "judge" if "judge" in methods else ("rule" if methods else None)

    def verdict(self) -> Verdict:
        """The question's verdict, with each variable's as a part and the Variable score."""
        stated = [f"{v.variable.name} = {v.extracted}" for v in self.variables
                  if v.extracted is not None]
        judged = [v for v in self.variables if v.judge is not None]
        judge = None
        if judged:
            first = judged[0].judge
            judge = {"model": first.get("model"), "served_model": first.get("served_model"),
                     "raw": json.dumps({v.variable.name: v.judge.get("raw") for v in judged},
                                       ensure_ascii=False),
                     "votes": [bool(x) for v in judged for x in v.judge.get("votes", [])]}
        method = self.method
        return Verdict(self.response.id, self.response.run, self.status,
                       Method(method) if method else None, "; ".join(stated) or None, judge,
                       self._detail(judged), [v.to_dict() for v in self.variables], self.score)

    def to_graded(self) -> Graded:
        self.response.extra.setdefault("benchmark", NAME)
        return Graded(self.response, self.verdict(), self.problem)

    def record(self) -> dict[str, Any]:
        """The graded row as `graded.jsonl` holds it."""
        return self.to_graded().to_dict()

    def _detail(self, judged: list[VariableVerdict]) -> str | None:
        parts = []
        if self.rule_status is not None and judged:
            # The audit reads this prefix (audit/rows.rule_side): the rule path's verdict
            # before the judge decided ("rule undecided" is no verdict to disagree with).
            parts.append(_rule_said(self.rule_status))
            parts.append(f"judge: {len(judged)} of {len(self.variables)} variable(s)")
        wrong = [f"{v.variable.name}: {v.status.value}" + (f" ({v.detail})" if v.detail else "")
                 for v in self.variables if not v.correct]
        parts.extend(wrong)
        text = "; ".join(parts)
        return text[:DETAIL_CHARS] if text else None


def check_tolerance(tolerance) -> float:
    return option_number("tolerance", tolerance, low=0, high=MAX_TOLERANCE,
                         text=f"must be a relative tolerance from 0 to {MAX_TOLERANCE:g} "
                              f"(0.01 = 1%); got {tolerance!r}")


class CFERows:
    """CFE-Bench's part of the grading loop (grading/engine.py): a chunk of responses read
    variable by variable in the pool, their formulas compared there, the rest judged."""

    desc = "grading cfe"
    chunk_size = CHUNK_SIZE
    judge_needed = "sends CFE-Bench variables to an LLM judge"
    judge_prompt = CFE_JUDGE_PROMPT

    def __init__(self, tolerance: float = DEFAULT_TOLERANCE):
        self.tolerance = check_tolerance(tolerance)

    def chunk(self, rows: list[tuple[Response, CFEProblem]], policy: str) -> "_VariableChunk":
        return _VariableChunk(rows, policy, self.tolerance)


def grade(pairs: Iterable[tuple[Response, CFEProblem]], *, policy: str | None = None,
          judge=None, workers: int | None = None, timeout: float = DEFAULT_TIMEOUT,
          tolerance: float = DEFAULT_TOLERANCE, progress: bool = False,
          **options) -> list[CFEGraded]:
    """Graded responses in input order (a chunk at a time: flat memory for any input)."""
    grader = Grader(CFERows(tolerance), policy=policy, judge=judge, workers=workers,
                    timeout=timeout)
    return list(grader.run(pairs, progress=progress, **options))


@dataclass
class _Slot:
    row: int
    variable: Variable
    tolerance: float
    stated: Stated | None
    verdict: VariableVerdict | None = None
    task: RuleTask | None = None
    rule: RuleResult | None = None


class _VariableChunk:
    def __init__(self, rows: list[tuple[Response, CFEProblem]], policy: str, tolerance: float):
        self.pairs, self.policy = rows, policy
        self.regions: list[str | None] = []
        self.slots: list[list[_Slot]] = []
        self.reads: dict[int, RuleTask] = {}   # row -> its reading, for the pool
        self.ask: list[_Slot] = []
        self.rule_status: dict[int, Status] = {}
        for i, (resp, prob) in enumerate(rows):
            region = final_region(resp.response)   # None: the reasoning never closed
            self.regions.append(region)
            slots = [_Slot(i, v, prob.tolerance_for(v, tolerance), None)
                     for v in prob.variables]
            if region is None:
                for s in slots:
                    s.verdict = VariableVerdict(s.variable, Status.NO_ANSWER, None,
                                                detail=NO_REGION)
            elif slots:
                self.reads[i] = RuleTask(ReadTask(  # type: ignore[arg-type]
                    tuple(prob.variables), tuple(s.tolerance for s in slots),
                    policy != "paper"), region)
            self.slots.append(slots)
        self.tasks = list(self.reads.values())
        self._read = False

    def ruled(self, found) -> list[RuleTask]:
        """First each response read (and its numbers compared), then its formulas."""
        if self._read:
            for row in self.slots:
                for s in row:
                    if s.task is not None:
                        s.rule = found[s.task]
            return []
        self._read = True
        for i, task in self.reads.items():
            res = found[task]
            for k, s in enumerate(self.slots[i]):
                if res.data is None:   # past the time limit, or the reader failed
                    if self.policy != "paper":
                        why = f"reading the response: {res.detail}" if res.detail else None
                        s.rule = RuleResult(Status.TIMEOUT if res.status is Status.TIMEOUT
                                            else Status.UNGRADED, why)
                    continue
                s.stated, p = res.data[k]
                if p is None:
                    continue
                if p.task is not None:
                    s.task = RuleTask(p.task, p.candidate)  # type: ignore[arg-type]
                else:
                    s.rule = p.result
        return [s.task for row in self.slots for s in row if s.task is not None]

    def questions(self) -> list:
        for row in self.slots:
            for s in row:
                if s.verdict is not None:
                    continue
                extracted = s.stated.text if s.stated else None
                source = s.stated.source if s.stated else None
                if s.rule is not None:
                    method = None if s.rule.status is Status.UNGRADED else "rule"
                    s.verdict = VariableVerdict(s.variable, s.rule.status, method, extracted,
                                                source, s.rule.detail)
                if self.policy == "paper" or (self.policy == "cascade"
                                              and not s.verdict.correct):
                    if (self.regions[s.row] or "").strip():
                        self.ask.append(s)
                    elif s.verdict is None:
                        s.verdict = VariableVerdict(s.variable, Status.NO_ANSWER, None,
                                                    detail="the final answer is empty")
        if not self.ask:
            return []
        if self.policy == "cascade":   # each asked question's status before the judge
            self.rule_status = {i: question_status([s.verdict.status for s in self.slots[i]])
                                for i in {s.row for s in self.ask}}
        from ...grading.judge import JudgeItem

        return [JudgeItem(question=judge_question(self.pairs[s.row][1], s.variable,
                                                  s.tolerance),
                          gold=s.variable.value, prediction=self.regions[s.row] or "")
                for s in self.ask]

    def judged(self, answers: list[Judged]) -> None:
        for s, res in zip(self.ask, answers):
            before = s.verdict
            detail = res.detail
            if before is not None:   # cascade: what the rule path had said
                said = _rule_said(before.status, before.detail)
                detail = f"{said}; judge: {detail}" if detail else said
            s.verdict = VariableVerdict(
                s.variable, res.status, "judge", s.stated.text if s.stated else None,
                s.stated.source if s.stated else None, detail, res.record)

    def rows(self) -> list[CFEGraded]:
        return [CFEGraded(resp, prob, [s.verdict for s in self.slots[i]], self.policy,
                          self.rule_status.get(i))
                for i, (resp, prob) in enumerate(self.pairs)]


def _rule_said(status: Status, why: str | None = None) -> str:
    if status is Status.UNGRADED:
        return f"rule undecided ({why})" if why else "rule undecided"
    return f"rule: {status.value}"

