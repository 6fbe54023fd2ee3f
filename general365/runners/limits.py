"""How many tokens each request may generate, decided before anything is generated.

`max_tokens` is always explicit when it reaches an engine (vLLM's default is 16 tokens,
transformers' 20); left unset, it is `max_model_len - prompt_tokens`. A prompt that cannot
fit is refused up front: engines differ here, and a run whose answers were silently cut
would be scored as if they were not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import UserError
from .base import GenerationRequest


@dataclass(frozen=True)
class Budget:
    """One request's token budget: its prompt's length and what it may generate."""

    prompt_tokens: int
    max_tokens: int


def _refusal(problem_id: str, run: int, prompt_tokens: int, max_tokens: int | None,
             max_model_len: int) -> str:
    who = f"id {problem_id!r} (run {run})"
    if max_tokens is None:
        return (f"{who}: the prompt has {prompt_tokens} tokens, which leaves no room to "
                f"generate within max_model_len {max_model_len}; a model with a longer "
                f"context is needed")
    return (f"{who}: prompt tokens {prompt_tokens} + max_tokens {max_tokens} = "
            f"{prompt_tokens + max_tokens} exceeds max_model_len {max_model_len}; lower "
            f"--max-tokens or leave it unset (= the context minus the prompt)")


def resolve_max_tokens(problem_id: str, prompt_tokens: int, max_tokens: int | None,
                       max_model_len: int, *, run: int = 0) -> int:
    """The explicit max_tokens for one request; raises UserError if it cannot fit."""
    if max_tokens is not None and max_tokens < 1:
        raise UserError(f"id {problem_id!r} (run {run}): max_tokens must be at least 1 "
                        f"(got {max_tokens})")
    if prompt_tokens >= max_model_len or (
            max_tokens is not None and prompt_tokens + max_tokens > max_model_len):
        raise UserError(_refusal(problem_id, run, prompt_tokens, max_tokens, max_model_len))
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
