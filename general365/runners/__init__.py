"""Runners: generate responses with vLLM, an OpenAI-compatible API, or transformers, behind
one small protocol (base.py), into a resumable run store (store.py).

Backends are imported lazily (registry.make_runner), so `import general365.runners` stays
cheap and works without vllm, torch or openai installed.

- base.py           the Runner protocol, requests, generations, the paper's sampling presets
- options.py        a generation's options, checked once before anything loads
- registry.py       backend name -> runner, importing only the chosen backend
- session.py        one generation session on a run folder (lock, pending, run.json)
- store.py          the run store: responses.jsonl (append-only) and run.json
- provenance.py     what run.json records about a run
- limits.py         token budgets, and an engine's raw output as a Generation
- engine_args.py    engine options with no flag of ours (`--engine-arg KEY=VALUE`)
- vllm.py           the vLLM offline runner
- vllm_engine.py    one vLLM engine in this process
- vllm_dp.py        data parallelism: one vLLM engine process per GPU group
- transformers.py   the transformers runner
- openai_api.py     the OpenAI-compatible API runner (prompts counted through /tokenize)
- endpoints.py      several endpoints serving one model: which takes the next request
"""

from .base import (PRESETS, Generation, GenerationRequest, Runner, SamplingSettings, preset,
                   run_seed)
from .registry import BACKENDS, make_runner
from .store import RecordKey, RunStore, model_key

__all__ = ["BACKENDS", "PRESETS", "Generation", "GenerationRequest", "RecordKey", "RunStore",
           "Runner", "SamplingSettings", "make_runner", "model_key", "preset", "run_seed"]
