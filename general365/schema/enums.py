"""The vocabularies every record uses: answer types, the paper's eight categories,
statuses and grading methods."""

from __future__ import annotations

import enum
from typing import Any

from ..errors import DataError


class _StrEnum(str, enum.Enum):
    def __str__(self) -> str:  # so f-strings and json.dumps(default=str) show the value
        return self.value

    @classmethod
    def values(cls) -> list[str]:
        return [m.value for m in cls]

    @classmethod
    def parse(cls, value: Any, **where: Any):
        try:
            return cls(value)
        except ValueError:
            raise DataError(
                f"unknown {cls.__name__}", value=value,
                expected="one of " + ", ".join(cls.values()), **where,
            ) from None


class AnswerType(_StrEnum):
    NUMBER = "number"
    INTERVAL = "interval"
    SINGLE_CHOICE = "single_choice"
    MULTIPLE_CHOICE = "multiple_choice"
    TEXT = "text"

    @property
    def is_rule_graded(self) -> bool:
        """Number and interval answers are graded by math-verify (the paper's rule half)."""
        return self in (AnswerType.NUMBER, AnswerType.INTERVAL)

    @property
    def is_choice(self) -> bool:
        return self in (AnswerType.SINGLE_CHOICE, AnswerType.MULTIPLE_CHOICE)


class Category(_StrEnum):
    """The paper's eight challenge categories (section 2.1), in the order of its Table 1."""

    COMPLEX_CONSTRAINTS = "Complex Constraints"
    BRANCHING_ENUMERATION = "Branching & Enumeration"
    SPATIAL_TEMPORAL = "Spatial & Temporal"
    RECURSIVE_BACKTRACKING = "Recursive & Backtracking"
    SEMANTIC_INTERFERENCE = "Semantic Interference"
    IMPLICIT_INFORMATION = "Implicit Information"
    OPTIMAL_STRATEGY = "Optimal Strategy"
    PROBABILITY_UNCERTAINTY = "Probability & Uncertainty"


class Status(_StrEnum):
    CORRECT = "correct"
    INCORRECT = "incorrect"
    NO_ANSWER = "no_answer"
    TIMEOUT = "timeout"
    JUDGE_FAILED = "judge_failed"
    UNGRADED = "ungraded"


class Method(_StrEnum):
    RULE = "rule"
    CHOICE = "choice"
    JUDGE = "judge"
