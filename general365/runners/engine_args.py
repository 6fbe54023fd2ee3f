"""Engine options that have no flag of ours: `--engine-arg KEY=VALUE` or `engine_args=`
(docs/running.md), typed by vllm's own argument definitions (vllm_engine.py) or the model's
config and from_pretrained's signature (transformers.py). A key the engine does not know, a
value it refuses, a key our own options set, or one run.json could not hold is refused."""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Iterable, Mapping, Sequence

from ..errors import OptionError

OPTION = "engine_args"

# engine key -> our option that sets it (the engine, and run.json, get it from there)
OWN = {
    "vllm": {**{key: key for key in (
        "model", "revision", "tensor_parallel_size", "pipeline_parallel_size",
        "data_parallel_size", "distributed_executor_backend", "max_model_len",
        "gpu_memory_utilization", "dtype", "enforce_eager", "seed")},
        "tokenizer_revision": "revision"},
    "transformers": {"pretrained_model_name_or_path": "model", "revision": "revision",
                     "dtype": "dtype", "torch_dtype": "dtype", "config": "model",
                     "device_map": "device"},
}
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def parse_pairs(engine_args: Mapping[str, Any] | Sequence[str] | None) -> dict[str, Any]:
    """`KEY=VALUE` strings (or a mapping) as {key: value}, keys in Python spelling
    (`max-num-seqs` is `max_num_seqs`), each given once."""
    if engine_args is None:
        return {}
    if isinstance(engine_args, str):
        engine_args = [engine_args]
    if isinstance(engine_args, Mapping):
        items: Iterable[tuple[Any, Any]] = engine_args.items()
    else:
        items = []
        for pair in engine_args:
            if not isinstance(pair, str) or "=" not in pair:
                raise OptionError(OPTION, f"{pair!r}: expected KEY=VALUE, e.g. max_num_seqs=8")
            key, _, value = pair.partition("=")
            items.append((key.strip(), value))
    out: dict[str, Any] = {}
    for key, value in items:
        if not isinstance(key, str) or not _KEY.match(key):
            raise OptionError(OPTION, f"{key!r} is not an argument name; expected KEY=VALUE, "
                                      f"e.g. max_num_seqs=8")
        name = key.replace("-", "_")
        if name in out:
            raise OptionError(OPTION, f"{name!r} is given twice")
        out[name] = value
    return out


def as_bool(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise ValueError("expected true or false")


def like(current: Any, value: Any, key: str) -> Any:
    """`value` typed as the config's current value for `key`."""
    if not isinstance(value, str):
        return value
    try:
        if isinstance(current, bool):
            return as_bool(value)
        if isinstance(current, int):
            return int(value)
        if isinstance(current, float):
            return float(value)   # NaN and inf: refused by check_storable
    except ValueError:
        kind = "true or false" if isinstance(current, bool) else type(current).__name__
        raise OptionError(OPTION, f"{key}={value!r}: the model's config holds "
                                  f"{current!r} there; expected {kind}") from None
    if isinstance(current, str):
        return value
    return literal(value, key)


def literal(value: str, key: str = "") -> Any:
    """JSON, then a Python literal (true/false/null as JSON spells them), else the text."""
    try:
        try:
            return json.loads(value)
        except ValueError:
            pass
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError):
            return value
    except RecursionError:
        raise too_deep(key, value) from None


def shown(value: Any) -> str:
    """A short repr, safe for any value (reprlib stops at a few levels of nesting)."""
    import reprlib

    r = reprlib.Repr()
    r.maxstring, r.maxother, r.maxlevel = 40, 40, 3
    return r.repr(value)


def too_deep(key: str, value: Any) -> OptionError:
    return OptionError(OPTION, f"{key}={shown(value)}: nested too deeply to read")


def check_storable(args: Mapping[str, Any]) -> None:
    """Refuse a value run.json could not hold as JSON: NaN or an infinity (written bare, it
    makes run.json unreadable), or one nested past what JSON readers recurse to."""
    for key, value in args.items():
        try:
            json.dumps(value, allow_nan=False, default=str)
        except ValueError:
            raise OptionError(OPTION, f"{key}={shown(value)}: NaN or an infinite number; "
                                      "expected a finite number") from None
        except RecursionError:
            raise too_deep(key, value) from None
