"""Backend name -> runner, importing only the chosen backend (vllm and torch take seconds to
import and may not be installed at all)."""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import MissingExtra, UserError
from .base import Runner

# backend -> (module, class, the pip extra that provides it, the module that must import)
BACKENDS: dict[str, tuple[str, str, str, str]] = {
    "vllm": ("general365.runners.vllm", "VLLMRunner", "vllm", "vllm"),
    "openai": ("general365.runners.openai_api", "OpenAIRunner", "openai", "openai"),
    "transformers": ("general365.runners.transformers", "TransformersRunner", "transformers",
                     "transformers"),
}


def check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise UserError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")


def runner_class(backend: str) -> type:
    check_backend(backend)
    module_name, class_name, extra, needs = BACKENDS[backend]
    try:
        importlib.import_module(needs)
    except ImportError:
        raise MissingExtra(needs, extra) from None
    return getattr(importlib.import_module(module_name), class_name)


def make_runner(backend: str, model: str, **opts: Any) -> Runner:
    """A runner for `backend` on `model`; `opts` are that backend's keyword options."""
    cls = runner_class(backend)
    return cls(model, **opts)
