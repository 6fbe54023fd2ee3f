"""Runners: generate responses with vLLM, an OpenAI-compatible API, or transformers, behind
one small protocol (base.py), into a resumable run store (store.py).

Backends are imported lazily (registry.make_runner), so `import general365.runners` stays
cheap and works without vllm, torch or openai installed."""

from .base import (PRESETS, Generation, GenerationRequest, Runner, SamplingSettings, preset,
                   run_seed)
from .registry import BACKENDS, make_runner
from .store import RecordKey, RunStore, model_key

__all__ = ["BACKENDS", "PRESETS", "Generation", "GenerationRequest", "RecordKey", "RunStore",
           "Runner", "SamplingSettings", "make_runner", "model_key", "preset", "run_seed"]
