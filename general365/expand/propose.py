"""`expand(seeds, model=..., backend=..., out=DIR)`: candidate variants of each seed, as one
generation session on DIR (the run store's guarantees, as for `general365 generate`: one
request per candidate, its run number the candidate's index), then checked into
`DIR/candidates.jsonl`. Structured output and its fallback: docs/expand.md, section 2.
"""

from __future__ import annotations

import inspect
import os
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from ..errors import DataError, MissingExtra, OptionError, UserError
from ..extras import backend_extra, require
from ..runners import provenance
from ..runners.base import GenerationRequest, SamplingSettings, run_seed
from ..runners.options import (DEFAULT_SEED, check_options, runner_options, sampling_settings,
                               template_kwargs)
from ..runners.registry import make_runner
from ..runners.session import GenerateResult, SessionPlan, run_session
from ..runners.store import RESPONSES, iter_records, model_key
from ..schema import Problem
from ..validators import option_int, option_number
from .candidates import (CANDIDATES, ExpansionCandidate, build_candidates, merge_seeds,
                         write_candidates, write_seeds)
from .checks import check_all
from .prompt import PROMPT_VERSION, expansion_messages, response_format
from .solver import SolverResult, previous_agreement, run_solver

STRUCTURED = ("auto", "json_schema", "off")
DEFAULT_CANDIDATES = 10


@dataclass
class ExpandResult:
    out: str
    seeds: int
    generation: GenerateResult
    structured: str
    candidates: list[ExpansionCandidate] = field(default_factory=list)
    solver: SolverResult | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        return os.path.join(self.out, CANDIDATES)

    @property
    def ok(self) -> bool:
        return self.generation.ok and (self.solver is None or self.solver.generation is None
                                       or self.solver.generation.ok)

    def flag_counts(self) -> dict[str, int]:
        """Candidates per flag (a candidate flagged twice the same way counts once)."""
        return dict(Counter(n for c in self.candidates for n in set(c.flag_names)))


def load_seeds(source: str, *, split: str = "public", ids: Sequence[str] | None = None,
               ids_file: str | None = None, limit: int | None = None) -> list[Problem]:
    """The seed problems (variant 0) of a General365-format source, each with its
    reasoning (the prompt shows it)."""
    from ..data.load import load_problems
    from ..runners.options import select_problems

    seeds = [p for p in load_problems(source=source, split=split) if p.is_seed]
    if not seeds:
        raise UserError(f"{source}: no seed problems (variant 0) in it")
    chosen = select_problems(seeds, ids=ids, ids_file=ids_file, limit=limit)
    bare = [s.id for s in chosen if not s.reasoning.strip()]
    if bare:
        more = f" (and {len(bare) - 1} more)" if len(bare) > 1 else ""
        raise UserError(f"{source}: seed {bare[0]!r}{more} has no reasoning; the expansion "
                        "prompt shows each seed's reasoning")
    return chosen


def expansion_requests(seeds: Sequence[Problem], settings: SamplingSettings,
                       candidates: int) -> list[GenerationRequest]:
    base = settings.seed if settings.seed is not None else DEFAULT_SEED
    # Candidate-major: with the run cut short, every seed has its first candidates.
    return [GenerationRequest(s.id, k, expansion_messages(s, k),
                              settings.with_seed(run_seed(base, k)))
            for k in range(candidates) for s in seeds]


def _folder_structured(out: str) -> str | None:
    """The structured-output choice the folder's records were made with, if any."""
    path = os.path.join(out, RESPONSES)
    if not os.path.isfile(path):
        return None
    try:
        for rec in iter_records(path):
            sampling = rec.get("sampling") if isinstance(rec, dict) else None
            extra = (sampling or {}).get("extra") if isinstance(sampling, dict) else None
            return "json_schema" if isinstance(extra, dict) and "response_format" in extra \
                else "off"
    except (ValueError, DataError):   # UnicodeDecodeError is a ValueError
        return None   # a damaged file: the run store names the bad line
    return None


def _refused_structured(result: GenerateResult, pending: int) -> bool:
    """Every request of the session answered 400/422: the server does not take
    response_format (a 4xx is not retried, so this costs one request each)."""
    return (result.written == 0 and pending > 0 and result.failed == pending
            and all(" 400" in e or " 422" in e for e in result.errors))


def _check(o: dict[str, Any]) -> None:
    option_int("candidates", o["candidates"])
    if o["structured"] not in STRUCTURED:
        raise OptionError("structured", f"must be one of {', '.join(STRUCTURED)} "
                                        f"(got {o['structured']!r})")
    if o["structured"] == "json_schema" and o["backend"] != "openai":
        raise OptionError("structured", "json_schema is for {backend} openai (a server's "
                                        "response_format); use auto or off")
    option_number("near_duplicate", o["near_duplicate"], low=0, high=1, low_open=True,
                  text=f"must be a cosine in (0, 1] (got {o['near_duplicate']!r})")
    if o["solver_model"] is not None:
        option_int("solver_k", o["solver_k"])
    check_options({**o, "runs": o["candidates"]})
    if o["solver_model"] is not None:
        _check_solver(o)
        return
    # Without a solver model these would be silently ignored: a user who set them meant a check.
    given = [k for k, p in inspect.signature(expand).parameters.items()
             if k.startswith("solver_") and k != "solver_model" and o[k] != p.default]
    if given:
        raise OptionError(given[0], "is for the solver check: give {solver_model} too")
    if o["judge"] is not None:
        raise OptionError("judge", "grades the solver check's text answers: give "
                                   "{solver_model} too")


def _check_solver(o: dict[str, Any]) -> None:
    """The solver's own options, checked before the expansion (not after it)."""
    from ..runners.base import PRESETS
    from ..runners.registry import BACKENDS

    backend = o["solver_backend"] or o["backend"]
    if backend not in BACKENDS:
        raise OptionError("solver_backend", f"{backend!r} is not one of {', '.join(BACKENDS)}")
    if o["solver_base_url"] and backend != "openai":
        raise OptionError("solver_base_url", "is for {solver_backend} openai")
    if o["solver_preset"] not in PRESETS:
        raise OptionError("solver_preset", f"must be one of {', '.join(PRESETS)} "
                                           f"(got {o['solver_preset']!r})")
    if o["solver_max_tokens"] is not None:
        option_int("solver_max_tokens", o["solver_max_tokens"])


def _require(backend: str, solver_backend: str | None) -> None:
    extras = backend_extra(backend) + (backend_extra(solver_backend) if solver_backend else [])
    require("expand", list(dict.fromkeys(extras)))
    import importlib.util

    # The near-duplicate check is the analysis's TF-IDF (scikit-learn), needed only then.
    if importlib.util.find_spec("sklearn") is None:
        raise MissingExtra("scikit-learn", "analysis")


def expand(seeds: str, *, model: str, backend: str, out: str,
           candidates: int = DEFAULT_CANDIDATES, split: str = "public",
           ids: Sequence[str] | None = None, ids_file: str | None = None,
           limit: int | None = None, structured: str = "auto", near_duplicate: float = 0.90,
           preset: str = "reasoning", temperature: float | None = None,
           top_p: float | None = None, top_k: int | None = None,
           max_tokens: int | None = None, seed: int = DEFAULT_SEED,
           chat_template_kwargs: Any = None, enable_thinking: bool = False,
           revision: str | None = None, base_url: str | None = None,
           api_key_env: str = "OPENAI_API_KEY", concurrency: int = 16,
           request_timeout: float = 600.0, max_attempts: int = 6,
           tensor_parallel_size: int = 1, data_parallel_size: int = 1,
           max_model_len: int | None = None, gpu_memory_utilization: float = 0.9,
           dtype: str = "auto", enforce_eager: bool = False, device: str = "cpu",
           batch_size: int = 8, solver_model: str | None = None,
           solver_backend: str | None = None, solver_base_url: str | None = None,
           solver_k: int = 4, solver_max_tokens: int | None = None,
           solver_preset: str = "reasoning", judge: Any = None,
           progress: bool = True, on_stage: Callable[[str, str], None] | None = None
           ) -> ExpandResult:
    """Ask `model` for `candidates` variants of each seed of `seeds` (a General365-format
    source whose seeds carry reasoning) into the folder `out`, check them, and write
    `out/candidates.jsonl`. With `solver_model`, each gradable candidate is also answered
    `solver_k` times and graded against its own gold (out/solver/)."""
    o = dict(locals())
    o.update(system_prompt=None, pipeline_parallel_size=1, distributed_executor_backend=None)
    _check(o)
    _require(backend, (solver_backend or backend) if solver_model else None)
    say = on_stage or (lambda stage, path: None)
    chosen = load_seeds(seeds, split=split, ids=ids, ids_file=ids_file, limit=limit)
    chat = template_kwargs(chat_template_kwargs, enable_thinking)
    plain = sampling_settings(o, chat)
    mode = _folder_structured(out)
    if mode is None:
        mode = "json_schema" if structured != "off" and backend == "openai" else "off"
    elif structured != "auto" and mode != structured:
        raise OptionError("structured", f"{out} was expanded with structured output {mode}; "
                                        f"rerun with auto or {mode}, or use a new folder")
    if mode == "json_schema" and backend != "openai":
        raise OptionError("backend", f"{out} was expanded with structured output (an API "
                                     "server's response_format); use a new folder for {backend} "
                                     + backend)

    def session(mode: str) -> tuple[GenerateResult, int]:
        settings = plain
        if mode == "json_schema":
            settings = replace(plain, extra=plain.extra + (("response_format", response_format()),))
        requests = expansion_requests(chosen, settings, candidates)
        dataset = {"source": seeds, "split": split, "seeds": len(chosen),
                   "fingerprint": provenance.dataset_fingerprint(chosen),
                   "ids_file": ids_file, "limit": limit}
        sampling = {**settings.to_dict(), "candidates": candidates,
                    "seeds": {str(r.run): r.sampling.seed for r in requests}}
        prompt = {"version": PROMPT_VERSION, "structured": mode}

        def start(runner_provenance: dict, previous: dict | None) -> dict:
            rec = provenance.start_record(backend=backend, model=model, revision=revision,
                                          dataset=dataset, sampling=sampling, runs=candidates,
                                          runner=runner_provenance, prompt=prompt,
                                          previous=previous)
            rec["expansion"] = {"candidates": candidates, "prompt_version": PROMPT_VERSION,
                                "structured": mode}
            return rec

        result = run_session(SessionPlan(
            out=out, model=model_key(model, revision), backend=backend, requests=requests,
            make_runner=lambda: make_runner(backend, model, **runner_options(o, chat)),
            inline={}, start_record=start, end_record=provenance.end_record,
            progress=progress, unit="seeds"))
        return result, len(requests) - result.already_done

    say("expand", os.path.join(out, RESPONSES))
    gen, pending = session(mode)
    notes = list(gen.notes)
    if structured == "auto" and mode == "json_schema" and _refused_structured(gen, pending):
        notes.append(f"the server refused structured output ({gen.errors[0]}); asked again "
                     "without it")
        mode = "off"
        gen, pending = session(mode)
        notes += gen.notes
    result = ExpandResult(out=out, seeds=len(chosen), generation=gen, structured=mode,
                          notes=notes)
    if not os.path.isfile(os.path.join(out, RESPONSES)):
        return result   # nothing was ever generated (refused before the first answer)
    say("check", os.path.join(out, CANDIDATES))
    every = merge_seeds(out, chosen)
    result.candidates = build_candidates(iter_records(os.path.join(out, RESPONSES)), every,
                                         solver=previous_agreement(out))
    check_all(result.candidates, {s.id: s for s in every}, near_duplicate)
    if solver_model:
        say("solve", os.path.join(out, "solver"))
        result.solver = run_solver(out, result.candidates, model=solver_model, k=solver_k,
                                   generate_options=_solver_options(o), judge=judge,
                                   progress=progress)
        for c in result.candidates:   # this check's agreement replaces an earlier one's
            c.solver = result.solver.agreement.get(c.id)
    write_seeds(out, every)
    write_candidates(result.path, result.candidates)
    return result


def _solver_options(o: dict[str, Any]) -> dict[str, Any]:
    """generate()'s options for the solver: its own backend, URL, tokens and preset; the
    rest shared with the expansion where the backend is the same."""
    backend = o["solver_backend"] or o["backend"]
    opts: dict[str, Any] = {"backend": backend, "preset": o["solver_preset"],
                            "max_tokens": o["solver_max_tokens"], "seed": o["seed"],
                            "request_timeout": o["request_timeout"],
                            "max_attempts": o["max_attempts"], "concurrency": o["concurrency"]}
    if backend == "openai":
        opts.update(base_url=o["solver_base_url"] or (o["base_url"] if o["backend"] == "openai"
                                                      else None),
                    api_key_env=o["api_key_env"])
    if backend == o["backend"]:
        for name in ("max_model_len", "tensor_parallel_size", "data_parallel_size",
                     "gpu_memory_utilization", "dtype", "enforce_eager", "device",
                     "batch_size", "chat_template_kwargs", "enable_thinking"):
            opts[name] = o[name]
    return opts
