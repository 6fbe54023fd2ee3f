"""An engine's raw output (text, token ids, why it stopped) as a `Generation`, the same way
for every local backend."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..markers import CLOSE_RE, REASONING_MARKERS, split_reasoning
from .base import Generation, GenerationRequest
from .limits import Budget


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
        end = ends[-1]
        lo, hi = 1, len(token_ids)
        while lo < hi:
            mid = (lo + hi) // 2
            if len(self.tokenizer.decode(token_ids[:mid], skip_special_tokens=True)) >= end:
                hi = mid
            else:
                lo = mid + 1
        return lo


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
    sampling = {**req.sampling.to_dict(), "max_tokens": budget.max_tokens}
    return Generation(
        problem_id=req.problem_id, run=req.run, response=text, finish_reason=finish_reason,
        output_tokens=len(token_ids), reasoning=reasoning, reasoning_tokens=reasoning_tokens,
        prompt_tokens=budget.prompt_tokens, sampling=sampling,
    )
