"""The whole pipeline offline on the bundled sample (`general365 demo`): a tiny random model
(built or reused), a real runner, the judge-free `rule` policy and the report. Its scores
mean nothing: the point is to see every stage work.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .extras import backend_extra, require
from .sqlite_cache import default_path

REAL_MODEL_LINE = (
    "general365 run --backend vllm --model Qwen/Qwen3-8B --enable-thinking --runs 4 "
    "--preset reasoning --out runs/qwen3-8b --judge-model gpt-4.1"
)

DEMO_NAME = "tiny-random-llama (demo)"
DEMO_BACKENDS = ("transformers", "vllm")


def run_demo(out: str = "general365-demo", *, runs: int = 2, limit: int | None = None,
             max_tokens: int = 192, model_dir: str | None = None,
             backend: str = "transformers", on_stage: Callable[[str, str], Any] | None = None,
             on_build: Callable[[Path], Any] | None = None, progress: bool = True):
    """Build (or reuse) the tiny model, then general365.run on the bundled sample with the
    rule policy; returns the RunResult."""
    from .api import run
    from .errors import OptionError

    if backend not in DEMO_BACKENDS:
        raise OptionError("backend", f"{backend!r}: the demo runs on one of "
                                     f"{', '.join(DEMO_BACKENDS)}")
    # The tiny model is built with transformers whatever runs it; the report draws figures.
    require("demo", ["transformers", *backend_extra(backend), "plots"])
    from .tiny_model import build_tiny_model, is_built

    folder = Path(model_dir) if model_dir else default_path("tiny-model")
    if not is_built(folder) and on_build is not None:
        on_build(folder)
    build_tiny_model(folder)
    options: dict[str, Any] = {"dataset": "sample", "runs": runs, "max_tokens": max_tokens,
                               "preset": "reasoning", "limit": limit}
    if backend == "transformers":
        options["batch_size"] = 32
    else:
        options.update(dtype="float32", enforce_eager=True, max_model_len=2048)
    return run(str(folder), backend=backend, out=out, policy="rule", name=DEMO_NAME,
               on_stage=on_stage, progress=progress, **options)
