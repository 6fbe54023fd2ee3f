"""A runner on vLLM's offline engine: one engine in this process (vllm_engine.py), or one
process per GPU group with data parallelism (vllm_dp.py). vLLM's own distributed options
pass straight through to the engine."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .base import Generation, GenerationRequest
from .limits import Budget, plan_budgets
from .options import parallel_options
from .vllm_dp import EnginePool
from .vllm_engine import Engine, cpu_platform, require_vllm, vllm_version


class VLLMRunner:
    backend = "vllm"

    def __init__(self, model: str, *, revision: str | None = None, tensor_parallel_size: int = 1,
                 data_parallel_size: int = 1, max_model_len: int | None = None,
                 gpu_memory_utilization: float = 0.9, dtype: str = "auto",
                 enforce_eager: bool = False, chat_template_kwargs: dict[str, Any] | None = None,
                 pipeline_parallel_size: int = 1,
                 distributed_executor_backend: str | None = None, **engine_kwargs: Any):
        from .store import model_key

        require_vllm()
        # The same check as general365.generate's, for those who build a runner themselves.
        parallel = parallel_options(tensor_parallel_size, pipeline_parallel_size,
                                    data_parallel_size, distributed_executor_backend)
        self.model_name, self.revision = model, revision
        self.model_id = model_key(model, revision)
        self.data_parallel_size = data_parallel_size
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.engine_args: dict[str, Any] = {
            **parallel, "max_model_len": max_model_len,
            "gpu_memory_utilization": gpu_memory_utilization, "dtype": dtype,
            "enforce_eager": enforce_eager, "seed": 0, **engine_kwargs}
        if "enable_chunked_prefill" not in engine_kwargs and cpu_platform():
            # vLLM's CPU build crashes ("CPU Generator does not use offset") when a seeded
            # request's prompt is prefilled in chunks, and every request here is seeded.
            self.engine_args["enable_chunked_prefill"] = False
        # One engine here, or one process per GPU group: both count and run alike.
        self._engine: Engine | EnginePool = (
            Engine(model, revision, self.engine_args, self.chat_template_kwargs)
            if data_parallel_size == 1 else
            EnginePool(model, revision, self.engine_args, self.chat_template_kwargs,
                       data_parallel_size))
        self.max_model_len = self._engine.max_model_len

    def prepare(self, requests: list[GenerationRequest]) -> list[Budget]:
        return plan_budgets(requests, self._live().count(requests), self.max_model_len)

    def generate(self, requests: list[GenerationRequest]) -> Iterator[Generation]:
        if not requests:
            return
        budgets = self.prepare(requests)  # all refusals happen here, before any output
        yield from self._live().run(requests, budgets)

    def _live(self) -> Engine | EnginePool:
        if isinstance(self._engine, Engine) and self._engine.llm is None:
            raise RuntimeError("this VLLMRunner is closed")
        return self._engine

    def close(self) -> None:
        self._engine.close()

    def provenance(self) -> dict[str, Any]:
        executor = self.engine_args.get("distributed_executor_backend")
        if isinstance(self._engine, Engine) and self._engine.llm is not None:
            # what vLLM chose ("uni", "mp", "ray"), when left open
            config = getattr(self._engine.llm.llm_engine, "vllm_config", None)
            executor = getattr(getattr(config, "parallel_config", None),
                               "distributed_executor_backend", None)
            executor = executor if isinstance(executor, str) else None
        return {"backend": self.backend, "model": self.model_name, "revision": self.revision,
                "vllm": vllm_version(), "data_parallel_size": self.data_parallel_size,
                "distributed_executor_backend": executor,
                **{k: v for k, v in self.engine_args.items()
                   if k not in ("max_model_len", "distributed_executor_backend")},
                "max_model_len": self.max_model_len,
                "chat_template_kwargs": self.chat_template_kwargs or None}
