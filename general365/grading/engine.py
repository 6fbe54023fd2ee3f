"""The one grading loop. Every grader runs on it (General365's and qa's in hybrid.py,
CFE-Bench's, the metric's, the rewards'); a benchmark adds only its hook (`Grader`'s `rows`).
While the pool grades one chunk, this thread reads and plans the next (up to MAX_IN_FLIGHT
chunks), so a stream of any length grades in flat memory; every cache is a bounded `Memo`."""

from __future__ import annotations

import sys
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from ..errors import DataError, OptionError
from ..schema import Problem, Response, Status
from ..validators import option_int, option_number
from .pool import DEFAULT_TIMEOUT, RulePool, RuleTask, shared_pool
from .rule import RuleResult

POLICIES = ("paper", "cascade", "rule")
MAX_IN_FLIGHT = 4
MEMORY = 10_000   # pool verdicts a grader keeps
KEY_MAX = 1000   # longer answers are rare and not worth holding as keys
_MISSING = object()


class Memo(dict):
    """A bounded cache: past `size` entries it starts afresh (memory stays flat; what it
    held is only computed again)."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def put(self, key: Any, value: Any) -> Any:
        if len(self) >= self.size:
            self.clear()
        self[key] = value
        return value

    def cached(self, key: Any, make: Callable[[], Any]) -> Any:
        """The value kept for `key`, else make()'s, kept."""
        value = self.get(key, _MISSING)
        return self.put(key, make()) if value is _MISSING else value


def default_policy(policy: str | None, judge) -> str:
    """No policy named: `paper` with a judge, else `rule` (API, metric and CLI alike)."""
    if policy is not None:
        return policy
    return "paper" if judge is not None else "rule"


def check_policy(policy: str, judge, needed: str = "needs an LLM judge for choice and text "
                                                  "answers") -> None:
    """The one check of a policy against the judge given (API, metric and CLI alike)."""
    if policy not in POLICIES:
        raise OptionError("policy", f"{policy!r}: unknown grading policy; expected one of "
                                    f"{', '.join(POLICIES)}")
    if policy != "rule" and judge is None:
        raise OptionError("policy", f"{policy} {needed}: give one with {{judge_model}} (and "
                                    "{judge_base_url} for a server other than OpenAI's), or "
                                    "use {policy} rule",
                          api_hint=" (from Python: judge=Judge(model, base_url=...) from "
                                   "general365.grading.judge; on the command line: "
                                   "--judge-model and --judge-base-url)")
    if judge is not None and not callable(getattr(judge, "judge_batch", None)):
        raise OptionError("judge", f"must have a judge_batch(items) method, such as "
                                   f"general365.grading.judge.Judge (got {type(judge).__name__})")


def check_workers(workers) -> None:
    if workers is not None:
        option_int("workers", workers, text=f"must be at least 1 (got {workers!r})")


def check_timeout(timeout) -> None:
    option_number("timeout", timeout, low=0, low_open=True,
                  text=f"must be a positive number of seconds (got {timeout!r})")


@dataclass
class Judged:
    status: Status   # CORRECT, INCORRECT or JUDGE_FAILED
    detail: str | None
    record: dict[str, Any]


def ask(judge, items: list) -> list[Judged]:
    results = judge.judge_batch(items)
    if len(results) != len(items):
        raise RuntimeError(f"the judge returned {len(results)} results for {len(items)} items")
    out = []
    for res in results:
        status = res.status if isinstance(res.status, Status) else Status(str(res.status))
        if status not in (Status.CORRECT, Status.INCORRECT, Status.JUDGE_FAILED):
            status = Status.JUDGE_FAILED
        record = res.record() if hasattr(res, "record") else {
            "model": res.model, "raw": res.raw, "votes": list(res.votes)}
        out.append(Judged(status, res.detail, record))
    return out


# Each response paired with its problem, every check made before grading (one response per
# (id, run), a problem for each, an inline gold that agrees with the dataset's, a gold that
# parses): the Python API and `general365 grade` share it.
class Pairing:
    """`from_inline(response, path=, line=)`: its inline problem or None; `agrees(response,
    problem, path=, line=)` and `prepare(problem)`: raise DataError when a check fails."""

    def __init__(self, lookup: Mapping[str, Any] | None, *, from_inline: Callable[..., Any],
                 agrees: Callable[..., None], prepare: Callable[[Any], None],
                 dataset: str | None = None):
        self.lookup = lookup
        self.from_inline = from_inline
        self.agrees = agrees
        self.prepare = prepare
        self.dataset = dataset
        self._seen: dict[tuple[str, int], int] = {}
        self._n = 0   # position of the response, where no line number is given

    def pair(self, resp: Response, *, path: str | None = None, line: int | None = None,
             check: bool = True) -> Any:
        """The problem `resp` is graded against. `check=False`: a first pass over the same
        rows already made the checks."""
        if check:
            self._n += 1
            at = line if line is not None else self._n
            first = self._seen.setdefault((resp.id, resp.run), at)
            if first != at:
                where = f"line {first}" if line is not None else f"response #{first}"
                raise DataError(f"a second response for this id and run (the first is {where})",
                                path=path, line=line, row_id=resp.id, field="run",
                                value=resp.run,
                                expected="one response per (id, run); number repeats 0, 1, ...")
        if self.lookup is not None:
            prob = self.lookup.get(resp.id)
            if prob is None:
                named = f" {self.dataset!r}" if self.dataset else ""
                raise DataError("no problem with this id in the dataset", path=path, line=line,
                                row_id=resp.id, field="id",
                                expected=f"an id of dataset{named}")
            if check:
                self.agrees(resp, prob, path=path, line=line)
        else:
            prob = self.from_inline(resp, path=path, line=line)
            if prob is None:
                raise DataError("no gold answer in the response and no dataset given",
                                path=path, line=line, row_id=resp.id, field="answer",
                                expected="the problem's gold carried inline, or a dataset "
                                         "(--dataset / problems=)")
        if check:
            try:
                self.prepare(prob)
            except DataError as exc:
                raise DataError(exc.detail, path=path, line=line, row_id=resp.id,
                                field=exc.field or "answer", value=exc.value,
                                expected=exc.expected) from None
        return prob


def inline_agrees(resp: Response, prob: Problem, *, path: str | None = None,
                  line: int | None = None) -> None:
    """A response graded against a dataset carries the dataset's gold, if any inline."""
    theirs = prob.to_dict()
    for key in ("answer", "answer_type", "float_round"):
        if key in resp.inline and str(resp.inline[key]).strip() != str(theirs[key]).strip():
            raise DataError(f"the response carries {key} {resp.inline[key]!r}, the dataset "
                            f"has {theirs[key]!r}", path=path, line=line, row_id=resp.id,
                            field=key, expected="the same gold as the dataset, or no inline gold")


@dataclass
class _InFlight:
    chunk: Any
    known: dict[RuleTask, RuleResult]   # its verdicts already in memory when it was read
    sent: list[RuleTask]                # its tasks sent to the pool (the window's others not)
    future: Future | None
    waits: set[RuleTask] = field(default_factory=set)   # its tasks in other chunks' hands

    def ready(self) -> bool:
        return self.future is None or self.future.done()


class Grader:
    """A benchmark's grader under one policy and judge (what `Benchmark.grader` returns). Its
    pool verdicts are kept (`memory`): the runs of a problem mostly give the same answers.

    The hook (`rows`) has `desc` (the progress bar's label), `chunk_size`, `judge_needed`,
    `judge_prompt` (its own, or None) and `chunk(pairs, policy)`, a planned chunk with
    `tasks` (for the pool), `ruled(verdicts)` (the next round's tasks, none when done),
    `questions()` then `judged(answers)` (one judge batch per chunk) and `rows()`."""

    def __init__(self, rows: Any, pairing: Pairing | None = None, *,
                 policy: str | None = None, judge=None, workers: int | None = None,
                 timeout: float = DEFAULT_TIMEOUT):
        self.policy = default_policy(policy, judge)
        check_policy(self.policy, judge, rows.judge_needed)
        check_timeout(timeout)
        check_workers(workers)
        self.rows, self.pairing = rows, pairing
        self.judge, self.workers, self.timeout = judge, workers, timeout
        using = getattr(judge, "using", None)
        self.asks = using(rows.judge_prompt) if rows.judge_prompt and callable(using) else judge
        self.uses_judge = self.policy != "rule"   # grade_file: one read of the file if not
        self.memory = Memo(MEMORY)

    def grade(self, responses: Iterable, *, path: str | None = None, checked: bool = False,
              progress: bool = False, **options) -> Iterator:
        """Each response (a Response or its dict) paired with its problem, then graded.
        `checked=True`: a first pass already made the checks (grade_file)."""
        def pairs() -> Iterator[tuple[Response, Any]]:
            for n, r in enumerate(responses, start=1):
                line = n if path is not None else None
                if not isinstance(r, Response):
                    r = Response.from_dict(r, path=path, line=line)
                yield r, self.pairing.pair(r, path=path, line=line, check=not checked)

        total = len(responses) if hasattr(responses, "__len__") else None
        return self.run(pairs(), progress=progress, total=total, **options)

    def run(self, pairs: Iterable[tuple[Response, Any]], *, progress: bool = False,
            total: int | None = None, pool: RulePool | None = None,
            chunk_size: int | None = None) -> Iterator:
        """The loop itself, on (response, problem) pairs: the hook's graded rows."""
        pairs = iter(pairs)
        size = chunk_size or self.rows.chunk_size
        window: deque[_InFlight] = deque()   # oldest first
        found: dict[RuleTask, RuleResult] = {}   # the pool's, for the window's chunks
        helper = ThreadPoolExecutor(1, thread_name_prefix="general365-pool")
        bar = None
        more = True
        try:
            while more or window:
                if more and (len(window) < 2 or (len(window) < MAX_IN_FLIGHT
                                                 and not window[0].ready())):
                    rows = list(islice(pairs, size))
                    if progress and bar is None:
                        # drawn once the first chunk is read (and checked): a bad line
                        # there is one error line, not a bar and an error
                        from tqdm import tqdm

                        bar = tqdm(total=total, unit="resp", desc=self.rows.desc,
                                   file=sys.stderr, dynamic_ncols=True)
                    if rows:
                        window.append(self._send(self.rows.chunk(rows, self.policy), window,
                                                 helper, pool))
                    else:
                        more = False
                    continue
                entry = window.popleft()
                done = self._finish(entry, found, pool)
                needed = set().union(*(e.waits for e in window)) if window else set()
                for t in [t for t in found if t not in needed]:
                    del found[t]
                yield from done
                if bar is not None:
                    bar.update(len(done))
        except BaseException:
            if bar is not None:
                bar.leave = False   # stopped by an error: the error, not a half bar, stays
            raise
        finally:
            helper.shutdown(wait=True)
            if bar is not None:
                bar.close()

    def _send(self, chunk: Any, window: deque, helper: ThreadPoolExecutor,
              pool: RulePool | None) -> _InFlight:
        """Each distinct task goes to the pool once (one sent for a chunk in the window
        comes from its results)."""
        in_window = set().union(*(e.sent for e in window)) if window else set()
        known, sent = self._known(chunk.tasks)
        waits = {t for t in sent if t in in_window}
        sent = [t for t in sent if t not in waits]
        future = helper.submit(self._pool(pool).map, sent, self.timeout) if sent else None
        return _InFlight(chunk, known, sent, future, waits)

    def _finish(self, entry: _InFlight, found: dict, pool: RulePool | None) -> list:
        """One chunk's verdicts completed (the pool's, then the judge's)."""
        if entry.future is not None:
            found.update(self._paid(entry.sent, entry.future.result()))
        chunk = entry.chunk
        if chunk.tasks:
            more = chunk.ruled({t: entry.known.get(t) or found[t] for t in chunk.tasks})
            while more:   # a further round (CFE-Bench's formulas), on this thread
                known, todo = self._known(more)
                if todo:
                    known.update(self._paid(todo, self._pool(pool).map(todo, self.timeout)))
                more = chunk.ruled(known)
        questions = chunk.questions()
        if questions:
            chunk.judged(ask(self.asks, questions))
        return chunk.rows()

    def _known(self, tasks: Sequence[RuleTask]) -> tuple[dict, list[RuleTask]]:
        """(the verdicts this grader already paid for, the distinct tasks still to grade)"""
        known, todo = {}, []
        for t in dict.fromkeys(tasks):
            res = self.memory.get(t)
            if res is None:
                todo.append(t)
            else:
                known[t] = res
        return known, todo

    def _paid(self, tasks: Sequence[RuleTask], results: Sequence[RuleResult]) -> dict:
        found = dict(zip(tasks, results))
        for task, res in found.items():
            # a timeout may pass on a calmer machine
            if res.status is not Status.TIMEOUT and len(task.candidate) <= KEY_MAX:
                self.memory.put(task, res)
        return found

    def _pool(self, pool: RulePool | None) -> RulePool:
        return pool if pool is not None else shared_pool(self.workers)

    def close(self) -> None:
        if self.judge is not None and hasattr(self.judge, "close"):
            self.judge.close()
