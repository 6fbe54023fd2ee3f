"""The options of a generation, checked once, here, before anything loads or is written:
the Python API and the command line pass the same values through the same checks, so both
refuse exactly the same inputs (errors.OptionError names the option either way)."""

from __future__ import annotations

import importlib.util
import json
import os
from typing import Any, Callable, Mapping, Sequence

from ..errors import OptionError, UserError
from ..validators import StrictJSONError, is_finite, is_int, is_number, loads, problem_in
from .base import GenerationRequest, SamplingSettings, preset, run_seed
from .endpoints import check_urls
from .registry import check_backend

DEFAULT_SEED = 0

# options that are a count, at least 1 (None: unset)
_COUNTS = ("runs", "limit", "max_tokens", "concurrency", "max_attempts", "batch_size",
           "tensor_parallel_size", "data_parallel_size", "pipeline_parallel_size",
           "max_model_len")
_FINITE = ("temperature", "top_p", "request_timeout", "gpu_memory_utilization")
_TEXT = ("model", "revision", "system_prompt")
# vLLM's executors (ParallelConfig.distributed_executor_backend): "mp" processes on this
# node, "ray" a Ray cluster, "uni" this process ("external_launcher" needs torchrun ranks).
EXECUTOR_BACKENDS = ("mp", "ray", "uni")


def _check_count(name: str, value: Any, *, optional: bool = True) -> None:
    if value is None and optional:
        return
    if not is_int(value):
        raise OptionError(name, f"must be an integer (got {value!r})")
    if value < 1:
        raise OptionError(name, f"must be at least 1 (got {value})")


def check_options(o: Mapping[str, Any]) -> None:
    """Every out-of-range value refused with one line."""
    check_backend(o["backend"])
    for name in _COUNTS:
        _check_count(name, o.get(name))
    # float('nan') and float('inf') pass every comparison below unnoticed.
    for name in _FINITE:
        value = o.get(name)
        if value is None:
            continue
        if not is_number(value):
            raise OptionError(name, f"must be a number (got {value!r})")
        if not is_finite(value):
            raise OptionError(name, f"must be a finite number (got {value})")
    if o.get("temperature") is not None and o["temperature"] < 0:
        raise OptionError("temperature", f"must be >= 0 (got {o['temperature']})")
    if o.get("top_p") is not None and not 0 < o["top_p"] <= 1:
        raise OptionError("top_p", f"must be in (0, 1] (got {o['top_p']})")
    top_k = o.get("top_k")
    if top_k is not None and (not is_int(top_k) or top_k == 0 or top_k < -1):
        raise OptionError("top_k", f"must be -1 (off) or a positive integer (got {top_k})")
    # The command line hands over bytes that are not UTF-8 as lone surrogates; these go
    # into every record and would fail the first write.
    for name in _TEXT:
        value = o.get(name)
        if value is not None and problem_in(value):
            raise OptionError(name, f"is not valid UTF-8 text (got {value!r})")
    if o.get("request_timeout") is not None and o["request_timeout"] <= 0:
        raise OptionError("request_timeout", f"must be a positive number of seconds "
                                             f"(got {o['request_timeout']:g})")
    if not 0 < o["gpu_memory_utilization"] <= 1:
        raise OptionError("gpu_memory_utilization", f"must be in (0, 1] "
                                                    f"(got {o['gpu_memory_utilization']})")
    if o.get("base_url") and o["backend"] != "openai":
        raise OptionError("base_url", "is for {backend} openai")
    if o.get("base_url"):
        check_urls(base_urls(o["base_url"]))
    if o["backend"] == "vllm":
        parallel_options(o["tensor_parallel_size"], o["pipeline_parallel_size"],
                         o["data_parallel_size"], o.get("distributed_executor_backend"))
    else:
        for name in ("pipeline_parallel_size", "distributed_executor_backend"):
            if o.get(name) not in (None, 1):
                raise OptionError(name, "is for {backend} vllm")
    out = o["out"]
    if os.path.exists(out) and not os.path.isdir(out):
        raise OptionError("out", f"{out}: exists and is not a folder; expected a run folder")


def base_urls(base_url: str | Sequence[str] | None) -> list[str]:
    if base_url is None:
        return []
    return [base_url] if isinstance(base_url, str) else list(base_url)


def parallel_options(tensor_parallel_size: int = 1, pipeline_parallel_size: int = 1,
                     data_parallel_size: int = 1,
                     distributed_executor_backend: str | None = None) -> dict[str, Any]:
    """vLLM's own distributed options, checked, as engine keyword arguments."""
    for name, value in (("tensor_parallel_size", tensor_parallel_size),
                        ("pipeline_parallel_size", pipeline_parallel_size),
                        ("data_parallel_size", data_parallel_size)):
        _check_count(name, value, optional=False)
    options: dict[str, Any] = {"tensor_parallel_size": tensor_parallel_size,
                               "pipeline_parallel_size": pipeline_parallel_size}
    backend = distributed_executor_backend
    if backend is None:
        return options   # vLLM chooses: "uni" for one GPU, "mp" for several on one node
    if backend not in EXECUTOR_BACKENDS:
        raise OptionError("distributed_executor_backend",
                          f"must be one of {', '.join(EXECUTOR_BACKENDS)} (got {backend!r})")
    if backend == "ray":
        if data_parallel_size > 1:
            # Each of our data-parallel engines is a process on this node with its own GPUs;
            # spreading them over a Ray cluster is what vllm serve's replicas are for.
            raise OptionError("distributed_executor_backend",
                              "'ray' with {data_parallel_size} above 1 is not supported: run "
                              "one engine per replica (vllm serve) and give each with "
                              "{base_url} to {backend} openai")
        # vLLM imports Ray itself; here it is only looked for (importing it takes seconds).
        if importlib.util.find_spec("ray") is None:
            raise OptionError("distributed_executor_backend",
                              "'ray' needs Ray: pip install 'ray[default]' (and, for several "
                              "nodes, a running Ray cluster: `ray start`)")
    options["distributed_executor_backend"] = backend
    return options


def template_kwargs(chat_template_kwargs: str | Mapping[str, Any] | None,
                    enable_thinking: bool = False) -> dict[str, Any] | None:
    kwargs: Any = {}
    if isinstance(chat_template_kwargs, str):
        try:
            kwargs = json.loads(chat_template_kwargs)
        except (ValueError, RecursionError) as exc:   # nested too deeply; 4,300+ digits
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else \
                "nested too deeply" if isinstance(exc, RecursionError) else "a number too long"
            raise OptionError("chat_template_kwargs",
                              f"is not valid JSON ({why}); expected an object such as "
                              '\'{"enable_thinking": true}\'') from None
        try:   # the strict rules json.loads does not apply: a key twice, NaN
            loads(chat_template_kwargs)
        except StrictJSONError as exc:
            raise OptionError("chat_template_kwargs", f"is not strict JSON ({exc})") from None
    elif chat_template_kwargs is not None:
        kwargs = chat_template_kwargs
    if not isinstance(kwargs, Mapping):
        raise OptionError("chat_template_kwargs", "must be a JSON object")
    kwargs = dict(kwargs)
    if enable_thinking:
        kwargs["enable_thinking"] = True
    return kwargs or None


def sampling_settings(o: Mapping[str, Any], chat_kwargs: dict[str, Any] | None
                      ) -> SamplingSettings:
    overrides: dict[str, Any] = {name: o[name] for name in
                                 ("temperature", "top_p", "top_k", "max_tokens")
                                 if o.get(name) is not None}
    # The template's options change what the model is asked, so they are part of the key.
    if chat_kwargs:
        overrides["extra"] = (("chat_template_kwargs", chat_kwargs),)
    try:
        return preset(o["preset"], seed=o["seed"], **overrides)
    except UserError as exc:
        raise OptionError("preset", f"{o['preset']!r}: {exc}") from None


def read_ids(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise OptionError("ids_file", f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise OptionError("ids_file", f"{path}: not UTF-8 text") from None
    ids = [s.strip() for s in lines if s.strip() and not s.lstrip().startswith("#")]
    if not ids:
        raise OptionError("ids_file", f"{path}: no ids in the file; expected one problem id "
                                      "a line")
    return ids


def select_problems(problems: Sequence[Any], *, ids: Sequence[str] | None,
                    ids_file: str | None, limit: int | None) -> list[Any]:
    """The problems to run: those listed (in that order, each once), then the first
    `limit`."""
    if ids is not None and ids_file is not None:
        raise OptionError("ids", "and {ids_file} both given; give one")
    option = "ids_file" if ids_file else "ids"
    wanted = read_ids(ids_file) if ids_file else (list(ids) if ids is not None else None)
    out = list(problems)
    if wanted is not None:
        by_id = {p.id: p for p in out}
        unknown = [i for i in wanted if i not in by_id]
        if unknown:
            more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
            named = f"{ids_file}: " if ids_file else ""
            raise OptionError(option, f"{named}id {unknown[0]!r}{more} is not in the dataset")
        out = [by_id[i] for i in dict.fromkeys(wanted)]
    if limit is not None:
        out = out[:limit]
    if not out:
        raise OptionError("dataset", "selects no problems to run (with {ids} and {limit} as "
                                     "given)")
    return out


def build_requests(problems: Sequence[Any], messages: Callable[[Any], tuple],
                   settings: SamplingSettings, runs: int) -> list[GenerationRequest]:
    base_seed = settings.seed if settings.seed is not None else DEFAULT_SEED
    asked = [(p.id, tuple(dict(m) for m in messages(p))) for p in problems]
    out = []
    # Run-major order: with a limited budget, run 0 of every problem comes before run 1 of
    # any, so an interrupted run still has one full pass to grade.
    for run in range(runs):
        seeded = settings.with_seed(run_seed(base_seed, run))
        out.extend(GenerationRequest(pid, run, msgs, seeded) for pid, msgs in asked)
    return out


def runner_options(o: Mapping[str, Any], chat_kwargs: dict[str, Any] | None) -> dict[str, Any]:
    backend = o["backend"]
    if backend == "openai":
        from .openai_api import RetryPolicy

        return {"base_url": base_urls(o["base_url"]) or None, "api_key_env": o["api_key_env"],
                "concurrency": o["concurrency"], "request_timeout": o["request_timeout"],
                "retry": RetryPolicy(max_attempts=o["max_attempts"]),
                "chat_template_kwargs": chat_kwargs, "revision": o["revision"],
                "max_model_len": o["max_model_len"]}
    if backend == "vllm":
        return {**{name: o[name] for name in (
                    "revision", "tensor_parallel_size", "data_parallel_size",
                    "pipeline_parallel_size", "max_model_len", "gpu_memory_utilization", "dtype",
                    "enforce_eager")},
                "distributed_executor_backend": o.get("distributed_executor_backend"),
                "chat_template_kwargs": chat_kwargs, **(o.get("engine_args") or {})}
    return {"revision": o["revision"], "dtype": o["dtype"], "device": o["device"],
            "batch_size": o["batch_size"], "chat_template_kwargs": chat_kwargs,
            "engine_args": o.get("engine_args") or None}


def typed_engine_args(backend: str, engine_args: Mapping[str, Any] | Sequence[str] | None,
                      *, model: str, revision: str | None = None) -> dict[str, Any]:
    """The engine's keyword arguments, checked and typed (engine_args.py)."""
    from .engine_args import OPTION, OWN, check_storable, parse_pairs

    pairs = parse_pairs(engine_args)
    if not pairs:
        return {}
    if backend not in OWN:
        raise OptionError(OPTION, "is for {backend} vllm or transformers (an API server "
                                  "takes its engine options where it is started)")
    for key in pairs:
        if key in OWN[backend]:
            raise OptionError(OPTION, f"{key!r} is set by our own option {{{OWN[backend][key]}}}"
                                      "; give it there")
    if backend == "vllm":
        from .vllm_engine import vllm_engine_args

        typed = vllm_engine_args(pairs)
    else:
        from .transformers import load_args

        typed = load_args(pairs, model, revision)
    check_storable(typed)
    return typed
