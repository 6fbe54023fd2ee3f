"""One generation session on a run folder, in the order docs/running.md guarantees: the lock,
then what is pending; every prompt checked to fit before anything is written; run.json's
start, each answer appended as it completes, run.json's end, then the lock let go. A session
that stops before writing run.json leaves no folder it created behind."""

from __future__ import annotations

import collections
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..errors import UserError
from ..redact import shown_settings, shown_urls
from ..terminal import shown
from .base import GenerationRequest, Runner
from .store import RecordKey, RunStore, build_record


@dataclass
class GenerateResult:
    """What one session did: the counts `general365 generate` prints and run.json keeps."""

    out: str
    model: str
    backend: str
    requested: int = 0
    already_done: int = 0
    written: int = 0
    failed: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)   # the first few failures, one line each
    status: str = "complete"   # complete | failed | interrupted | nothing to do
    notes: list[str] = field(default_factory=list)    # said once to the user (a torn line)
    # the runner's own closing lines (the API runner's: what each --base-url served)
    runner_lines: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def counts(self) -> dict[str, Any]:
        return {"requested": self.requested, "already_done": self.already_done,
                "written": self.written, "failed": self.failed,
                "output_tokens": self.output_tokens, "seconds": round(self.seconds, 2)}

    def render(self, path: str) -> str:
        rate = self.output_tokens / self.seconds if self.seconds else 0.0
        lines = [
            f"general365 generate: {self.model} ({self.backend}) -> {path}",
            f"  requested {self.requested}: written {self.written}, already done "
            f"{self.already_done}, failed {self.failed}",
            f"  output tokens {self.output_tokens:,} in {self.seconds:.1f}s ({rate:,.0f} tok/s)",
        ]
        # A failure's text and an endpoint's last error are the server's words: escaped,
        # so that they cannot draw on the terminal or add a line of their own.
        lines += [f"  {shown(line)}" for line in self.runner_lines]
        lines += [f"  failed: {shown(e)}" for e in self.errors]
        if self.failed:
            lines.append(f"  {self.failed} request(s) failed; rerun the same command to retry "
                         f"them (what is written is kept)")
        return "\n".join(lines)


@dataclass(frozen=True)
class SessionPlan:
    """Everything a session needs, decided and checked before the folder is touched."""

    out: str
    model: str              # the store key's model (model@revision)
    backend: str
    requests: Sequence[GenerationRequest]
    make_runner: Callable[[], Runner]
    # problem id -> the fields each record carries inline (its gold, so a responses file
    # can be graded with no dataset at hand); ids missing here carry none
    inline: Mapping[str, Mapping[str, Any]]
    # run.json's start record, given the runner's provenance and the previous run.json
    start_record: Callable[[dict[str, Any], dict[str, Any] | None], dict[str, Any]]
    end_record: Callable[..., dict[str, Any]]
    progress: bool = True
    unit: str = "problems"


def run_session(plan: SessionPlan) -> GenerateResult:
    result = GenerateResult(out=plan.out, model=plan.model, backend=plan.backend,
                            requested=len(plan.requests))
    store = RunStore(plan.out)
    # A folder whose files are not what a run writes is refused before anything is
    # written (a torn line cut off, a responses file created).
    store.check_paths()
    report = store.open()   # the lock: a second session on this folder stops here
    wrote = False           # run.json written: from then on nothing is discarded
    runner = None
    try:
        previous = store.read_run_json()
        if report.torn_bytes:
            result.notes.append(f"recovered {store.path}: dropped a torn last line "
                                f"({report.torn_bytes} bytes) from an interrupted run")
        pending, result.already_done = store.pending(list(plan.requests), plan.model)
        if not pending:
            result.status = "nothing to do"
            return result
        runner = plan.make_runner()
        runner.prepare(pending)   # refuses prompts that cannot fit, before anything is written
        record = plan.start_record(_safe_provenance(runner), previous)
        store.write_run_json(record)
        wrote = True
        status = "interrupted"
        try:
            _generate(runner, pending, plan, store, result)
            status = "failed" if result.failed else "complete"
        finally:
            record["runner"] = _safe_provenance(runner)
            lines = getattr(runner, "summary_lines", None)   # optional: the API runner's
            result.runner_lines = list(lines()) if callable(lines) else []
            counts = {**result.counts(), "records_in_file": len(store)}
            result.status = status
            try:
                store.write_run_json(plan.end_record(record, status=status, counts=counts))
            except UserError as exc:
                # When the run is already failing (a full disk, Ctrl-C), this failure must
                # not hide the first: run.json keeps its state, which a rerun replaces.
                if status != "interrupted":
                    raise
                result.notes.append(f"{exc} (run.json keeps its earlier state)")
    finally:
        # The lock is held until run.json is final; a session refused before it wrote
        # anything (a prompt too long, a model that does not load) leaves no folder behind.
        store.close(discard=not wrote)
        if runner is not None:
            runner.close()
    return result


def _safe_provenance(runner: Any) -> dict[str, Any]:
    """The runner's settings for run.json, every credential in them masked."""
    try:
        return shown_settings(dict(runner.provenance()))
    except Exception as exc:   # provenance must never cost a run
        return {"backend": getattr(runner, "backend", None), "error": shown_urls(repr(exc))}


def _generate(runner: Runner, pending: list[GenerationRequest], plan: SessionPlan,
              store: RunStore, result: GenerateResult) -> None:
    from tqdm import tqdm

    by_key = {(r.problem_id, r.run): r for r in pending}
    # A problem is done when all its runs are in the file (earlier sessions included).
    left = collections.Counter(r.problem_id for r in pending)
    total = len({r.problem_id for r in plan.requests})
    done = total - len(left)
    start = time.monotonic()
    bar = tqdm(total=len(pending), unit="resp", file=sys.stderr, dynamic_ncols=True,
               desc="generate", mininterval=0.5, disable=not plan.progress)
    try:
        for gen in runner.generate(pending):
            req = by_key[(gen.problem_id, gen.run)]
            if gen.error:
                result.failed += 1
                if len(result.errors) < 5:
                    result.errors.append(f"id {gen.problem_id!r} run {gen.run}: {gen.error}")
            else:
                store.append(build_record(gen, req, plan.model, plan.inline.get(req.problem_id)),
                             RecordKey.of(req, plan.model))
                result.written += 1
                result.output_tokens += gen.output_tokens or 0
                left[req.problem_id] -= 1
                done += left[req.problem_id] == 0
            elapsed = max(time.monotonic() - start, 1e-9)
            bar.set_postfix_str(f"{plan.unit} {done}/{total}, "
                                f"{result.output_tokens / elapsed:,.0f} tok/s, "
                                f"{result.failed} failed", refresh=False)
            bar.update(1)
    finally:
        bar.close()
        result.seconds = time.monotonic() - start
