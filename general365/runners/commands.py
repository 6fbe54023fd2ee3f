"""`general365 generate`: answers for a dataset with one model, into a resumable run folder.

    general365 generate --model M --backend vllm|openai|transformers --out RUN_DIR
                        [--runs N] [--preset reasoning|chat] [--dataset SOURCE] ...

Rerunning the same command generates only what is missing (see store.py). Exit codes: 0 all
done; 1 some requests failed for good (rerun to retry them); 2 a user error (one line,
nothing written).
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import UserError
from ..extras import backend_extra, require
from ..schema import Problem
from .base import GenerationRequest, SamplingSettings, preset, run_seed
from .registry import BACKENDS, check_backend, make_runner
from .store import RecordKey, RunStore, build_record, model_key

DEFAULT_SEED = 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("what to run")
    g.add_argument("--model", required=True, help="model name or path (as the backend knows it)")
    g.add_argument("--backend", required=True, metavar="|".join(BACKENDS),
                   help="which runner generates")
    g.add_argument("--revision", help="model revision (a Hub commit or tag), recorded in the key")
    g.add_argument("--out", required=True, metavar="RUN_DIR",
                   help="run folder: responses.jsonl and run.json (resumed if it exists)")
    g = p.add_argument_group("data")
    g.add_argument("--dataset", metavar="SOURCE",
                   help="'sample' (bundled), a Hub id, a file or a folder; default: the "
                        "official public split")
    g.add_argument("--split", default="public", help="dataset split (default: public)")
    g.add_argument("--config", default="all", help="seed | variant | all (default: all)")
    g.add_argument("--limit", type=int, help="only the first N problems")
    g.add_argument("--ids", metavar="FILE", help="only the problem ids listed in FILE, one a line")
    g.add_argument("--system-prompt", metavar="TEXT", help="a system message before each question")
    g = p.add_argument_group("sampling (paper, section 3.1: see --preset)")
    g.add_argument("--runs", type=int, default=1,
                   help="independent samples per problem, each with its own seed (paper, "
                        "Appendix D, uses 4); default 1")
    g.add_argument("--preset", default="reasoning",
                   help="reasoning (T=1.0) or chat (T=0.7); top-p 1.0, top-k off (default: "
                        "reasoning)")
    g.add_argument("--temperature", type=float)
    g.add_argument("--top-p", type=float)
    g.add_argument("--top-k", type=int, help="-1 = off")
    g.add_argument("--max-tokens", type=int,
                   help="output limit; default: the model's context minus the prompt")
    g.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"base seed; run r uses run_seed(seed, r) (default {DEFAULT_SEED})")
    g = p.add_argument_group("OpenAI-compatible API (--backend openai)")
    g.add_argument("--base-url", action="append", metavar="URL",
                   help="e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL or "
                        "api.openai.com); give it again for each replica serving the model: "
                        "requests are spread over them, and a replica that dies has its "
                        "requests retried on the others")
    g.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                   help="environment variable holding the API key (default OPENAI_API_KEY)")
    g.add_argument("--concurrency", type=int, default=16,
                   help="requests in flight on each --base-url (default 16)")
    g.add_argument("--request-timeout", type=float, default=600.0,
                   help="seconds per request before it is retried (default 600)")
    g.add_argument("--max-attempts", type=int, default=6,
                   help="tries per request before it is reported failed (default 6)")
    g = p.add_argument_group("local models (--backend vllm | transformers)")
    g.add_argument("--tensor-parallel-size", type=int, default=1)
    g.add_argument("--data-parallel-size", type=int, default=1,
                   help="vllm: engines on this node, each with its own GPUs (default 1)")
    g.add_argument("--pipeline-parallel-size", type=int, default=1,
                   help="vllm: layers split over this many GPU groups (default 1); GPUs per "
                        "engine = tensor x pipeline")
    g.add_argument("--distributed-executor-backend", metavar="mp|ray|uni",
                   help="vllm: how the engine runs its GPU workers; ray for a model spread "
                        "over several nodes (a running Ray cluster); default: vLLM's choice")
    g.add_argument("--max-model-len", type=int, help="context length (vllm; also caps the API's)")
    g.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    g.add_argument("--dtype", default="auto")
    g.add_argument("--enforce-eager", action="store_true",
                   help="vllm: no CUDA graphs (faster start, slower decoding; the CPU build)")
    g.add_argument("--device", default="cpu", help="transformers: cpu, cuda, cuda:0, ...")
    g.add_argument("--batch-size", type=int, default=8, help="transformers: prompts per batch")
    g.add_argument("--chat-template-kwargs", metavar="JSON",
                   help='e.g. \'{"enable_thinking": true}\' (recorded with the settings)')
    g.add_argument("--enable-thinking", action="store_true",
                   help='shorthand for --chat-template-kwargs \'{"enable_thinking": true}\'')


# --- inputs ---------------------------------------------------------------------------


def _check_numbers(args: argparse.Namespace) -> None:
    """Refuse every out-of-range number before anything loads or is written: a NaN
    temperature, say, only fails deep in the sampler, after the run folder exists."""
    checks = [("--runs", args.runs, 1), ("--limit", args.limit, 1),
              ("--max-tokens", args.max_tokens, 1), ("--concurrency", args.concurrency, 1),
              ("--max-attempts", args.max_attempts, 1), ("--batch-size", args.batch_size, 1),
              ("--tensor-parallel-size", args.tensor_parallel_size, 1),
              ("--data-parallel-size", args.data_parallel_size, 1),
              ("--pipeline-parallel-size", args.pipeline_parallel_size, 1),
              ("--max-model-len", args.max_model_len, 1)]
    for flag, value, least in checks:
        if value is not None and value < least:
            raise UserError(f"{flag} must be at least {least} (got {value})")
    # argparse's float() takes 'nan' and 'inf', which pass every comparison below unnoticed.
    for flag, value in (("--temperature", args.temperature), ("--top-p", args.top_p),
                        ("--request-timeout", args.request_timeout),
                        ("--gpu-memory-utilization", args.gpu_memory_utilization)):
        if value is not None and not math.isfinite(value):
            raise UserError(f"{flag} must be a finite number (got {value})")
    if args.temperature is not None and args.temperature < 0:
        raise UserError(f"--temperature must be >= 0 (got {args.temperature})")
    if args.top_p is not None and not 0 < args.top_p <= 1:
        raise UserError(f"--top-p must be in (0, 1] (got {args.top_p})")
    if args.top_k is not None and (args.top_k == 0 or args.top_k < -1):
        raise UserError(f"--top-k must be -1 (off) or a positive integer (got {args.top_k})")
    # The command line hands over bytes that are not UTF-8 as lone surrogates; these go
    # into every record and would fail the first write.
    for flag, value in (("--model", args.model), ("--revision", args.revision),
                        ("--system-prompt", args.system_prompt)):
        if value is not None and not _is_utf8(value):
            raise UserError(f"{flag} is not valid UTF-8 text (got {value!r})")
    if args.request_timeout is not None and args.request_timeout <= 0:
        raise UserError(f"--request-timeout must be a positive number of seconds "
                        f"(got {args.request_timeout:g})")
    if not 0 < args.gpu_memory_utilization <= 1:
        raise UserError(f"--gpu-memory-utilization must be in (0, 1] "
                        f"(got {args.gpu_memory_utilization})")


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def template_kwargs(args: argparse.Namespace) -> dict[str, Any] | None:
    kwargs: dict[str, Any] = {}
    if args.chat_template_kwargs:
        try:
            kwargs = json.loads(args.chat_template_kwargs)
        except json.JSONDecodeError as exc:
            raise UserError(f"--chat-template-kwargs is not valid JSON ({exc.msg}); expected "
                            f'an object such as \'{{"enable_thinking": true}}\'') from None
        if not isinstance(kwargs, dict):
            raise UserError("--chat-template-kwargs must be a JSON object")
    if args.enable_thinking:
        kwargs["enable_thinking"] = True
    return kwargs or None


def sampling_settings(args: argparse.Namespace, chat_kwargs: dict[str, Any] | None
                      ) -> SamplingSettings:
    overrides: dict[str, Any] = {}
    for name in ("temperature", "top_p", "top_k", "max_tokens"):
        value = getattr(args, name)
        if value is not None:
            overrides[name] = value
    # The template's kwargs change what the model is asked, so they are part of the key.
    if chat_kwargs:
        overrides["extra"] = (("chat_template_kwargs", chat_kwargs),)
    return preset(args.preset, seed=args.seed, **overrides)


def read_ids(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise UserError(f"--ids {path}: cannot read ({exc.strerror})") from None
    ids = [s.strip() for s in lines if s.strip() and not s.lstrip().startswith("#")]
    if not ids:
        raise UserError(f"--ids {path}: no ids in the file; expected one problem id a line")
    return ids


def select_problems(problems: list[Problem], ids_file: str | None,
                    limit: int | None) -> list[Problem]:
    if ids_file:
        wanted = read_ids(ids_file)
        by_id = {p.id: p for p in problems}
        unknown = [i for i in wanted if i not in by_id]
        if unknown:
            more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
            raise UserError(f"--ids {ids_file}: id {unknown[0]!r}{more} is not in the dataset")
        problems = [by_id[i] for i in dict.fromkeys(wanted)]
    if limit is not None:
        problems = problems[:limit]
    if not problems:
        raise UserError("no problems to run (the dataset, --ids or --limit selected none)")
    return problems


def load(args: argparse.Namespace) -> list[Problem]:
    from .. import load_problems

    return load_problems(source=args.dataset, split=args.split, config=args.config)


def build_requests(problems: list[Problem], settings: SamplingSettings, runs: int,
                   system_prompt: str | None) -> list[GenerationRequest]:
    from ..prompts import build_messages

    base_seed = settings.seed if settings.seed is not None else DEFAULT_SEED
    out = []
    # Run-major order: with a limited budget, run 0 of every problem comes before run 1 of
    # any, so an interrupted run still has one full pass to grade.
    for run in range(runs):
        for p in problems:
            messages = tuple(dict(m) for m in build_messages(p, system_prompt=system_prompt))
            out.append(GenerationRequest(p.id, run, messages,
                                         settings.with_seed(run_seed(base_seed, run))))
    return out


def runner_options(args: argparse.Namespace, chat_kwargs: dict[str, Any] | None
                   ) -> dict[str, Any]:
    if args.backend == "openai":
        from .openai_api import RetryPolicy

        return {"base_url": args.base_url, "api_key_env": args.api_key_env,
                "concurrency": args.concurrency, "request_timeout": args.request_timeout,
                "retry": RetryPolicy(max_attempts=args.max_attempts),
                "chat_template_kwargs": chat_kwargs, "revision": args.revision,
                "max_model_len": args.max_model_len}
    if args.backend == "vllm":
        return {"revision": args.revision, "tensor_parallel_size": args.tensor_parallel_size,
                "data_parallel_size": args.data_parallel_size,
                "pipeline_parallel_size": args.pipeline_parallel_size,
                "distributed_executor_backend": args.distributed_executor_backend,
                "max_model_len": args.max_model_len,
                "gpu_memory_utilization": args.gpu_memory_utilization, "dtype": args.dtype,
                "enforce_eager": args.enforce_eager, "chat_template_kwargs": chat_kwargs}
    return {"revision": args.revision, "dtype": args.dtype, "device": args.device,
            "batch_size": args.batch_size, "chat_template_kwargs": chat_kwargs}


# --- the run --------------------------------------------------------------------------


@dataclass
class Tally:
    total: int = 0
    skipped: int = 0
    written: int = 0
    failed: int = 0
    output_tokens: int = 0
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def counts(self) -> dict[str, Any]:
        return {"requested": self.total, "already_done": self.skipped, "written": self.written,
                "failed": self.failed, "output_tokens": self.output_tokens,
                "seconds": round(self.seconds, 2)}


def main(args: argparse.Namespace) -> int:
    require("generate", backend_extra(args.backend))
    from . import provenance

    check_backend(args.backend)
    _check_numbers(args)
    if args.base_url and args.backend != "openai":
        raise UserError("--base-url is for --backend openai")
    if args.backend != "vllm" and (args.pipeline_parallel_size != 1
                                   or args.distributed_executor_backend is not None):
        raise UserError("--pipeline-parallel-size and --distributed-executor-backend are for "
                        "--backend vllm")
    if args.backend == "vllm":   # the library's own check, before anything loads
        from .vllm import parallel_options

        parallel_options(args.tensor_parallel_size, args.pipeline_parallel_size,
                         args.data_parallel_size, args.distributed_executor_backend)
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UserError(f"--out {args.out}: exists and is not a folder; expected a run folder")
    chat_kwargs = template_kwargs(args)
    settings = sampling_settings(args, chat_kwargs)
    problems = select_problems(load(args), args.ids, args.limit)
    requests = build_requests(problems, settings, args.runs, args.system_prompt)
    model = model_key(args.model, args.revision)

    store = RunStore(args.out)
    # A folder whose files are not what a run writes is refused before the model loads and
    # before anything is written (a torn line cut off, a responses file created).
    store.check_paths()
    tally = Tally(total=len(requests))
    # The folder's lock comes first, and what is pending is computed under it: a second
    # `generate` on the same --out is refused here, before it loads a model, instead of
    # computing the same pending set and writing every record a second time.
    report = store.open()
    wrote = False   # run.json written by this session: from then on nothing is discarded
    runner = None
    try:
        previous = store.read_run_json()
        if report.torn_bytes:   # the store only logs it at INFO: said once, here
            print(f"general365 generate: recovered {store.path}: dropped a torn last line "
                  f"({report.torn_bytes} bytes) from an interrupted run", file=sys.stderr)
        pending, tally.skipped = store.pending(requests, model)
        if not pending:
            _summary(tally, store, args)
            return 0
        runner = make_runner(args.backend, args.model, **runner_options(args, chat_kwargs))
        runner.prepare(pending)   # refuses prompts that cannot fit, before anything is written
        dataset = {"source": args.dataset or "official public split", "split": args.split,
                   "config": args.config, "problems": len(problems),
                   "fingerprint": provenance.dataset_fingerprint(problems),
                   "ids_file": args.ids, "limit": args.limit}
        record = provenance.start_record(
            backend=args.backend, model=args.model, revision=args.revision, dataset=dataset,
            # The seeds the requests were given (build_requests derives them), not a recount.
            sampling={**settings.to_dict(), "system_prompt": args.system_prompt,
                      "seeds": {str(r.run): r.sampling.seed for r in requests}},
            runs=args.runs, runner=_safe_provenance(runner), prompt=_prompt_provenance(args),
            previous=previous)
        store.write_run_json(record)
        wrote = True
        status = "interrupted"
        try:
            _generate(runner, pending, problems, model, store, tally)
            status = "failed" if tally.failed else "complete"
        finally:
            record["runner"] = _safe_provenance(runner)
            counts = {**tally.counts(), "records_in_file": len(store)}
            _write_end_record(store, provenance.end_record(record, status=status,
                                                           counts=counts),
                              failing=status == "interrupted")
    finally:
        # The lock is held until run.json is final; a run refused before it wrote anything
        # (a prompt too long, a model that does not load) leaves no folder behind.
        store.close(discard=not wrote)
        if runner is not None:
            runner.close()
    _summary(tally, store, args, runner)
    return 1 if tally.failed else 0


def _write_end_record(store: RunStore, record: dict[str, Any], *, failing: bool) -> None:
    """run.json's final state. When the run is already failing (a full disk, Ctrl-C), a
    second failure here must not hide the first: the records are safe in responses.jsonl
    and run.json keeps its "running" state, which a rerun replaces."""
    try:
        store.write_run_json(record)
    except UserError as exc:
        if not failing:
            raise
        print(f"general365 generate: note: {exc} (run.json keeps its earlier state)",
              file=sys.stderr)


def _prompt_provenance(args: argparse.Namespace) -> dict[str, Any]:
    from ..prompts import prompt_provenance

    return prompt_provenance(args.system_prompt)


def _safe_provenance(runner: Any) -> dict[str, Any]:
    try:
        return dict(runner.provenance())
    except Exception as exc:   # provenance must never cost a run
        return {"backend": getattr(runner, "backend", None), "error": repr(exc)}


def _generate(runner: Any, pending: list[GenerationRequest], problems: list[Problem],
              model: str, store: RunStore, tally: Tally) -> None:
    from tqdm import tqdm

    by_id = {p.id: p for p in problems}
    by_key = {(r.problem_id, r.run): r for r in pending}
    # A problem is done when all its runs are in the file (earlier sessions included).
    left = collections.Counter(r.problem_id for r in pending)
    problems_done = len(problems) - len(left)
    start = time.monotonic()
    bar = tqdm(total=len(pending), unit="resp", file=sys.stderr, dynamic_ncols=True,
               desc="generate", mininterval=0.5)
    try:
        for gen in runner.generate(pending):
            req = by_key[(gen.problem_id, gen.run)]
            if gen.error:
                tally.failed += 1
                if len(tally.errors) < 5:
                    tally.errors.append(f"id {gen.problem_id!r} run {gen.run}: {gen.error}")
            else:
                store.append(build_record(gen, req, model, by_id.get(req.problem_id)),
                             RecordKey.of(req, model))
                tally.written += 1
                tally.output_tokens += gen.output_tokens or 0
                left[req.problem_id] -= 1
                problems_done += left[req.problem_id] == 0
            elapsed = max(time.monotonic() - start, 1e-9)
            bar.set_postfix_str(f"problems {problems_done}/{len(problems)}, "
                                f"{tally.output_tokens / elapsed:,.0f} tok/s, "
                                f"{tally.failed} failed", refresh=False)
            bar.update(1)
    finally:
        bar.close()
        tally.seconds = time.monotonic() - start


def _summary(tally: Tally, store: RunStore, args: argparse.Namespace,
             runner: Any = None) -> None:
    rate = tally.output_tokens / tally.seconds if tally.seconds else 0.0
    lines = [
        f"general365 generate: {args.model} ({args.backend}) -> {store.path}",
        f"  requested {tally.total}: written {tally.written}, already done {tally.skipped}, "
        f"failed {tally.failed}",
        f"  output tokens {tally.output_tokens:,} in {tally.seconds:.1f}s ({rate:,.0f} tok/s)",
    ]
    # The API runner's endpoints: what each served, which went down.
    lines += [f"  {line}" for line in getattr(runner, "summary_lines", lambda: [])()]
    for e in tally.errors:
        lines.append(f"  failed: {e}")
    if tally.failed:
        lines.append(f"  {tally.failed} request(s) failed; rerun the same command to retry "
                     f"them (what is written is kept)")
    print("\n".join(lines))
