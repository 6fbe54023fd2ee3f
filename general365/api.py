"""The library's entry points, one per stage: `generate`, `grade_file`, `report` and `run`
(with `general365.grade` for responses in memory). The command line only maps its flags to
these keyword arguments, so the two accept and refuse exactly the same inputs. Each checks
every option before any work (one `UserError` line; an `OptionError` names the option).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .errors import OptionError, UserError
from .extras import backend_extra, require
from .grading.files import GradeResult, check_out_file, grade_file as _grade_file
from .grading.pool import DEFAULT_TIMEOUT
from .reporting import stats as _stats
from .reporting.build import Report, build_report, check_report_options, write_report
from .reporting.kinds import GENERAL365
from .runners import provenance
from .runners.options import (DEFAULT_SEED, build_requests, check_options, runner_options,
                              sampling_settings, select_problems, template_kwargs,
                              typed_engine_args)
from .runners.registry import make_runner
from .runners.session import GenerateResult, SessionPlan, run_session
from .runners.store import model_key
from .tasks import Benchmark, get_benchmark
from .tiny_model import MARKER as TINY_MODEL


def generate(model: str, *, backend: str, out: str, benchmark: str | Benchmark | None = None,
             dataset: str | None = None, split: str = "public", config: str = "all",
             limit: int | None = None, ids: Sequence[str] | None = None,
             ids_file: str | None = None, system_prompt: str | None = None, runs: int = 1,
             preset: str = "reasoning", temperature: float | None = None,
             top_p: float | None = None, top_k: int | None = None,
             max_tokens: int | None = None, seed: int = DEFAULT_SEED,
             chat_template_kwargs: str | Mapping[str, Any] | None = None,
             enable_thinking: bool = False, revision: str | None = None,
             base_url: str | Sequence[str] | None = None,
             api_key_env: str = "OPENAI_API_KEY",
             concurrency: int = 16, request_timeout: float = 600.0, max_attempts: int = 6,
             tensor_parallel_size: int = 1, data_parallel_size: int = 1,
             pipeline_parallel_size: int = 1, distributed_executor_backend: str | None = None,
             max_model_len: int | None = None, gpu_memory_utilization: float = 0.9,
             dtype: str = "auto", enforce_eager: bool = False, device: str = "cpu",
             batch_size: int = 8,
             engine_args: Mapping[str, Any] | Sequence[str] | None = None,
             progress: bool = True) -> GenerateResult:
    """Answers of `model` for a benchmark's problems, into the run folder `out`
    (responses.jsonl + run.json; resumed: only what is missing is generated). Sampling
    defaults are the paper's (`preset`). `base_url` (backend openai): one URL or a list of
    replicas. `engine_args`: the engine's own options ("KEY=VALUE" strings, or a mapping).
    docs/running.md has the details."""
    o = dict(locals())
    require("generate", backend_extra(backend))
    check_options(o)
    o["engine_args"] = typed_engine_args(backend, engine_args, model=model, revision=revision)
    bench = get_benchmark(benchmark)
    chat = template_kwargs(chat_template_kwargs, enable_thinking)
    settings = sampling_settings(o, chat)
    problems = select_problems(bench.load(dataset, split=split, config=config), ids=ids,
                               ids_file=ids_file, limit=limit)
    requests = build_requests(problems, lambda p: bench.messages(p, system_prompt=system_prompt),
                              settings, runs)
    source = dataset or getattr(bench, "default_source", None) or "official public split"
    dataset_record = {"source": source, "split": split, "config": config,
                      "problems": len(problems), "fingerprint": bench.fingerprint(problems),
                      "ids_file": ids_file, "limit": limit}
    if ids is not None:
        dataset_record["ids"] = len(ids)
    if bench.name != "general365":
        dataset_record["benchmark"] = bench.name
    sampling = {**settings.to_dict(), "system_prompt": system_prompt,
                # the seeds the requests were given, not a recount
                "seeds": {str(r.run): r.sampling.seed for r in requests}}
    prompt = {"version": bench.prompt_version, "system_prompt": system_prompt}

    random_weights = os.path.isfile(os.path.join(os.path.expanduser(model), TINY_MODEL))

    def start(runner_provenance: dict, previous: dict | None) -> dict:
        record = provenance.start_record(backend=backend, model=model, revision=revision,
                                         dataset=dataset_record, sampling=sampling, runs=runs,
                                         runner=runner_provenance, prompt=prompt,
                                         previous=previous)
        if random_weights:   # the report groups it apart: its scores rank nothing
            record["random_weights"] = True
        return record

    plan = SessionPlan(
        out=out, model=model_key(model, revision), backend=backend, requests=requests,
        make_runner=lambda: make_runner(backend, model, **runner_options(o, chat)),
        inline={p.id: bench.inline(p) for p in problems}, start_record=start,
        end_record=provenance.end_record, progress=progress)
    return run_session(plan)


def grade_file(responses: str, out: str, *, benchmark: str | Benchmark | None = None,
               dataset: str | None = None, split: str = "public", config: str = "all",
               policy: str | None = None, judge: Any = None, workers: int | None = None,
               timeout: float | None = None, progress: bool = False) -> GradeResult:
    """Grade a responses file into `out` (graded.jsonl), against `dataset` or the gold each
    response carries inline. `judge`: a general365.grading.judge.Judge (policies paper and
    cascade). `timeout`: seconds per rule-graded answer (default: the benchmark's). Every
    line is checked before any judge call is paid for; `out` is replaced whole at the end."""
    check_out_file(out)
    bench = get_benchmark(benchmark if benchmark is not None else _benchmark_of(responses))
    if timeout is None:
        timeout = getattr(bench, "default_timeout", DEFAULT_TIMEOUT)
    problems = bench.load(dataset, split=split, config=config) if dataset else None
    grader = bench.grader(problems, policy=policy, judge=judge, workers=workers,
                          timeout=timeout, dataset=dataset)
    if bench.name != "general365":
        grader = _Stamped(grader, bench.name)
    try:
        return _grade_file(responses, out, grader, progress=progress)
    finally:
        grader.close()


def report(graded: str | Sequence[str], out: str | None = None, *, published: str = "full",
           names: Sequence[str] | None = None, bootstrap: int = _stats.BOOTSTRAP_RESAMPLES,
           seed: int = _stats.BOOTSTRAP_SEED, report_to: str | Sequence[str] | None = None,
           logging_dir: str | None = None, hub_folder: str | None = None,
           push_to_hub: str | None = None, public: bool = False,
           token_env: str | None = None) -> Report:
    """The report of graded files: every table (Report.tables), and with `out` the folder
    (tables, figures, the leaderboard page), written all or nothing. `published`: the
    paper's figures beside yours (full, public or none). Sent on from there
    (docs/reports.md): `report_to` experiment trackers; `hub_folder` a results dataset in
    the Hub layout, which `push_to_hub=ORG/NAME` uploads (private unless `public`; the
    token from `token_env`, default HF_TOKEN, else the saved login)."""
    check_paths(out=out)
    publish = _publish_options(out, report_to=report_to, logging_dir=logging_dir,
                               hub_folder=hub_folder, push_to_hub=push_to_hub,
                               token_env=token_env, public=public)
    if out is not None:
        require("report", ["plots"])
    paths = [graded] if isinstance(graded, (str, os.PathLike)) else list(graded)
    built = build_report([str(p) for p in paths], published=published, names=names,
                         resamples=bootstrap, seed=seed,
                         kind_of=lambda name: get_benchmark(name).report)
    if out is not None:
        built = write_report(built, out)
    return _publish(built, publish, public=public, token_env=token_env)


def check_paths(**paths: Any) -> None:
    """Refuse a blank path: "" is the current folder to os.path.join, so an unset shell
    variable (`--hub-folder "$DIR"`) would write over its files."""
    for option, value in paths.items():
        for v in [value] if isinstance(value, (str, os.PathLike)) or value is None else value:
            if v is not None and not os.fspath(v).strip():
                raise OptionError(option, f"{os.fspath(v)!r} is empty; expected a path "
                                          "(an unset shell variable?)")


def _publish_options(out: str | None, *, report_to, logging_dir, hub_folder, push_to_hub,
                     token_env, public: bool = False) -> dict[str, Any]:
    """Check where the report's results go, before any work; what _publish needs."""
    from .results import trackers as _trackers

    check_paths(logging_dir=logging_dir, hub_folder=hub_folder)
    if push_to_hub is None:   # said for the upload only: without it, a sign of a mistake
        if public:
            raise OptionError("public", "is for the repository {push_to_hub} creates; give "
                                        "it with {push_to_hub} ORG/NAME")
        if token_env is not None:
            raise OptionError("token_env", "is the Hub token for {push_to_hub}; give it with "
                                           "{push_to_hub} ORG/NAME")

    names = _trackers.parse_report_to(report_to)
    if names:
        require("report", names)   # each tracker is its own pip extra
    opts: dict[str, Any] = {"trackers": names, "hub_folder": hub_folder,
                            "push_to_hub": push_to_hub,
                            "logging_dir": _trackers.check_logging_dir(logging_dir, names, out)}
    if hub_folder is not None or push_to_hub is not None:
        from .results import hub as _hub

        _hub.check_repo(push_to_hub)
        if hub_folder is not None:
            _hub.check_folder(hub_folder)
        elif out is None:
            raise OptionError("push_to_hub", "needs a folder to upload from: give "
                                             "{hub_folder} DIR, or {out}")
        if push_to_hub is not None:
            if token_env is not None and not os.environ.get(token_env):
                raise OptionError("token_env",
                                  f"{token_env}: that environment variable is not set")
            _hub.require_hub(push_to_hub)
    return opts


def _publish(built: Report, opts: dict[str, Any], *, public: bool,
             token_env: str | None) -> Report:
    notes = built.sent
    if opts["trackers"]:
        from .results import trackers as _trackers

        notes += _trackers.log_report(built.runs, opts["trackers"],
                                      logging_dir=opts["logging_dir"])
    folder = opts["hub_folder"]
    if folder is None and opts["push_to_hub"] is not None:
        folder = os.path.join(built.out, "hub")   # the upload's copy, kept beside the report
    if folder is not None:
        from .results import hub as _hub

        files = _hub.write_folder(built.runs, folder)
        notes.append(f"results dataset: {len(files) - 1} file(s) in {folder}")
        if opts["push_to_hub"] is not None:
            token = os.environ.get(token_env or "HF_TOKEN") or None
            url = _hub.push_folder(folder, opts["push_to_hub"], files=files,
                                   private=not public, token=token)
            notes.append(f"pushed to {url} ({'public' if public else 'private'})")
    return built


@dataclass
class RunResult:
    generate: GenerateResult
    grade: GradeResult | None = None
    report: Report | None = None

    @property
    def exit_code(self) -> int:
        """0 all done; 1 generation incomplete or rows judge_failed (rerun to resume)."""
        done = self.generate.ok and self.grade is not None and not self.grade.judge_failed
        return 0 if done else 1


def run(model: str, *, backend: str, out: str, policy: str | None = None, judge: Any = None,
        grade_workers: int | None = None, grade_timeout: float | None = None,
        published: str = "full", name: str | None = None, progress: bool = True,
        on_stage: Any = None, report_to: str | Sequence[str] | None = None,
        logging_dir: str | None = None, hub_folder: str | None = None,
        push_to_hub: str | None = None, public: bool = False, token_env: str | None = None,
        **generate_options: Any) -> RunResult:
    """generate + grade_file + report into one run folder (responses.jsonl, run.json,
    graded.jsonl, report/), every stage's options checked before anything is generated.
    `generate_options` are generate()'s; grading and the report wait for a complete
    generation (rerun the same call to resume). `report_to` ... `token_env` are report()'s."""
    from .results.trackers import parse_report_to

    check_paths(out=out, logging_dir=logging_dir, hub_folder=hub_folder)
    trackers = parse_report_to(report_to)
    require("run", [*backend_extra(backend), "plots", *trackers])
    if logging_dir is None and "tensorboard" in trackers:
        logging_dir = os.path.join(out, "tensorboard")
    publish = {"report_to": report_to, "logging_dir": logging_dir, "hub_folder": hub_folder,
               "push_to_hub": push_to_hub, "token_env": token_env}
    _publish_options(os.path.join(out, "report"), **publish, public=public)
    bench = get_benchmark(generate_options.get("benchmark"))
    if grade_timeout is None:
        grade_timeout = getattr(bench, "default_timeout", DEFAULT_TIMEOUT)
    try:   # the benchmark's grader checks the grading options, as grade_file's will
        policy = bench.grader(None, policy=policy, judge=judge, workers=grade_workers,
                              timeout=grade_timeout).policy
    except OptionError as exc:
        if exc.option in ("workers", "timeout"):   # run's names for grade's options
            raise OptionError("grade_" + exc.option, exc.text) from None
        raise
    kind = bench.report
    if published == "full" and "full" not in kind.published_choices:
        kind = GENERAL365   # full is the default: the report shows none where none exist
    check_report_options(published=published, resamples=_stats.BOOTSTRAP_RESAMPLES,
                         kind=kind)
    responses = os.path.join(out, "responses.jsonl")
    graded = os.path.join(out, "graded.jsonl")
    report_dir = os.path.join(out, "report")
    say = on_stage or (lambda stage, path: None)

    say("generate", responses)
    gen = generate(model, backend=backend, out=out, progress=progress, **generate_options)
    result = RunResult(gen)
    if not gen.ok:
        return result
    say("grade", graded)
    result.grade = grade_file(responses, graded, benchmark=generate_options.get("benchmark"),
                              policy=policy, judge=judge, workers=grade_workers,
                              timeout=grade_timeout, progress=progress)
    if result.grade.judge_failed:
        return result
    say("report", report_dir)
    result.report = report(graded, report_dir, published=published,
                           names=[name] if name else None, public=public, **publish)
    return result


def _benchmark_of(responses: str) -> str | None:
    """The benchmark a responses file's first row names (None: General365; unreadable
    files are left to the grader, which names the bad line)."""
    from .jsonl import iter_jsonl

    if not os.path.isfile(responses):
        return None
    try:
        _n, row = next(iter_jsonl(responses), (0, None))
    except UserError:
        return None
    name = row.get("benchmark") if isinstance(row, dict) else None
    return name if isinstance(name, str) else None


class _Stamped:
    """A grader whose graded rows name their benchmark, also where the responses did not."""

    def __init__(self, grader: Any, name: str):
        self._grader, self._name = grader, name
        self.pairing, self.policy = grader.pairing, grader.policy
        self.uses_judge = getattr(grader, "uses_judge", True)

    def grade(self, responses, **kwargs):
        for g in self._grader.grade(responses, **kwargs):
            g.response.extra.setdefault("benchmark", self._name)
            yield g

    def close(self) -> None:
        self._grader.close()
