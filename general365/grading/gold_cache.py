"""Per-grader memory of golds and verdicts: each problem's gold parsed once, and the
verdicts already paid for (the exact fast path's, math-verify's) kept for the answers that
recur: the runs of a problem, and a group's generations in RL, mostly give the same few.
Bounded: each table is cleared past its limit."""

from __future__ import annotations

from ..answers.gold import GoldAnswer, parse_gold
from ..errors import DataError
from ..schema import Problem, Status
from . import choice
from .pool import RuleTask
from .rule import RuleResult, grade_fast

_UNKNOWN = object()
_FAST_KEY_MAX = 1000   # longer answers are rare and not worth holding as keys


class GoldCache:
    """Each problem's gold parsed once (keyed by the gold itself, so inline golds repeated
    on every response of a problem are parsed once too)."""

    def __init__(self):
        self._rule: dict[tuple, GoldAnswer] = {}
        self._letters: dict[str, frozenset[str] | None] = {}
        self._verdicts: dict[RuleTask, RuleResult] = {}  # math-verify verdicts already paid for
        self._fast: dict[tuple, RuleResult | None] = {}   # grade_fast's, by gold and answer

    def known(self, gold: GoldAnswer, candidate: str) -> RuleResult | None:
        return self._verdicts.get(RuleTask(gold, candidate))

    def fast(self, gold: GoldAnswer, candidate: str) -> RuleResult | None:
        """grade_fast(gold, candidate), remembered: the runs of a problem mostly give the
        same few answers (a pure function of the two; None: math-verify must decide)."""
        if len(candidate) > _FAST_KEY_MAX:
            return grade_fast(gold, candidate)
        key = (gold.key, gold.labels, candidate)
        res = self._fast.get(key, _UNKNOWN)
        if res is _UNKNOWN:
            if len(self._fast) > 10_000:
                self._fast.clear()
            res = self._fast[key] = grade_fast(gold, candidate)
        return res

    def remember(self, found: dict[RuleTask, RuleResult]) -> None:
        if len(self._verdicts) > 10_000:
            self._verdicts.clear()
        for task, res in found.items():
            if res.status is not Status.TIMEOUT:  # a timeout may pass on a calmer machine
                self._verdicts[task] = res

    def rule(self, p: Problem) -> GoldAnswer:
        question = getattr(p, "question", None)
        key = (p.answer, p.answer_type, p.float_round, question)
        gold = self._rule.get(key)
        if gold is None:
            try:
                gold = parse_gold(p.answer, p.answer_type, p.float_round, question)
            except ValueError as exc:
                raise DataError(f"the gold answer does not parse: {exc}", row_id=p.id,
                                field="answer", value=p.answer,
                                expected=f"a valid {p.answer_type.value} answer") from None
            if len(self._rule) > 5_000:  # a bound for streams of inline golds
                self._rule.clear()
            self._rule[key] = gold
        return gold

    def letters(self, p: Problem) -> frozenset[str] | None:
        if p.answer not in self._letters:
            self._letters[p.answer] = choice.gold_letters(p.answer)
        return self._letters[p.answer]
