"""Backend name -> runner, importing only the chosen backend (vllm and torch take seconds to
import and may not be installed at all)."""

from __future__ import annotations

import importlib
import os
from typing import Any

from ..errors import MissingExtra, OptionError, UserError
from .base import Runner

# backend -> (module, class); each backend needs the module, and the pip extra, of its name
BACKENDS: dict[str, tuple[str, str]] = {
    "vllm": ("general365.runners.vllm", "VLLMRunner"),
    "openai": ("general365.runners.openai_api", "OpenAIRunner"),
    "transformers": ("general365.runners.transformers", "TransformersRunner"),
}


def check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise UserError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")


def _looks_like_path(model: str) -> bool:
    # A Hub id is "name" or "org/name"; these can only be meant as a place on disk.
    return (os.path.isabs(model) or model.startswith(("./", "../", "~"))
            or model in (".", "..") or model.count("/") > 1 or os.sep != "/" and os.sep in model)


def check_local_model(model: str) -> None:
    """Refuse a model meant as a folder on disk that holds no model, before the backend
    loads (the libraries answer with a Hub-id complaint or a traceback)."""
    path = os.path.expanduser(model)
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise OptionError("model", f"{model}: is a file; expected a model folder (with "
                            f"config.json) or a Hub model id")
        if not os.path.isfile(os.path.join(path, "config.json")):
            raise OptionError("model", f"{model}: the folder has no config.json; expected a "
                            f"model folder (config.json, weights, tokenizer files)")
    elif _looks_like_path(model):
        raise OptionError("model", f"{model}: no such folder; expected a model folder (with "
                        f"config.json) or a Hub model id such as org/name")


def make_runner(backend: str, model: str, **opts: Any) -> Runner:
    check_backend(backend)
    if backend in ("vllm", "transformers"):   # before importing the backend: that takes seconds
        check_local_model(model)
    module_name, class_name = BACKENDS[backend]
    try:
        importlib.import_module(backend)
    except ImportError:
        raise MissingExtra(backend, backend) from None
    return getattr(importlib.import_module(module_name), class_name)(model, **opts)
