"""The one small protocol every backend implements, and the paper's sampling settings.
Runners know nothing of grading or of the run store: the store decides what is missing,
the runner only generates it."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Iterator, Protocol, runtime_checkable


@dataclass(frozen=True)
class SamplingSettings:
    """What the paper fixes (section 3.1) plus what a run must record to be reproducible.
    `top_k = -1` means off, as in the paper."""

    temperature: float
    top_p: float = 1.0
    top_k: int = -1
    max_tokens: int | None = None  # None: the most the model's context allows after the prompt
    seed: int | None = None
    preset: str | None = None
    extra: tuple[tuple[str, Any], ...] = ()  # e.g. (("chat_template_kwargs", {...}),), hashable

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["extra"] = {k: v for k, v in self.extra}
        return d

    def key(self) -> str:
        """A stable identity of the settings, seed excluded (each run has its own seed)."""
        d = self.to_dict()
        d.pop("seed")
        return json.dumps(d, sort_keys=True, default=str)

    def with_seed(self, seed: int | None) -> "SamplingSettings":
        return dataclasses.replace(self, seed=seed)


PRESETS: dict[str, dict[str, Any]] = {
    # Paper, section 3.1: T = 1.0 for reasoning models, 0.7 for non-reasoning ("chat")
    # models; top-p 1.0 and top-k unconstrained for both.
    "reasoning": {"temperature": 1.0, "top_p": 1.0, "top_k": -1},
    "chat": {"temperature": 0.7, "top_p": 1.0, "top_k": -1},
}


def preset(name: str, **overrides: Any) -> SamplingSettings:
    from ..errors import UserError

    if name not in PRESETS:
        raise UserError(f"unknown preset {name!r}; expected one of {', '.join(PRESETS)}")
    values = {**PRESETS[name], **overrides}
    return SamplingSettings(preset=name, **values)


def run_seed(base_seed: int, run: int) -> int:
    """Each repeat gets its own seed, derived so that runs are reproducible and distinct."""
    return base_seed + 1000003 * run


@dataclass(frozen=True)
class GenerationRequest:
    problem_id: str
    run: int
    messages: tuple[dict[str, str], ...]
    sampling: SamplingSettings

    def prompt_hash(self) -> str:
        text = json.dumps(list(self.messages), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def template_kwargs(self, runner_kwargs: dict[str, Any] | None) -> dict[str, Any]:
        """The runner's chat template options, and the settings' own, which win (they are part
        of the store key)."""
        own = dict(self.sampling.extra).get("chat_template_kwargs") or {}
        return {**(runner_kwargs or {}), **own}


@dataclass
class Generation:
    """One backend output. `response` is the full text (reasoning markers included where the
    backend returns them inline); `reasoning` is the reasoning part where it can be split."""

    problem_id: str
    run: int
    response: str
    finish_reason: str | None
    output_tokens: int | None
    reasoning: str | None = None
    reasoning_tokens: int | None = None
    prompt_tokens: int | None = None
    sampling: dict[str, Any] = field(default_factory=dict)
    error: str | None = None  # set when the backend gave up on this request


@runtime_checkable
class Runner(Protocol):
    """A backend. `model_id` names the model (with its revision) for the store."""

    model_id: str
    backend: str
    max_model_len: int | None  # the context length in tokens, where the backend knows it

    def prepare(self, requests: list[GenerationRequest]) -> Any:
        """Refuse (one UserError line) any request that does not fit the model's context,
        before anything is generated (limits.py)."""

    def generate(self, requests: list[GenerationRequest]) -> Iterator[Generation]:
        """Yield one Generation per request, in any order, as they complete."""

    def close(self) -> None: ...

    def provenance(self) -> dict[str, Any]: ...
