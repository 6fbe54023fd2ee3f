"""A runner on transformers' `generate`, for small models and machines without vLLM. Each row
samples from its own seeded `torch.Generator` (a response does not depend on its batch): the
row sampler, the last logits processor, leaves one finite logit for greedy `generate` to
take, and forces the stop token at the row's own max_tokens (finish_reason "length")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..errors import MissingExtra, OptionError, UserError, first_line
from .base import Generation, GenerationRequest
from .limits import Budget, ReasoningCounter, make_generation, plan_budgets

SUPPORTED_EXTRA = ("chat_template_kwargs", "logit_bias")


def _import():
    try:
        import torch
        import transformers
    except ImportError:
        raise MissingExtra("transformers", "transformers") from None
    return torch, transformers


def _logit_bias(req: GenerationRequest, vocab_size: int) -> dict[int, float]:
    """The request's logit_bias by token id; refuses any option but SUPPORTED_EXTRA."""
    extra = dict(req.sampling.extra)
    unknown = sorted(set(extra) - set(SUPPORTED_EXTRA))
    if unknown:
        raise UserError(f"id {req.problem_id!r}: the transformers backend does not support the "
                        f"sampling option(s) {', '.join(unknown)}; supported: "
                        f"{', '.join(SUPPORTED_EXTRA)}")
    out = {}
    for token, bias in dict(extra.get("logit_bias") or {}).items():
        try:
            tid = int(token)
        except (TypeError, ValueError):
            tid = -1
        if not 0 <= tid < vocab_size:
            raise UserError(f"id {req.problem_id!r}: logit_bias token {token!r} is not a token id "
                            f"of this model (0..{vocab_size - 1})")
        out[tid] = float(bias)
    return out


def _row_sampler(torch, transformers, reqs: list[GenerationRequest], budgets: list[Budget],
                 biases: list[dict[int, float]], device: str, prompt_len: int, stop_id: int):
    """A logits processor that samples each row as its own request asks (the last one)."""
    generators = [torch.Generator(device=device).manual_seed(int(r.sampling.seed) % (2 ** 63))
                  if r.sampling.seed is not None else None for r in reqs]

    class RowSampler(transformers.LogitsProcessor):
        def __call__(self, input_ids, scores):
            step = input_ids.shape[1] - prompt_len
            chosen = torch.empty(len(reqs), dtype=torch.long, device=scores.device)
            for i, (req, budget, bias) in enumerate(zip(reqs, budgets, biases)):
                s = req.sampling
                if step >= budget.max_tokens:
                    chosen[i] = stop_id  # this row's budget is spent
                    continue
                logits = scores[i].float()
                for tid, b in bias.items():
                    logits[tid] += b
                if s.temperature == 0:
                    chosen[i] = torch.argmax(logits)
                    continue
                logits = logits / s.temperature
                if 0 < s.top_k < logits.shape[-1]:
                    kth = torch.topk(logits, s.top_k).values[-1]
                    logits = logits.masked_fill(logits < kth, float("-inf"))
                probs = torch.softmax(logits, dim=-1)
                if s.top_p < 1.0:
                    sorted_p, order = torch.sort(probs, descending=True)
                    # keep the smallest head whose mass reaches top_p (the first token always)
                    drop = torch.cumsum(sorted_p, dim=-1) - sorted_p >= s.top_p
                    probs = probs.scatter(0, order, sorted_p.masked_fill(drop, 0.0))
                chosen[i] = torch.multinomial(probs, 1, generator=generators[i])[0]
            out = torch.full_like(scores, float("-inf"))
            out.scatter_(1, chosen[:, None], 0.0)
            return out

    return RowSampler()


def _check_device(torch, device: str) -> None:
    """Refuse a device torch cannot parse or this machine does not have, before the model
    loads (torch would fail later, with a traceback, inside `.to(device)`)."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise OptionError("device", f"{device!r} is not a torch device; expected cpu, cuda, "
                        f"cuda:N, mps or xpu") from None
    if dev.type == "cpu":
        return
    backend = getattr(torch, dev.type, None)
    available = getattr(backend, "is_available", None)
    if available is None or not available():
        raise OptionError("device", f"{device!r}: this machine has no {dev.type} device that "
                        f"torch can use; expected cpu or an available accelerator")
    count = getattr(backend, "device_count", None)
    if dev.index is not None and count is not None and dev.index >= count():
        raise OptionError("device", f"{device!r}: there are {count()} {dev.type} device(s), "
                        f"numbered from 0")


class TransformersRunner:
    backend = "transformers"

    def __init__(self, model: str, *, revision: str | None = None, dtype: str = "auto",
                 device: str = "cpu", batch_size: int = 8,
                 chat_template_kwargs: dict[str, Any] | None = None,
                 engine_args: dict[str, Any] | None = None):
        from .registry import check_local_model
        from .store import model_key

        torch, transformers = _import()
        if batch_size < 1:
            raise UserError(f"batch_size must be at least 1 (got {batch_size})")
        self.model_name, self.revision, self.device = model, revision, device
        self.model_id = model_key(model, revision)
        self.dtype, self.batch_size = dtype, batch_size
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        # from_pretrained's keyword arguments (--engine-arg, typed by load_args, below)
        self.engine_args = dict(engine_args or {})
        if dtype != "auto" and not isinstance(getattr(torch, str(dtype), None), torch.dtype):
            raise UserError(f"dtype {dtype!r} is not a torch dtype; expected auto, float32, "
                            f"bfloat16 or float16")
        _check_device(torch, device)
        check_local_model(model)
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(model, revision=revision)
            self.model = transformers.AutoModelForCausalLM.from_pretrained(
                model, revision=revision,
                dtype="auto" if dtype == "auto" else getattr(torch, dtype), **self.engine_args)
        except (OSError, ValueError, TypeError) as exc:   # ValueError: no usable tokenizer files
            raise UserError(f"cannot load model {model!r} with transformers: "
                            f"{first_line(exc)}") from None
        if not getattr(self.tokenizer, "chat_template", None):
            raise UserError(f"model {model!r} has no chat template; a chat model is needed")
        self.model.to(device).eval()
        self.tokenizer.padding_side = "left"
        n = getattr(self.model.config, "max_position_embeddings", None)
        if not n:
            n = getattr(self.tokenizer, "model_max_length", None)
            if not n or n > 10_000_000:  # transformers' "unknown" sentinel is ~1e30
                raise UserError(f"model {model!r} states no context length")
        self.max_model_len = int(n)
        ids = getattr(self.model.generation_config, "eos_token_id", None)
        self.stop_ids = [ids] if isinstance(ids, int) else list(ids or [])
        eos = self.tokenizer.eos_token_id
        if eos is not None and eos not in self.stop_ids:
            self.stop_ids.append(eos)
        if not self.stop_ids:
            raise UserError(f"model {model!r} has no end-of-sequence token")
        self.pad_id = (self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None
                       else self.stop_ids[0])
        self.counter = ReasoningCounter(self.tokenizer)
        self._rendered: dict[tuple[str, str], list[int]] = {}

    def _prompt_ids(self, req: GenerationRequest) -> list[int]:
        kwargs = req.template_kwargs(self.chat_template_kwargs)
        key = (req.prompt_hash(), json.dumps(kwargs, sort_keys=True, default=str))
        ids = self._rendered.get(key)
        if ids is None:
            text = self.tokenizer.apply_chat_template(
                list(req.messages), tokenize=False, add_generation_prompt=True, **kwargs)
            ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
            self._rendered[key] = ids
        return ids

    def prepare(self, requests: list[GenerationRequest]) -> list[Budget]:
        for req in requests:
            # Text only: a message whose content is a list of parts carries images (a
            # multimodal CFE-Bench row), which this backend cannot show the model.
            if any(not isinstance(m.get("content"), str) for m in req.messages):
                raise UserError(f"id {req.problem_id!r}: the transformers backend takes text "
                                "prompts only, and this one carries images; run multimodal "
                                "problems with --backend vllm or openai (a vision model)")
        for req in requests:
            _logit_bias(req, len(self.tokenizer))
        return plan_budgets(requests, [len(self._prompt_ids(r)) for r in requests],
                            self.max_model_len)

    def generate(self, requests: list[GenerationRequest]) -> Iterator[Generation]:
        budgets = self.prepare(requests)  # all refusals happen here, before any output
        # Run-major, as the requests come (a run cut short holds one full pass to grade);
        # within a run, sorted by length so that a batch wastes little on padding.
        order = sorted(range(len(requests)),
                       key=lambda i: (requests[i].run, len(self._prompt_ids(requests[i]))))
        for start in range(0, len(order), self.batch_size):
            chunk = order[start:start + self.batch_size]
            yield from self._generate_batch([requests[i] for i in chunk],
                                            [budgets[i] for i in chunk])

    def _generate_batch(self, reqs: list[GenerationRequest], budgets: list[Budget]
                        ) -> Iterator[Generation]:
        torch, transformers = _import()
        prompts = [self._prompt_ids(r) for r in reqs]
        width = max(len(p) for p in prompts)
        input_ids = torch.tensor([[self.pad_id] * (width - len(p)) + p for p in prompts])
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
        biases = [_logit_bias(r, len(self.tokenizer)) for r in reqs]
        sampler = _row_sampler(torch, transformers, reqs, budgets, biases, self.device, width,
                               self.stop_ids[0])
        config = transformers.GenerationConfig(
            max_new_tokens=max(b.max_tokens for b in budgets), do_sample=False,
            eos_token_id=self.stop_ids, pad_token_id=self.pad_id)
        with torch.no_grad():
            out = self.model.generate(
                input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device),
                generation_config=config,
                logits_processor=transformers.LogitsProcessorList([sampler]))
        stops = set(self.stop_ids)
        for i, (req, budget) in enumerate(zip(reqs, budgets)):
            new = out[i, width:].tolist()
            end = next((k for k, t in enumerate(new) if t in stops), None)
            if end is not None and end < budget.max_tokens:
                tokens, reason = new[: end + 1], "stop"
            else:
                tokens, reason = new[: budget.max_tokens], "length"
            text = self.tokenizer.decode(tokens, skip_special_tokens=True)
            yield make_generation(req, text=text, token_ids=tokens, finish_reason=reason,
                                  budget=budget, counter=self.counter)

    def close(self) -> None:
        self.model = None
        self._rendered.clear()

    def provenance(self) -> dict[str, Any]:
        torch, transformers = _import()
        return {"backend": self.backend, "model": self.model_name, "revision": self.revision,
                "dtype": self.dtype, "device": self.device, "batch_size": self.batch_size,
                "max_model_len": self.max_model_len,
                "chat_template_kwargs": self.chat_template_kwargs or None,
                "engine_args": self.engine_args or None,
                "transformers": transformers.__version__, "torch": torch.__version__}


# Loading arguments read as true/false whatever from_pretrained's signature says: a
# string 'no' would reach it as a truthy value (trust_remote_code='no' turns remote code on).
BOOLEAN_LOADING = {"trust_remote_code", "local_files_only", "use_safetensors",
                   "low_cpu_mem_usage", "force_download", "output_loading_info",
                   "ignore_mismatched_sizes", "offload_buffers", "offload_state_dict",
                   "weights_only", "disable_mmap", "use_kernels", "allow_all_kernels"}
# Loading arguments that change what from_pretrained returns (a tuple, not a model).
CHANGES_RESULT = {"output_loading_info": "makes from_pretrained return a tuple, not a model"}
# Config attributes that define the model's architecture: the sizes and counts its weights
# are shaped by (and its type). Others are refused too when, built on the meta device, the
# model's weights would change name or shape with the new value (load_args).
ARCHITECTURE = {"model_type", "architectures", "vocab_size", "hidden_size", "n_embd",
                "d_model", "num_hidden_layers", "n_layer", "num_layers",
                "num_attention_heads", "n_head", "num_key_value_heads", "head_dim",
                "intermediate_size", "n_inner", "ffn_dim", "max_position_embeddings",
                "n_positions", "num_experts", "num_local_experts", "hidden_act_size"}


def loading_arguments() -> dict[str, bool]:
    """The keyword arguments `from_pretrained` reads itself (its parameters and its body's
    `kwargs.pop("name", ...)`), each with whether it is a boolean."""
    import inspect
    import re

    _, transformers = _import()
    method = transformers.PreTrainedModel.from_pretrained
    names: dict[str, bool] = {}
    for n, p in inspect.signature(method).parameters.items():
        if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names[n] = isinstance(p.default, bool) or _bool_annotation(p.annotation)
    try:
        source = inspect.getsource(method)
    except (OSError, TypeError):   # no source shipped: the signature's names only
        source = ""
    for n, default in re.findall(r"kwargs\.pop\(\s*[\"']([A-Za-z_][A-Za-z0-9_]*)[\"']"
                                 r"\s*(?:,\s*([^),]*))?\)", source):
        names[n] = names.get(n, False) or default.strip() in ("True", "False")
    return {n: boolean or n in BOOLEAN_LOADING for n, boolean in names.items()
            if not n.startswith("_")}


def _bool_annotation(annotation: Any) -> bool:
    """bool or `bool | None` (not `str | bool`: a token may be a string)."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", None) \
        or str(annotation)
    return text.replace(" ", "") in ("bool", "bool|None", "Optional[bool]",
                                     "typing.Optional[bool]")


def load_args(pairs: dict[str, Any], model: str, revision: str | None) -> dict[str, Any]:
    """`--engine-arg` values as from_pretrained keyword arguments: a config key typed like
    the config's value, a boolean loading argument as true/false, another as a literal. A
    key that changes what from_pretrained returns, or the architecture, is refused."""
    from .engine_args import OPTION, as_bool, like, literal
    from .registry import check_local_model

    torch, transformers = _import()
    check_local_model(model)
    try:
        config = transformers.AutoConfig.from_pretrained(model, revision=revision).to_dict()
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read the config of model {model!r} to check the engine "
                        f"arguments: {first_line(exc)}") from None
    loading = loading_arguments()
    out = {}
    for key, value in pairs.items():
        if key in CHANGES_RESULT:
            raise OptionError(OPTION, f"{key!r} {CHANGES_RESULT[key]}; it cannot be given")
        if key in config and key in ARCHITECTURE:
            raise OptionError(OPTION, f"{key!r} defines the model's architecture (the "
                                      "shapes of its weights); it cannot be changed at "
                                      "loading")
        if key in config:
            out[key] = like(config[key], value, key)
        elif key not in loading:
            raise OptionError(OPTION, f"{key!r} is neither a from_pretrained argument of "
                                      f"transformers nor an attribute of the model's config "
                                      f"({config.get('model_type', '?')}); e.g. "
                                      f"attn_implementation, or a config key such as "
                                      f"rope_scaling")
        elif loading[key]:
            try:
                out[key] = value if isinstance(value, bool) else as_bool(value)
            except (ValueError, AttributeError):   # not text, or not true/false
                raise OptionError(OPTION, f"{key}={value!r}: expected true or false") from None
        else:
            out[key] = literal(value, key) if isinstance(value, str) else value

    # Config values under which the weights change name or shape (the checkpoint would not
    # fit) are refused, found by building the model on the meta device with and without.
    def shapes(**overrides: Any) -> dict[str, tuple]:
        cfg = transformers.AutoConfig.from_pretrained(model, revision=revision, **overrides)
        with torch.device("meta"):
            built = transformers.AutoModelForCausalLM.from_config(cfg)
        return {n: tuple(t.shape) for n, t in built.state_dict().items()}

    changed = {k: v for k, v in out.items() if k in config}
    try:
        before = shapes() if changed else None
    except Exception:   # a model we cannot build bare: from_pretrained's own checks decide
        return out
    for key, value in changed.items():
        try:
            after = shapes(**{key: value})
        except Exception as exc:   # noqa: BLE001 - any failure to build is the refusal
            raise OptionError(OPTION, f"{key}={value!r}: the model cannot be built with it "
                                      f"({type(exc).__name__}: {first_line(exc, 200)})") \
                from None
        if after != before:
            raise OptionError(OPTION, f"{key}={value!r} changes the shapes of the model's "
                                      "weights (its architecture); it cannot be changed at "
                                      "loading")
    return out
