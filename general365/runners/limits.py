"""Token budgets and counts. What each request may generate is decided before anything is:
`max_tokens` reaches an engine explicit (vLLM's default is 16, transformers' 20), unset it is
`max_model_len - prompt_tokens`, and a prompt that cannot fit is refused up front. A local
engine's output becomes a `Generation` here, the same way for every local backend."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..errors import UserError
from ..markers import CLOSE_RE, REASONING_MARKERS, split_reasoning
from .base import Generation, GenerationRequest


@dataclass(frozen=True)
class Budget:
    prompt_tokens: int
    max_tokens: int


def resolve_max_tokens(problem_id: str, prompt_tokens: int, max_tokens: int | None,
                       max_model_len: int, *, run: int = 0) -> int:
    """The explicit max_tokens for one request; raises UserError if it cannot fit."""
    who = f"id {problem_id!r} (run {run})"
    if max_tokens is not None and max_tokens < 1:
        raise UserError(f"{who}: max_tokens must be at least 1 (got {max_tokens})")
    if max_tokens is None and prompt_tokens >= max_model_len:
        raise UserError(f"{who}: the prompt has {prompt_tokens} tokens, which leaves no room to "
                        f"generate within max_model_len {max_model_len}; a model with a longer "
                        f"context is needed")
    if max_tokens is not None and prompt_tokens + max_tokens > max_model_len:
        raise UserError(f"{who}: prompt tokens {prompt_tokens} + max_tokens {max_tokens} = "
                        f"{prompt_tokens + max_tokens} exceeds max_model_len {max_model_len}; "
                        f"lower --max-tokens or leave it unset (= the context minus the prompt)")
    return max_model_len - prompt_tokens if max_tokens is None else max_tokens


def plan_budgets(requests: Sequence[GenerationRequest], prompt_tokens: Sequence[int],
                 max_model_len: int) -> list[Budget]:
    """Budgets for all requests, or one UserError for the first that cannot fit (with a
    count of the others), so that a run is refused whole rather than half done."""
    if len(requests) != len(prompt_tokens):
        raise ValueError("one prompt length per request is needed")
    budgets: list[Budget] = []
    first: UserError | None = None
    bad = 0
    for req, n in zip(requests, prompt_tokens):
        try:
            budgets.append(Budget(n, resolve_max_tokens(
                req.problem_id, n, req.sampling.max_tokens, max_model_len, run=req.run)))
        except UserError as exc:
            bad += 1
            first = first or exc
    if first is not None:
        more = f" ({bad - 1} more request(s) do not fit either)" if bad > 1 else ""
        raise UserError(f"{first}{more}")
    return budgets


class ReasoningCounter:
    """Counts the output tokens up to the last closing reasoning marker: its position where
    the marker is one token (real reasoning models), else the shortest prefix of the ids
    that decodes past it (bisection)."""

    def __init__(self, tokenizer: Any):
        self.tokenizer = tokenizer
        vocab = tokenizer.get_vocab()
        self.close_ids = frozenset(vocab[close] for _, close in REASONING_MARKERS if close in vocab)

    def count(self, text: str, token_ids: Sequence[int]) -> int | None:
        ends = [m.end() for m in CLOSE_RE.finditer(text)]
        if not ends:
            return None
        for i in range(len(token_ids) - 1, -1, -1):
            if token_ids[i] in self.close_ids:
                return i + 1
        # The shortest prefix that decodes past the marker (the whole output at most).
        decoded = partial(self.tokenizer.decode, skip_special_tokens=True)
        return 1 + bisect.bisect_left(range(1, len(token_ids)), ends[-1],
                                      key=lambda n: len(decoded(token_ids[:n])))


def make_generation(req: GenerationRequest, *, text: str, token_ids: Sequence[int],
                    finish_reason: str | None, budget: Budget,
                    counter: ReasoningCounter | None) -> Generation:
    """`output_tokens` counts every generated token, the stop token included (as vLLM and
    the OpenAI API count usage). A response cut off inside its reasoning keeps
    finish_reason "length" and gets no `reasoning`: there is no answer part to split from."""
    reasoning, _, closed = split_reasoning(text)
    reasoning_tokens = None
    if reasoning is None or not closed:
        reasoning = None
    elif counter is not None:
        reasoning_tokens = counter.count(text, token_ids)
    return Generation(
        problem_id=req.problem_id, run=req.run, response=text, finish_reason=finish_reason,
        output_tokens=len(token_ids), reasoning=reasoning, reasoning_tokens=reasoning_tokens,
        prompt_tokens=budget.prompt_tokens,
        sampling={**req.sampling.to_dict(), "max_tokens": budget.max_tokens})
