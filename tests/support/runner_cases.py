"""Fixtures and helpers for the local runners (owned by the runners work).

    vllm_runner          a VLLMRunner on the tiny model (the real offline engine), started
                         once a session
    transformers_runner  a TransformersRunner on the tiny model, once a session
    local                each of the two in turn (a parametrised fixture): .runner,
                         .tokenizer, .backend; the behaviour every local runner must show is
                         tested once against it (tests/engines/test_runner_local.py)

Both engines are session-scoped, so a backend's own tests (test_runner_vllm.py,
test_runner_transformers.py) and the shared ones use the same engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from general365.runners.base import GenerationRequest, SamplingSettings

VLLM_MAX_MODEL_LEN = 512
VLLM_ENGINE = dict(max_model_len=VLLM_MAX_MODEL_LEN, dtype="float32", enforce_eager=True)
TRANSFORMERS_BATCH = 4


@pytest.fixture(scope="session")
def vllm_runner(tiny_model_dir):
    pytest.importorskip("vllm", reason="vllm is not installed (pip install 'general365[vllm]')")
    from general365.runners.vllm import VLLMRunner

    r = VLLMRunner(str(tiny_model_dir), **VLLM_ENGINE)
    yield r
    r.close()


@pytest.fixture(scope="session")
def transformers_runner(tiny_model_dir):
    from general365.runners.transformers import TransformersRunner

    r = TransformersRunner(str(tiny_model_dir), batch_size=TRANSFORMERS_BATCH)
    yield r
    r.close()


@dataclass(frozen=True)
class Local:
    backend: str
    runner: Any
    tokenizer: Any


@pytest.fixture(scope="session", params=[pytest.param("vllm", marks=pytest.mark.slow),
                                         "transformers"])
def local(request) -> Local:
    runner = request.getfixturevalue(f"{request.param}_runner")
    tokenizer = runner._engine.tokenizer if request.param == "vllm" else runner.tokenizer
    return Local(request.param, runner, tokenizer)


QUESTION = "What is 2+2? Put the answer in \\boxed{}."
MESSAGES = ({"role": "user", "content": QUESTION},)


def request(pid="p", run=0, *, seed=None, max_tokens=8, temperature=1.0, top_p=1.0, top_k=-1,
            messages=MESSAGES, **extra):
    settings = SamplingSettings(temperature=temperature, top_p=top_p, top_k=top_k,
                                max_tokens=max_tokens, seed=run if seed is None else seed,
                                extra=tuple(extra.items()))
    return GenerationRequest(pid, run, messages, settings)


def by_key(generations):
    return {(g.problem_id, g.run): g for g in generations}


def token_id(tokenizer, token: str) -> int:
    (tid,) = tokenizer.encode(token, add_special_tokens=False)
    return tid


