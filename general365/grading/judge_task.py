"""A question for the LLM judge other than the General365 verdict, as a typed value.

The judge client (grading/judge.py) was built for one question, "is this prediction
correct?". A `JudgeTask` names another one (the analysis' reasoning similarity, 0-5) with
everything that differs between questions:

- `messages(item)`: the chat messages of one item (the prompt is the task's own);
- `version`: changes whenever the prompt text changes; it is in every cache key, so the
  answers of two prompts never mix;
- `reply` (a `ReplyFormat`): what a reply may be and how it is read: the choices of vLLM's
  structured outputs, the JSON schema of OpenAI's `response_format`, the strict parser and
  the corrective turn sent when a reply cannot be read;
- `combine(cast, k)`: how k votes make one answer, or None when the votes that failed
  could have changed it (the verdict's rule, generalised: a failed vote never decides).

Everything else is the client's and shared with the verdict: the cache file, retries with
backoff, re-asks, whole-request timeouts, key redaction, concurrency and votes
(`Judge.ask(task, items)`, grading/judge_ask.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Sequence, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Parsed:
    """What a task's parser read from one reply: a value, or why none could be read."""

    value: Any = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class ReplyFormat:
    """The shape of a judge's reply and its reader.

    name: the `json_schema` name sent with `response_format`;
    choices: the exact replies allowed by vLLM's `structured_outputs` choice;
    schema: the JSON schema of OpenAI's `response_format` (an object: OpenAI requires one);
    parse: reply text (or None) -> Parsed; strict: a reply it refuses is asked again;
    reask: the corrective user turn, with `{problem}` for what was wrong.
    """

    name: str
    choices: tuple[str, ...]
    schema: dict[str, Any]
    parse: Callable[[str | None], Parsed]
    reask: str


def majority_vote(cast: Sequence[Any], k: int) -> Any | None:
    """The value cast by more than half of the k votes (failed votes count against every
    value), else None."""
    if not cast:
        return None
    value, n = Counter(cast).most_common(1)[0]
    return value if 2 * n > k else None


def median_vote(cast: Sequence[Any], k: int) -> Any | None:
    """The median of k ordinal votes (k odd, so it is one of them), decided only when the
    votes that failed could not have moved it: with f failed votes the median lies between
    the cast votes' ranks (k-1)/2 - f and (k-1)/2, whatever the failed ones would have said,
    so it is decided when those two are equal. With k = 1: the one vote."""
    f = k - len(cast)
    m = (k - 1) // 2
    if not cast or f > m:
        return None
    ranked = sorted(cast)
    low, high = ranked[m - f], ranked[m]
    return high if low == high else None


@dataclass(frozen=True)
class JudgeTask(Generic[T]):
    """One kind of question for the judge (see the module docstring)."""

    name: str
    version: str
    messages: Callable[[T], list[dict[str, str]]]
    reply: ReplyFormat
    combine: Callable[[Sequence[Any], int], Any | None] = median_vote
    combine_rule: str = "median of the votes; undecided when failed votes could move it"


@dataclass
class TaskAnswer:
    """The judge's answer to one item of a task. `value` is None when the judge failed
    (every vote exhausted its retries and re-asks, or the votes that failed could have
    changed the outcome); `detail` says why."""

    value: Any
    model: str                  # the judge model as requested
    votes: list[Any] = field(default_factory=list)   # the values cast, in order
    raw: str | None = None      # the accepted reply (k > 1: a JSON list of the replies)
    served_model: str | None = None
    detail: str | None = None
    cached: bool = False
    attempts: int = 0           # HTTP requests made for this item (0 when cached)

    @property
    def failed(self) -> bool:
        return self.value is None
