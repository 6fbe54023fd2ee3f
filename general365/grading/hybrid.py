"""General365's grading (qa's too): its hook on the grading loop (engine.py), under a policy
that says which grader decides each answer type: `paper` (rule for number/interval, the judge
for the rest), `cascade` (rule or option letters first, the judge for what they did not find
correct) or `rule` (no judge: text answers are `ungraded`). docs/grading.md has the contract."""

from __future__ import annotations

from functools import partial
from typing import Any, Iterable, Iterator, Mapping

from ..answers.gold import GoldAnswer, parse_gold
from ..answers.words import question_labels
from ..errors import DataError
from ..schema import (AnswerType, Graded, Method, Problem, Response, Status, Verdict,
                      index_problems)
from . import choice
from .engine import (KEY_MAX, MAX_IN_FLIGHT, POLICIES, Grader, Judged, Memo,  # noqa: F401
                     Pairing, check_policy, check_timeout, check_workers, default_policy,
                     inline_agrees)
from .extract import Extraction, extract, usable_for
from .pool import DEFAULT_TIMEOUT, RuleTask, shared_pool
from .rule import grade_fast

CHUNK_SIZE = 1000
_EXTRACTED_MAX = 1000  # judged rows with no candidate record the start of their region
USABLE = {t: usable_for(t) for t in AnswerType}   # what a statement may answer, per type


def usable(t) -> Any:
    return USABLE[AnswerType(t)]


def grade(responses, problems=None, policy: str | None = None, judge=None, **kwargs
          ) -> list[Verdict]:
    """Grade `responses` (Response records or dicts) against `problems` (Problem records or
    dicts, a dict by id, or None when every response carries its gold inline)."""
    return [g.verdict for g in grade_iter(responses, problems, policy=policy, judge=judge,
                                          **kwargs)]


def grade_iter(responses: Iterable, problems=None, *, policy: str | None = None, judge=None,
               workers: int | None = None, timeout: float = DEFAULT_TIMEOUT,
               progress: bool = False, **options) -> Iterator[Graded]:
    """`grade`, lazily: `Graded` rows in input order, a chunk at a time (flat memory)."""
    grader = HybridGrader(problems, policy=policy, judge=judge, workers=workers,
                          timeout=timeout, prewarm=False)
    return grader.grade(responses, progress=progress, **options)


class General365Rows:
    """The hook (engine.Grader), and what a grader's chunks share: each gold parsed once
    (keyed by the gold itself, so a repeated inline gold too) and the fast path's verdicts."""

    desc = "grading"
    chunk_size = CHUNK_SIZE
    judge_needed = "needs an LLM judge for choice and text answers"
    judge_prompt = None

    def __init__(self):
        self.golds = Memo(5_000)
        self.letters = Memo(1_000)
        self.fast = Memo(10_000)

    def chunk(self, rows: list[tuple[Response, Problem]], policy: str) -> "_Chunk":
        return _Chunk(rows, self, policy)

    def gold(self, p: Problem) -> GoldAnswer:
        question = getattr(p, "question", None)
        return self.golds.cached((p.answer, p.answer_type, p.float_round, question),
                                 lambda: _parse(p, question))

    def fast_verdict(self, gold: GoldAnswer, candidate: str):
        """grade_fast(gold, candidate), remembered (None: math-verify must decide)."""
        if len(candidate) > KEY_MAX:
            return grade_fast(gold, candidate)
        return self.fast.cached((gold.key, gold.labels, candidate),
                                lambda: grade_fast(gold, candidate))


def _parse(p: Problem, question: str | None) -> GoldAnswer:
    try:
        return parse_gold(p.answer, p.answer_type, p.float_round, question)
    except ValueError as exc:
        raise DataError(f"the gold answer does not parse: {exc}", row_id=p.id,
                        field="answer", value=p.answer,
                        expected=f"a valid {p.answer_type.value} answer") from None


class HybridGrader(Grader):
    """General365's grader under one policy and judge (`general365 grade`'s, through the
    Benchmark seam). `prewarm`: start the pool's server at the first number or interval
    problem the checks meet, so that its imports overlap the checks, not the grading."""

    def __init__(self, problems=None, *, policy: str | None = None, judge=None,
                 workers: int | None = None, timeout: float = DEFAULT_TIMEOUT,
                 dataset: str | None = None, prewarm: bool = True):
        rows = General365Rows()
        super().__init__(rows, make_pairing(problem_lookup(problems), rows, dataset),
                         policy=policy, judge=judge, workers=workers, timeout=timeout)
        if prewarm:
            checks = self.pairing.prepare

            def prepare(p: Problem) -> None:
                checks(p)
                if p.answer_type.is_rule_graded and self.pairing.prepare is prepare:
                    self.pairing.prepare = checks
                    shared_pool(workers).prewarm()

            self.pairing.prepare = prepare


def problem_lookup(problems) -> Mapping[str, Problem] | None:
    if problems is None:
        return None
    if isinstance(problems, Mapping):
        return {str(k): (p if isinstance(p, Problem) else Problem.from_dict(p))
                for k, p in problems.items()}
    return index_problems(p if isinstance(p, Problem) else Problem.from_dict(p) for p in problems)


def make_pairing(lookup: Mapping[str, Problem] | None, rows: General365Rows,
                 dataset: str | None = None) -> Pairing:
    """General365's checks before grading; each number/interval gold parsed once, into `rows`."""
    def prepare(p: Problem) -> None:
        if p.answer_type.is_rule_graded:
            rows.gold(p)

    # every run of a problem carries the same inline gold: built and checked once
    built = Memo(5_000)

    def from_inline(r: Response, *, path=None, line=None) -> Problem | None:
        make = partial(r.inline_problem, path=path, line=line)
        try:
            return built.cached(_inline_key(r), make)
        except TypeError:   # a value that is not plain JSON (unhashable): never kept
            return make()

    return Pairing(lookup, from_inline=from_inline, agrees=inline_agrees, prepare=prepare,
                   dataset=dataset)


def _inline_key(r: Response) -> tuple:
    """The response's id and inline fields, each value with its type (`1`, `1.0` and `true`
    do not check alike); unhashable when a value is not plain JSON."""
    return (r.id, tuple((k, type(v), tuple(v) if type(v) is list else v)
                        for k, v in r.inline.items()))


class _Chunk:
    def __init__(self, rows: list[tuple[Response, Problem]], hook: General365Rows,
                 policy: str):
        self.pairs = rows
        self.policy = policy
        self.verdicts: list[Verdict] = [None] * len(rows)  # type: ignore[list-item]
        self.extractions: list[Extraction] = []
        self.rule_rows: list[int] = []
        self.tasks: list[RuleTask] = []
        self.judge_rows: list[int] = []
        self.asked: list[int] = []
        for i, (resp, prob) in enumerate(rows):
            ex = extract(resp.response, usable(prob.answer_type),
                         question_labels(getattr(prob, "question", None))
                         if prob.answer_type.is_rule_graded else frozenset())
            self.extractions.append(ex)
            self._plan(i, prob, ex, hook)

    def _verdict(self, i: int, status: Status, method: Method | None, detail: str | None = None,
                 extracted: str | None = None, judge: dict | None = None) -> None:
        resp = self.pairs[i][0]
        ex = self.extractions[i]
        self.verdicts[i] = Verdict(resp.id, resp.run, status, method,
                                   extracted if extracted is not None else ex.candidate,
                                   judge, detail)

    def _plan(self, i: int, prob: Problem, ex: Extraction, hook: General365Rows) -> None:
        t = prob.answer_type
        if t.is_rule_graded:
            gold = hook.gold(prob)
            if ex.region is None or ex.candidate is None:
                self._ruled(i, Status.NO_ANSWER, Method.RULE, ex.detail)
                return
            fast = hook.fast_verdict(gold, ex.candidate)
            if fast is None:
                self.rule_rows.append(i)
                self.tasks.append(RuleTask(gold, ex.candidate))
            else:
                self._ruled(i, fast.status, Method.RULE, fast.detail)
            return
        if ex.region is None:  # never ask the judge about reasoning that was cut off
            method = Method.CHOICE if (t.is_choice and self.policy != "paper") else None
            self._verdict(i, Status.NO_ANSWER, method, ex.detail)
            return
        if t.is_choice and self.policy != "paper":
            gold_letters = hook.letters.cached(prob.answer,
                                               lambda: choice.gold_letters(prob.answer))
            if gold_letters is None:
                if self.policy == "rule":
                    self._verdict(i, Status.UNGRADED, None,
                                  "the gold answer names no option letter; the judge is needed")
                else:
                    self.judge_rows.append(i)
                return
            res = choice.grade_choice(gold_letters, ex.candidate,
                                      single=t is AnswerType.SINGLE_CHOICE)
            self._ruled(i, res.status, Method.CHOICE, res.detail)
            return
        if self.policy == "rule":
            self._verdict(i, Status.UNGRADED, None,
                          f"{t.value} answers need the LLM judge (policy paper or cascade)")
            return
        self.judge_rows.append(i)

    def _ruled(self, i: int, status: Status, method: Method, detail: str | None) -> None:
        """A rule (or option-letter) verdict. The cascade asks the judge about every row the
        rule did not find correct, except a cut-off reasoning block (nothing to ask about)."""
        self._verdict(i, status, method, detail)
        if (self.policy == "cascade" and not self.verdicts[i].correct
                and self.extractions[i].region is not None):
            self.judge_rows.append(i)

    def ruled(self, found) -> list:
        for i, task in zip(self.rule_rows, self.tasks):
            self._ruled(i, found[task].status, Method.RULE, found[task].detail)
        return []

    def questions(self) -> list:
        if not self.judge_rows:
            return []
        from .judge import JudgeItem

        items = []
        for i in sorted(self.judge_rows):
            region = (self.extractions[i].region or "").strip()
            if not region:
                self._verdict(i, Status.NO_ANSWER, None, "the final answer is empty")
                continue
            prob = self.pairs[i][1]
            self.asked.append(i)
            items.append(JudgeItem(question=prob.question, gold=prob.answer, prediction=region))
        return items

    def judged(self, answers: list[Judged]) -> None:
        for i, res in zip(self.asked, answers):
            ex = self.extractions[i]
            extracted = ex.candidate or (ex.region or "").strip()[:_EXTRACTED_MAX]
            detail = res.detail
            before = self.verdicts[i]
            if before is not None:  # cascade: say what the rule had found
                said = f"{before.method.value if before.method else 'rule'}: {before.status.value}"
                detail = f"{said}; judge: {detail}" if detail else said
            self._verdict(i, res.status, Method.JUDGE, detail, extracted, res.record)

    def rows(self) -> list[Graded]:
        return [Graded(resp, verdict, prob)
                for (resp, prob), verdict in zip(self.pairs, self.verdicts)]
