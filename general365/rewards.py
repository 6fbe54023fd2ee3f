"""Reward functions for RL fine-tuning on General365, in TRL's convention:
`func(completions, **columns) -> list[float]`, one reward per completion.

- `accuracy_reward`: 1.0 where the benchmark's own grader (the `rule` policy's verdicts)
  finds the completion `correct`, else 0.0. Text answers need the LLM judge
  (`AccuracyReward(judge=Judge(...))`); without one they score `ungraded_reward`.
- `format_reward`: 1.0 for a closed reasoning block then a final answer in the form the
  prompt asks for (a non-empty `\\boxed{}`; for choice problems an option letter).

A completion is a string or TRL's list of messages (the last assistant message is graded).
Neither reward ever raises on one: an odd one (None, a number, bytes that are not UTF-8,
lone surrogates, a megabyte of text) is read as what it safely can be, or scores 0.0, so a
trainer never stops at step 40,000 for one odd sample. Why each scored what it did goes to
TRL's `log_metric` (the share of each status) and `log_extra` (a completions-table column),
and `last_results`. See docs/training.md.
"""

from __future__ import annotations

import itertools
import logging
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from .errors import DataError, OptionError, UserError
from .markers import CLOSES, OPENS, last_marker, split_reasoning
from .schema import AnswerType, Problem, Response, Status
from .terminal import shown
from .validators import is_number, lone_surrogate

log = logging.getLogger(__name__)

# The grader's statuses, plus a reference row that is not valid and a grading failure:
# both score 0.0 and are logged, never raised mid-training.
INVALID_REFERENCE = "invalid_reference"
ERROR = "error"
STATUSES = tuple(s.value for s in Status) + (INVALID_REFERENCE, ERROR)

_MEMO_MAX = 100_000  # reference rows kept per reward function (a few MB)

# What the rewards add to TRL's completions table: by default one compact column, so that
# the prompt and the completion keep the table's width.
COLUMNS = ("compact", "full", "none")
_COMPACT_ANSWER = 24   # characters of the extracted answer shown in the compact column

# warm_up()'s batch: answers only math-verify reads (a number, an interval), and a letter.
_WARM_UP = (["</think>\\boxed{\\sqrt{4}}", "</think>\\boxed{0 < x \\le 1}", "</think>\\boxed{B}"],
            ["2", "(0, 1]", "B"], ["number", "interval", "single_choice"])


# --- completions as text ----------------------------------------------------------------

# Where chat APIs and parsers put a reasoning block they split off the content.
REASONING_FIELDS = ("reasoning_content", "reasoning", "thinking")


def _text_of(content: Any) -> str:
    """A message's content: a string, or a list of parts ({"type": "text", "text": ...})."""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        texts = (part.get("text") if isinstance(part, Mapping) else part for part in content)
        return "".join(t for t in texts if isinstance(t, str))
    return ""


def clean_text(text: Any) -> str:
    """A str that encodes: bytes decoded as UTF-8 (bad bytes replaced), lone surrogates
    replaced (they would break the judge's JSON or a log line), anything else empty."""
    if isinstance(text, (bytes, bytearray)):
        return bytes(text).decode("utf-8", "replace")
    if not isinstance(text, str):
        return ""
    return text.encode("utf-8", "replace").decode("utf-8") if lone_surrogate(text) else text


def completion_parts(completion: Any) -> tuple[str, bool]:
    """(the text to grade, whether a separate reasoning field was filled). For a list of
    messages the last assistant message is the final turn: its content is graded."""
    if isinstance(completion, Mapping):
        completion = [completion]
    if isinstance(completion, (list, tuple)):
        messages = [m for m in completion if isinstance(m, Mapping)]
        final = next((m for m in reversed(messages)
                      if m.get("role", "assistant") == "assistant"), None)
        if final is None:
            return "", False
        separate = any(_text_of(final.get(f)).strip() for f in REASONING_FIELDS)
        return clean_text(_text_of(final.get("content"))), separate
    return clean_text(completion), False


def graded_tail(text: str) -> str:
    """The part of `text` grading reads, with the same verdict as the whole text: from the
    last reasoning close marker on (str.rfind: microseconds on 30k characters). A block
    opened and never closed has no answer: its marker alone is kept."""
    cut = last_marker(text, CLOSES)[0]
    if cut >= 0:
        return text[cut:]
    return next((marker for marker in OPENS if marker in text), text)


@dataclass(frozen=True)
class RewardResult:
    """One completion's reward and why: `status` is one of STATUSES, `extracted` the answer
    read from it, `detail` the grader's reason where it gives one."""

    reward: float | None
    status: str
    detail: str | None = None
    extracted: str | None = None
    method: str | None = None


def _column(value: Any, name: str, n: int, required: bool) -> list | None:
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
    """The accuracy reward, configured (docs/training.md has the options). Calling it
    grades a batch in TRL's convention; `score` returns the `RewardResult`s. `columns`:
    "compact" (one `general365` column, "status: answer"), "full" (`general365_status`
    and `general365_answer`) or "none"."""

    def __init__(self, judge=None, *, timeout: float | None = None, workers: int | None = None,
                 ungraded_reward: float | None = 0.0, name: str = "general365_accuracy",
                 columns: str = "compact"):
        # Refused here, with the grader's own checks: inside a call a bad option would only
        # score every completion 0.0. `import general365.rewards` stays cheap.
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
        self.judge, self.timeout, self.workers = judge, timeout, workers
        self.ungraded_reward, self.columns, self.__name__ = ungraded_reward, columns, name
        self.last_results: list[RewardResult] = []
        self._reset()

    def _reset(self) -> None:
        # Made on first use: the graders (rule, and the judge's for text answers) and the
        # problem of each reference row.
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
        """Start the shared rule-grading pool now (on a background thread unless `wait`),
        so that the first batch does not wait seconds for it."""
        import threading

        def start() -> None:
            # A small batch through the whole path, on a throwaway reward (this one's
            # results and caches are untouched); the pool is the shared one.
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
            counts = Counter(r.status for r in results)
            for status in STATUSES:  # every status, every batch: steady log keys
                log_metric(f"general365/{status}", counts[status] / len(results))
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
        """Grade a batch: one `RewardResult` per completion, in order."""
        completions = list(completions)
        n = len(completions)
        answers = _column(answer, "answer", n, True)
        types = _column(answer_type, "answer_type", n, True)
        rounds = _column(float_round, "float_round", n, False)
        questions = _column(question, "question", n, False)
        rule, judged = self._graders_made()
        results: list[RewardResult | None] = [None] * n
        by_rule, by_judge = [], []
        for i in range(n):
            problem = self._problem(answers[i], types[i], rounds[i] if rounds else 0,
                                    questions[i] if questions else None)
            if isinstance(problem, RewardResult):
                results[i] = problem
                continue
            pair = (Response(problem.id, i, graded_tail(completion_parts(completions[i])[0])),
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
        """The row's problem (made once per distinct reference), or the row's result when
        the reference is not valid."""
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
    """A result in a few characters for the completions table: `status: answer`."""
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
    part = graded_tail(text)
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
    """1.0 where format_status is "ok", else 0.0. A reasoning block counts when the
    completion closes one (the opening marker may be in the prompt) or its message carries
    one in a separate field. With `column=True` each status (FORMAT_STATUSES) also goes to
    TRL's completions table as the `general365_format_status` column."""

    def __init__(self, *, column: bool = False, name: str = "general365_format"):
        self.column = bool(column)
        self.__name__ = name

    def __repr__(self) -> str:
        return f"FormatReward(name={self.__name__!r}, column={self.column})"

    def __call__(self, completions: Sequence, answer_type: Sequence[str] | None = None,
                 log_extra: Callable[[str, list], None] | None = None,
                 **columns) -> list[float]:
        completions = list(completions)
        types = list(answer_type) if answer_type is not None else [None] * len(completions)
        if len(types) != len(completions):
            raise UserError(f"column 'answer_type' has {len(types)} values for "
                            f"{len(completions)} completions")
        statuses = []
        for c, t in zip(completions, types):
            try:
                statuses.append(format_status(c, t))
            except Exception as exc:  # never raise mid-training; say why in the log
                log.warning("general365 format reward: a completion scores 0.0 after %s: %s",
                            type(exc).__name__, shown(exc))
                statuses.append(ERROR)
        if callable(log_extra) and self.column:
            log_extra("general365_format_status", statuses)
        return [1.0 if s == "ok" else 0.0 for s in statuses]


format_reward = FormatReward()
"""The default format reward: no column in TRL's completions table."""
