"""Reward functions for RL fine-tuning on General365, in TRL's convention:
`func(completions, **columns) -> list[float]`, one reward per completion.

    from general365.rewards import accuracy_reward, format_reward
    trainer = GRPOTrainer(model=..., reward_funcs=[accuracy_reward, format_reward],
                          train_dataset=ds, ...)   # ds has answer, answer_type, float_round

- `accuracy_reward` grades each completion with the benchmark's own grader (the verdicts
  of `general365 grade` under the `rule` policy): number and interval answers by the exact
  fast path or math-verify in the shared warm pool, choice answers by the option-letter
  grader. 1.0 for `correct`, 0.0 for anything else. Text answers need the LLM judge:
  `AccuracyReward(judge=Judge(...))`; without one they score 0.0 with status `ungraded`
  (or None with `ungraded_reward=None`: TRL then takes no reward from this function).
- `format_reward`: 1.0 for a closed reasoning block then a final answer in the form the
  prompt asks for (a non-empty `\\boxed{}`; for choice problems an option letter, boxed or
  stated), else 0.0.

Neither ever raises on a completion: None, empty, binary, megabyte-long or badly encoded
completions score 0.0. Why each completion scored what it did is kept: TRL's `log_metric`
gets the share of each status per batch (`general365/<status>`), its `log_extra` one
compact `general365` column of the completions table ("correct: 42"; the status and the
answer as two columns with `AccuracyReward(columns="full")`), and
`accuracy_reward.last_results` holds the latest batch's `RewardResult`s (`.score()` returns
them, for callers outside TRL or on several threads). See docs/training.md.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .completions import completion_parts, final_part
from .errors import DataError, OptionError, UserError
from .markers import split_reasoning
from .schema import AnswerType, Problem, Response, Status
from .terminal import shown
from .validators import is_number

log = logging.getLogger(__name__)

# The grader's statuses, plus a reference row that is not valid (its gold does not parse,
# an unknown answer_type) and a grading failure (the pool could not start): both score 0.0
# and are logged, never raised mid-training.
INVALID_REFERENCE = "invalid_reference"
ERROR = "error"
STATUSES = tuple(s.value for s in Status) + (INVALID_REFERENCE, ERROR)

_MEMO_MAX = 100_000  # reference rows kept per reward function (a few MB)

# What the rewards add to TRL's completions table (log_completions=True), beside TRL's own
# prompt, completion, reward and advantage columns: by default one compact `general365`
# column ("correct: 42"), so that the prompt and the completion keep the table's width.
COLUMNS = ("compact", "full", "none")
_COMPACT_ANSWER = 24   # characters of the extracted answer shown in the compact column

# warm_up()'s batch: answers only math-verify reads (a number, an interval), and a letter.
_WARM_UP = (["</think>\\boxed{\\sqrt{4}}", "</think>\\boxed{0 < x \\le 1}", "</think>\\boxed{B}"],
            ["2", "(0, 1]", "B"], ["number", "interval", "single_choice"])


@dataclass(frozen=True)
class RewardResult:
    """One completion's reward and why: `status` is one of STATUSES, `extracted` the answer
    read from it, `detail` the grader's reason where it gives one."""

    reward: float | None
    status: str
    detail: str | None = None
    extracted: str | None = None
    method: str | None = None


def _column(given: dict[str, Any], name: str, n: int, required: bool) -> list | None:
    value = given.get(name)
    if value is None:
        if required:
            raise UserError(
                f"the reward needs the dataset's {name!r} column: TRL passes the training "
                "dataset's columns to reward functions, so keep it in the dataset (and "
                "GRPOConfig's remove_unused_columns at its default, False)")
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise UserError(f"column {name!r} must hold one value per completion")
    if len(value) != n:
        raise UserError(f"column {name!r} has {len(value)} values for {n} completions")
    return list(value)


class AccuracyReward:
    """The accuracy reward, configured. Calling it grades a batch in TRL's convention;
    `score` returns the `RewardResult`s.

    judge: a `general365.grading.judge.Judge` (or anything with `judge_batch`) for text
        answers; None: they score `ungraded_reward`.
    timeout: the rule grader's per-answer limit in seconds (past it: status `timeout`).
    workers: the shared rule-grading pool's size (default: the CPU count).
    name: what TRL calls it in its logs (`rewards/<name>/mean`).
    columns: what it adds to TRL's completions table: "compact" (one `general365` column,
        "status: answer"), "full" (`general365_status` and `general365_answer`) or "none".
    """

    def __init__(self, judge=None, *, timeout: float | None = None, workers: int | None = None,
                 ungraded_reward: float | None = 0.0, name: str = "general365_accuracy",
                 columns: str = "compact"):
        # Refused here, once, with the grader's own checks: inside a call a bad option
        # would only score every completion 0.0 (a reward never raises on a batch). The
        # grader is imported only then: `import general365.rewards` stays cheap.
        if judge is not None or timeout is not None or workers is not None:
            from .grading.engine import check_policy, check_timeout, check_workers

            if judge is not None:
                check_policy("paper", judge)
            if timeout is not None:
                check_timeout(timeout)
            check_workers(workers)
        if ungraded_reward is not None and not is_number(ungraded_reward):
            raise OptionError("ungraded_reward", f"must be a number or None (got "
                                                 f"{ungraded_reward!r})")
        if columns not in COLUMNS:
            raise OptionError("columns", f"must be one of {', '.join(COLUMNS)} (got {columns!r})")
        self.columns = columns
        self.judge = judge
        self.timeout = timeout
        self.workers = workers
        self.ungraded_reward = ungraded_reward
        self.__name__ = name
        self.last_results: list[RewardResult] = []
        self._reset()

    def _reset(self) -> None:
        # Made on first use (`import general365.rewards` stays cheap): the graders (rule,
        # and the judge's for text answers), sharing their golds, and the problem of each
        # reference row.
        self._graders: tuple | None = None
        self._problems: Any = None   # a Memo: reference -> Problem
        self._bad: Any = None        # a Memo of the bad references already logged
        self._ids = itertools.count()       # distinct problem ids, also across threads

    def __getstate__(self):  # picklable (multi-process trainers): the caches start afresh
        keep = ("judge", "timeout", "workers", "ungraded_reward", "__name__", "columns")
        return {k: self.__dict__[k] for k in keep} | {"last_results": []}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._reset()

    def __repr__(self) -> str:
        return f"AccuracyReward(name={self.__name__!r}, judge={self.judge!r})"

    def warm_up(self, wait: bool = False) -> None:
        """Start the shared rule-grading pool now, on a background thread unless `wait`,
        so that the first batch with an answer for math-verify does not wait seconds for
        it (call it before `trainer.train()`: the pool starts while the model loads)."""
        import threading

        def start() -> None:
            # A small batch through the whole path: the grader's modules are imported, the
            # pool's server warms what number and interval answers need, and its workers
            # are forked warm. A throwaway reward, so this one's results and caches are
            # untouched; the pool is the shared one that this reward's calls use.
            probe = AccuracyReward(timeout=self.timeout, workers=self.workers)
            results = probe.score(_WARM_UP[0], answer=_WARM_UP[1], answer_type=_WARM_UP[2])
            if any(r.status == ERROR for r in results):   # the first real call says it again
                log.warning("general365 reward: the rule-grading pool did not start: %s",
                            shown(next(r.detail for r in results if r.status == ERROR)))

        if wait:
            start()
        else:
            threading.Thread(target=start, name="general365-warm-up", daemon=True).start()

    @property
    def last_statuses(self) -> list[str]:
        return [r.status for r in self.last_results]

    def __call__(self, completions: Sequence, answer: Sequence[str] | None = None,
                 answer_type: Sequence[str] | None = None, float_round: Sequence | None = None,
                 question: Sequence[str] | None = None,
                 log_metric: Callable[[str, float], None] | None = None,
                 log_extra: Callable[[str, list], None] | None = None,
                 **columns) -> list[float | None]:
        results = self.score(completions, answer=answer, answer_type=answer_type,
                             float_round=float_round, question=question)
        self.last_results = results
        if callable(log_metric) and results:
            counts = dict.fromkeys(STATUSES, 0)
            for r in results:
                counts[r.status] += 1
            for status, k in counts.items():  # every status, every batch: steady log keys
                log_metric(f"general365/{status}", k / len(results))
        if callable(log_extra) and self.columns == "compact":
            log_extra("general365", [compact(r) for r in results])
        elif callable(log_extra) and self.columns == "full":
            log_extra("general365_status", [r.status for r in results])
            log_extra("general365_answer", [r.extracted for r in results])
        return [r.reward for r in results]

    # --- grading --------------------------------------------------------------------------

    def score(self, completions: Sequence, answer: Sequence[str] | None = None,
              answer_type: Sequence[str] | None = None, float_round: Sequence | None = None,
              question: Sequence[str] | None = None) -> list[RewardResult]:
        """Grade a batch: one `RewardResult` per completion, in order. The same answer to
        the same problem recurs all through RL (a group's generations agree): the graders
        keep what they paid for (grading/engine.py), so it is graded once."""
        completions = list(completions)
        n = len(completions)
        given = {"answer": answer, "answer_type": answer_type, "float_round": float_round,
                 "question": question}
        answers = _column(given, "answer", n, True)
        types = _column(given, "answer_type", n, True)
        rounds = _column(given, "float_round", n, False)
        questions = _column(given, "question", n, False)
        rule, judged = self._graders_made()
        results: list[RewardResult | None] = [None] * n
        by_rule, by_judge = [], []
        for i in range(n):
            problem = self._problem(answers[i], types[i], rounds[i] if rounds else 0,
                                    questions[i] if questions else None)
            if isinstance(problem, RewardResult):
                results[i] = problem
                continue
            pair = (Response(problem.id, i, final_part(completion_parts(completions[i])[0])),
                    problem)
            to_judge = judged is not None and problem.answer_type is AnswerType.TEXT
            (by_judge if to_judge else by_rule).append((i, pair))
        self._grade(rule, by_rule, results)
        self._grade(judged, by_judge, results)
        return results  # type: ignore[return-value]

    def _graders_made(self) -> tuple:
        if self._graders is None:
            from .grading.engine import Grader, Memo
            from .grading.hybrid import General365Rows

            rows = General365Rows()
            options: dict[str, Any] = {"workers": self.workers}
            if self.timeout is not None:
                options["timeout"] = self.timeout
            self._problems, self._bad = Memo(_MEMO_MAX), Memo(_MEMO_MAX)
            self._graders = (Grader(rows, policy="rule", **options),
                             Grader(rows, policy="paper", judge=self.judge, **options)
                             if self.judge is not None else None)
        return self._graders

    def _problem(self, gold, answer_type, float_round, question) -> Problem | RewardResult:
        """The row's problem (made, its gold parsed, once per distinct reference), or the
        row's result when the reference is not valid."""
        key = (gold, answer_type, float_round, question if self.judge is not None else None)
        try:
            found = self._problems.get(key)
        except TypeError:  # an unhashable value: not a valid reference either
            found, key = None, None
        if found is not None:
            return found
        try:
            problem = Problem.from_dict({
                "id": f"p{next(self._ids)}", "question": question or "(not given)",
                "answer": gold, "answer_type": answer_type, "float_round": float_round})
            if problem.answer_type.is_rule_graded:
                self._graders_made()[0].rows.gold(problem)
        except DataError as exc:
            seen = (repr(gold)[:200], repr(answer_type))
            if seen not in self._bad:  # once per bad reference, not once per completion
                self._bad.put(seen, True)
                log.warning("general365 reward: a reference row scores 0.0: %s", shown(exc))
            return RewardResult(0.0, INVALID_REFERENCE, str(exc))
        return problem if key is None else self._problems.put(key, problem)

    def _grade(self, grader, rows: list, results: list) -> None:
        if not rows:
            return
        try:
            graded = list(grader.run([pair for _, pair in rows]))
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # the pool or the judge failed: no reward, never a crash
            log.warning("general365 reward: grading failed, %d completions score 0.0: %s",
                        len(rows), shown(exc))
            for i, _ in rows:
                results[i] = RewardResult(0.0, ERROR, f"{type(exc).__name__}: {exc}")
            return
        for (i, _), g in zip(rows, graded):
            v = g.verdict
            reward = (self.ungraded_reward if v.status is Status.UNGRADED
                      else float(v.status is Status.CORRECT))
            results[i] = RewardResult(reward, v.status.value, v.detail, v.extracted,
                                      v.method.value if v.method else None)


def compact(result: RewardResult) -> str:
    """A result in a few characters for the completions table: `status: answer`, the
    answer cut to 24 characters."""
    answer = result.extracted
    if answer is None or answer == "":
        return result.status
    answer = " ".join(str(answer).split())
    if len(answer) > _COMPACT_ANSWER:
        answer = answer[:_COMPACT_ANSWER - 1] + "…"
    return f"{result.status}: {answer}"


accuracy_reward = AccuracyReward()
"""The default accuracy reward: no judge (text answers score 0.0, status `ungraded`)."""


# --- format ----------------------------------------------------------------------------

FORMAT_STATUSES = ("ok", "no_reasoning", "unclosed_reasoning", "no_answer", "no_box",
                   "no_option_letter", ERROR)


def format_status(completion: Any, answer_type: str | None = None) -> str:
    """Why a completion does or does not have the expected form (one of FORMAT_STATUSES)."""
    from .grading import choice
    from .grading.extract import extract
    from .grading.hybrid import usable

    text, separate = completion_parts(completion)
    part = final_part(text)
    reasoning, _, closed = split_reasoning(part)
    if not closed:
        return "unclosed_reasoning"
    if reasoning is None and not separate:
        return "no_reasoning"
    try:
        kind = AnswerType(answer_type) if answer_type is not None else None
    except ValueError:
        kind = None
    ex = extract(part, usable(kind) if kind is not None else None)
    if ex.candidate is None or ex.source == "bare":
        # a bare final line is graded as the answer, but it is not the form asked for
        return "no_answer"
    if kind is not None and kind.is_choice:
        return "ok" if choice.letters(ex.candidate) is not None else "no_option_letter"
    if ex.source == "boxed":
        return "ok"
    if kind is None and choice.letters(ex.candidate) is not None:
        return "ok"  # no answer type given: a stated option letter is an expected form too
    return "no_box"


class FormatReward:
    """1.0 for a closed reasoning block then a final answer in the expected form (a
    non-empty `\\boxed{}`; for choice problems an option letter, boxed or stated), else
    0.0. A reasoning block counts when the completion closes one (`</think>` and kin; the
    opening marker may be in the prompt) or its message carries one in a separate
    `reasoning_content` field. TRL logs it as `rewards/general365_format/mean`; with
    `column=True` each completion's status (FORMAT_STATUSES) also goes to TRL's
    completions table as the `general365_format_status` column (off by default: the
    table's width is the prompt's and the completion's)."""

    def __init__(self, *, column: bool = False, name: str = "general365_format"):
        self.column = bool(column)
        self.__name__ = name

    def __repr__(self) -> str:
        return f"FormatReward(name={self.__name__!r}, column={self.column})"

    def __call__(self, completions: Sequence, answer_type: Sequence[str] | None = None,
                 log_extra: Callable[[str, list], None] | None = None,
                 **columns) -> list[float]:
        statuses = format_statuses(completions, answer_type)
        if callable(log_extra) and self.column:
            log_extra("general365_format_status", statuses)
        return [1.0 if s == "ok" else 0.0 for s in statuses]


def format_statuses(completions: Sequence, answer_type: Sequence[str] | None = None
                    ) -> list[str]:
    """format_status of each completion; never raises on one (ERROR, logged)."""
    completions = list(completions)
    types = list(answer_type) if answer_type is not None else [None] * len(completions)
    if len(types) != len(completions):
        raise UserError(f"column 'answer_type' has {len(types)} values for "
                        f"{len(completions)} completions")
    statuses = []
    for c, t in zip(completions, types):
        try:
            statuses.append(format_status(c, t))
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # never raise mid-training; say why in the log
            log.warning("general365 format reward: a completion scores 0.0 after %s: %s",
                        type(exc).__name__, shown(exc))
            statuses.append(ERROR)
    return statuses


format_reward = FormatReward()
"""The default format reward: no column in TRL's completions table."""
