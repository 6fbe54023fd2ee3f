"""Batch grading under a policy: which grader decides which answer type.

- `paper`: the paper's grading. Rule (math-verify) for number/interval, the LLM judge for
  single_choice, multiple_choice and text.
- `cascade`: the rule grader first (the option-letter grader for choice answers), then the
  judge for every row the rule did not find correct; the judge's verdict is final.
- `rule`: no judge. Choice answers by the option-letter grader; text answers `ungraded`
  (left out of accuracy; the summary reports the coverage).

Rows stream through in chunks: each chunk's plain answers are graded in this process
(exact.py), the rest in the worker pool (pool.py) under a hard time limit, then the judge
gets the chunk's judged rows in one batch. Verdicts come out in input order.
"""

from __future__ import annotations

import sys
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from typing import Any, Iterable, Iterator, Mapping

from ..errors import OptionError
from ..schema import (AnswerType, Graded, Method, Problem, Response, Status, Verdict,
                      index_problems)
from . import choice
from .pairing import Pairing, inline_agrees
from ..answers.words import question_labels
from .extract import Extraction, extract, usable_for
from .pool import DEFAULT_TIMEOUT, RulePool, RuleTask, shared_pool
from .gold_cache import GoldCache
from .rule import RuleResult

POLICIES = ("paper", "cascade", "rule")
CHUNK_SIZE = 1000
MAX_IN_FLIGHT = 4   # chunks read ahead while the oldest waits for the pool (see grade_iter)
_EXTRACTED_MAX = 1000  # judged rows with no candidate record the start of their region


def default_policy(policy: str | None, judge) -> str:
    """No policy named: the paper's grading when there is a judge, else the judge-free `rule`
    (the same default for the Python API, the metric and the command line)."""
    if policy is not None:
        return policy
    return "paper" if judge is not None else "rule"


def grade(responses, problems=None, policy: str | None = None, judge=None,
          workers: int | None = None,
          timeout: float = DEFAULT_TIMEOUT, progress: bool = False, **kwargs) -> list[Verdict]:
    """Grade `responses` (Response records or dicts) against `problems` (Problem records or
    dicts, a dict by id, or None when every response carries its gold inline)."""
    return [g.verdict for g in grade_iter(responses, problems, policy=policy, judge=judge,
                                          workers=workers, timeout=timeout, progress=progress,
                                          **kwargs)]


class HybridGrader:
    """General365's grader under one policy and judge, for one stream of responses: pairs
    each response with its problem (every check, see pairing.py), then grades. What
    `general365 grade` drives through the Benchmark seam; `grade()` above is the same
    grader for a list in memory."""

    def __init__(self, problems=None, *, policy: str | None = None, judge=None,
                 workers: int | None = None, timeout: float = DEFAULT_TIMEOUT,
                 dataset: str | None = None):
        self.policy = default_policy(policy, judge)
        check_policy(self.policy, judge)
        check_timeout(timeout)
        check_workers(workers)
        self.judge, self.workers, self.timeout = judge, workers, timeout
        self.uses_judge = self.policy != "rule"   # grade_file: one read of the file if not
        self.golds = GoldCache()
        self.pairing = make_pairing(problem_lookup(problems), self.golds, dataset)
        # A file with number or interval answers almost always has some that only
        # math-verify reads: the pool's server starts at the first such problem the checks
        # meet (grade_file's first pass), so its imports overlap the checks, not the grading.
        checks = self.pairing.prepare

        def prepare(p: Problem) -> None:
            checks(p)
            if p.answer_type.is_rule_graded and self.pairing.prepare is not checks:
                self.pairing.prepare = checks
                shared_pool(workers).prewarm()

        self.pairing.prepare = prepare

    def grade(self, responses: Iterable, *, path: str | None = None, checked: bool = False,
              progress: bool = False) -> Iterator[Graded]:
        return grade_iter(responses, policy=self.policy, judge=self.judge,
                          workers=self.workers, timeout=self.timeout, progress=progress,
                          path=path, golds=self.golds, pairing=self.pairing, checked=checked)

    def close(self) -> None:
        if self.judge is not None and hasattr(self.judge, "close"):
            self.judge.close()


def check_policy(policy: str, judge) -> None:
    """The one check of a policy against the judge given (API, metric and CLI alike)."""
    if policy not in POLICIES:
        raise OptionError("policy", f"{policy!r}: unknown grading policy; expected one of "
                                    f"{', '.join(POLICIES)}")
    if policy != "rule" and judge is None:
        raise OptionError("policy", f"{policy} needs an LLM judge for choice and text answers: "
                                    "give one with {judge_model} (and {judge_base_url} for a "
                                    "server other than OpenAI's), or use {policy} rule",
                          api_hint=" (from Python: judge=Judge(model, base_url=...) from "
                                   "general365.grading.judge; on the command line: "
                                   "--judge-model and --judge-base-url)")
    if judge is not None and not callable(getattr(judge, "judge_batch", None)):
        raise OptionError("judge", f"must have a judge_batch(items) method, such as "
                                   f"general365.grading.judge.Judge (got {type(judge).__name__})")


def grade_iter(responses: Iterable, problems=None, *, policy: str | None = None, judge=None,
               workers: int | None = None, timeout: float = DEFAULT_TIMEOUT,
               progress: bool = False, chunk_size: int = CHUNK_SIZE,
               pool: RulePool | None = None, path: str | None = None,
               golds: GoldCache | None = None, pairing: Pairing | None = None,
               checked: bool = False) -> Iterator[Graded]:
    """Grade a stream of responses chunk by chunk, yielding `Graded` rows in input order.
    Holds at most MAX_IN_FLIGHT chunks at a time (two, unless the pool lags), so a file of
    any length grades in flat memory.

    Every response is checked as it is paired with its problem (pairing.py); `checked=True`
    says a first pass over the same rows with the same `pairing` already did that."""
    policy = default_policy(policy, judge)
    check_policy(policy, judge)
    check_timeout(timeout)
    check_workers(workers)
    golds = golds if golds is not None else GoldCache()
    if pairing is None:
        pairing = make_pairing(problem_lookup(problems), golds)
    bar = None
    total = len(responses) if hasattr(responses, "__len__") else None
    # Chunks in flight: while the pool grades one chunk's math-verify answers (on a helper
    # thread that only waits on the workers' pipes; math-verify itself runs in the worker
    # processes), this thread reads, extracts and fast-grades the next. Two normally; up to
    # MAX_IN_FLIGHT while the oldest still waits for the pool (its server's start: seconds,
    # on a busy machine more), so the start overlaps the cheap part instead of stalling it.
    helper = ThreadPoolExecutor(1, thread_name_prefix="general365-pool")
    try:
        rows = _resolve(responses, pairing, path, checked)
        window: deque = deque()   # (chunk, work, unique tasks, future), oldest first
        verdicts: dict[RuleTask, RuleResult] = {}   # the pool's, for the window's chunks
        more = True
        while more or window:
            if more and (len(window) < 2 or (len(window) < MAX_IN_FLIGHT
                                             and not _ready(window[0]))):
                chunk = list(islice(rows, chunk_size))
                if progress and bar is None:
                    # Drawn once the first chunk is read (and so checked, where the reading
                    # checks, as grade_file's single read does): a bad line there is then
                    # one error line, not a bar and an error.
                    from tqdm import tqdm

                    bar = tqdm(total=total, unit="resp", desc="grading", file=sys.stderr,
                               dynamic_ncols=True)
                if not chunk:
                    more = False
                    continue
                work = _Chunk(chunk, golds, policy)
                # Each distinct (gold, candidate) goes to the pool once: many responses to
                # one problem give the same answer (those already sent for a chunk in the
                # window are taken from its results).
                sent = {t for w in window for t in w[2]}
                unique = [t for t in dict.fromkeys(t for _, t in work.rule_tasks)
                          if t not in sent]
                future = None
                if unique:
                    p = pool if pool is not None else shared_pool(workers)
                    future = helper.submit(p.map, unique, timeout)
                window.append((chunk, work, unique, future))
                continue
            graded = _finish(window.popleft(), verdicts, golds, judge)
            # Keep only the verdicts a chunk still in the window may need.
            needed = {t for w in window for _, t in w[1].rule_tasks}
            for t in [t for t in verdicts if t not in needed]:
                del verdicts[t]
            yield from graded
            if bar is not None:
                bar.update(len(graded))
    except BaseException:
        if bar is not None:
            bar.leave = False   # stopped by an error: the error, not a half bar, stays
        raise
    finally:
        helper.shutdown(wait=True)
        if bar is not None:
            bar.close()


def _ready(entry) -> bool:
    future = entry[3]
    return future is None or future.done()


def _finish(entry, verdicts: dict, golds: GoldCache, judge) -> list[Graded]:
    """One chunk's verdicts completed (pool results, then the judge). Its pool results go
    into `verdicts`, where the chunks after it find the answers they share with it."""
    chunk, work, unique, future = entry
    if future is not None:
        found = dict(zip(unique, future.result()))
        golds.remember(found)
        verdicts.update(found)
    if work.rule_tasks:
        work.finish_rule([verdicts[t] for _, t in work.rule_tasks])
    if work.judge_rows:
        work.finish_judge(judge)
    return [Graded(resp, verdict, prob) for (resp, prob), verdict in zip(chunk, work.verdicts)]


# --- inputs -------------------------------------------------------------------------


def problem_lookup(problems) -> Mapping[str, Problem] | None:
    if problems is None:
        return None
    if isinstance(problems, Mapping):
        return {str(k): (p if isinstance(p, Problem) else Problem.from_dict(p))
                for k, p in problems.items()}
    return index_problems(p if isinstance(p, Problem) else Problem.from_dict(p) for p in problems)


def _resolve(responses: Iterable, pairing: Pairing, path: str | None,
             checked: bool) -> Iterator[tuple[Response, Problem]]:
    for n, r in enumerate(responses, start=1):
        line = n if path is not None else None
        if not isinstance(r, Response):
            r = Response.from_dict(r, path=path, line=line)
        yield r, pairing.pair(r, path=path, line=line, check=not checked)


def make_pairing(lookup: Mapping[str, Problem] | None, golds: GoldCache,
                 dataset: str | None = None) -> Pairing:
    """General365's checks before grading: inline golds, agreement with the dataset, and
    each number/interval gold parsed (once, into `golds`)."""
    def prepare(p: Problem) -> None:
        if p.answer_type.is_rule_graded:
            golds.rule(p)

    # Every run of a problem carries the same inline gold: built (and checked) once per
    # distinct set of inline fields, not once per row and pass.
    built: dict[tuple, Problem] = {}

    def from_inline(r: Response, *, path=None, line=None) -> Problem | None:
        key = _inline_key(r)
        try:
            prob = built.get(key)
        except TypeError:   # a value that is not plain JSON (unhashable): never cached
            key = prob = None
        if prob is None:
            prob = r.inline_problem(path=path, line=line)
            if key is not None and prob is not None:
                if len(built) >= 5_000:  # a bound for streams of ever new problems
                    built.clear()
                built[key] = prob
        return prob

    return Pairing(lookup, from_inline=from_inline, agrees=inline_agrees, prepare=prepare,
                   dataset=dataset)


def _inline_key(r: Response) -> tuple:
    """The response's id and inline fields as a key, each value with its type (`1`, `1.0`
    and `true` never share a key: they do not check alike). A list (categories) is keyed by
    its items: a valid one holds strings, which equal no other type. Unhashable when a value
    is not plain JSON."""
    return (r.id, tuple((k, type(v), tuple(v) if type(v) is list else v)
                        for k, v in r.inline.items()))


def check_workers(workers) -> None:
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise OptionError("workers", f"must be at least 1 (got {workers!r})")


def check_timeout(timeout) -> None:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0 \
            or timeout != timeout or timeout == float("inf"):
        raise OptionError("timeout", f"must be a positive number of seconds (got {timeout!r})")


# --- one chunk ----------------------------------------------------------------------


_USABLE = {t: usable_for(t) for t in AnswerType}


def _usable(t: AnswerType):
    return _USABLE[AnswerType(t)]


class _Chunk:
    def __init__(self, rows: list[tuple[Response, Problem]], golds: GoldCache, policy: str):
        self.rows = rows
        self.policy = policy
        self.verdicts: list[Verdict] = [None] * len(rows)  # type: ignore[list-item]
        self.extractions: list[Extraction] = []
        self.rule_tasks: list[tuple[int, RuleTask]] = []
        self.judge_rows: list[int] = []
        for i, (resp, prob) in enumerate(rows):
            ex = extract(resp.response, _usable(prob.answer_type),
                         question_labels(getattr(prob, "question", None))
                         if prob.answer_type.is_rule_graded else frozenset())
            self.extractions.append(ex)
            self._plan(i, resp, prob, ex, golds)

    def _verdict(self, i: int, status: Status, method: Method | None, detail: str | None = None,
                 extracted: str | None = None, judge: dict | None = None) -> None:
        resp = self.rows[i][0]
        ex = self.extractions[i]
        self.verdicts[i] = Verdict(resp.id, resp.run, status, method,
                                   extracted if extracted is not None else ex.candidate,
                                   judge, detail)

    def _plan(self, i: int, resp: Response, prob: Problem, ex: Extraction, golds: GoldCache) -> None:
        t = prob.answer_type
        if t.is_rule_graded:
            gold = golds.rule(prob)
            if ex.region is None or ex.candidate is None:
                self._verdict(i, Status.NO_ANSWER, Method.RULE, ex.detail)
                self._maybe_cascade(i)
                return
            fast = golds.fast(gold, ex.candidate) or golds.known(gold, ex.candidate)
            if fast is None:
                self.rule_tasks.append((i, RuleTask(gold, ex.candidate)))
            else:
                self._verdict(i, fast.status, Method.RULE, fast.detail)
                self._maybe_cascade(i)
            return
        if ex.region is None:  # never ask the judge about reasoning that was cut off
            method = Method.CHOICE if (t.is_choice and self.policy != "paper") else None
            self._verdict(i, Status.NO_ANSWER, method, ex.detail)
            return
        if t.is_choice and self.policy != "paper":
            gold_letters = golds.letters(prob)
            if gold_letters is None:
                if self.policy == "rule":
                    self._verdict(i, Status.UNGRADED, None,
                                  "the gold answer names no option letter; the judge is needed")
                else:
                    self.judge_rows.append(i)
                return
            res = choice.grade_choice(gold_letters, ex.candidate,
                                      single=t is AnswerType.SINGLE_CHOICE)
            self._verdict(i, res.status, Method.CHOICE, res.detail)
            self._maybe_cascade(i)
            return
        if self.policy == "rule":
            self._verdict(i, Status.UNGRADED, None,
                          f"{t.value} answers need the LLM judge (policy paper or cascade)")
            return
        self.judge_rows.append(i)

    def _maybe_cascade(self, i: int) -> None:
        # The cascade asks the judge about every row the rule did not find correct, except
        # where there is nothing to ask about (a cut-off reasoning block).
        if (self.policy == "cascade" and not self.verdicts[i].correct
                and self.extractions[i].region is not None):
            self.judge_rows.append(i)

    def finish_rule(self, results) -> None:
        for (i, _), res in zip(self.rule_tasks, results):
            self._verdict(i, res.status, Method.RULE, res.detail)
            self._maybe_cascade(i)
        self.judge_rows.sort()

    def finish_judge(self, judge) -> None:
        from .judge import JudgeItem

        asked, items = [], []
        for i in self.judge_rows:
            region = (self.extractions[i].region or "").strip()
            if not region:
                self._verdict(i, Status.NO_ANSWER, None, "the final answer is empty")
                continue
            prob = self.rows[i][1]
            asked.append(i)
            items.append(JudgeItem(question=prob.question, gold=prob.answer, prediction=region))
        if not items:
            return
        results = judge.judge_batch(items)
        if len(results) != len(items):
            raise RuntimeError(f"the judge returned {len(results)} results for {len(items)} items")
        for i, res in zip(asked, results):
            self._judged(i, res)

    def _judged(self, i: int, res: Any) -> None:
        status = res.status if isinstance(res.status, Status) else Status(str(res.status))
        if status not in (Status.CORRECT, Status.INCORRECT, Status.JUDGE_FAILED):
            status = Status.JUDGE_FAILED
        record = res.record() if hasattr(res, "record") else {
            "model": res.model, "raw": res.raw, "votes": list(res.votes)}
        ex = self.extractions[i]
        extracted = ex.candidate or (ex.region or "").strip()[:_EXTRACTED_MAX]
        detail = res.detail
        before = self.verdicts[i]
        if before is not None:  # cascade: say what the rule had found
            rule_said = f"{before.method.value if before.method else 'rule'}: {before.status.value}"
            detail = f"{rule_said}; judge: {detail}" if detail else rule_said
        self._verdict(i, status, Method.JUDGE, detail, extracted, record)
