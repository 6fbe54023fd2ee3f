"""Reasoning-flow diagnostics (the paper's Figures 3-6 and Table 4; docs/cfe-bench.md):
unit execution accuracy, and reasoning-flow lengths counted by a segmenting model, the two
costed diagnostics of `general365 cfe units | lengths`. Each announces its model calls
before making any (`dry_run=True` stops there, writing nothing), generates through the
session of `general365 generate` into a run folder that a rerun resumes, and writes its
table beside the replies (`out/<table key>.md` and `.csv`).
"""

from __future__ import annotations

import hashlib
import os
import statistics
from dataclasses import astuple, dataclass, field
from typing import Any, Callable, Iterable, Sequence

from ...errors import DataError, OptionError, UserError
from ...fsutil import write_text
from ...grading.engine import Grader
from ...jsonl import iter_jsonl, parse
from ...markers import split_reasoning
from ...reporting.tables import DEC, INT, PCT, Column, Table, to_csv, to_markdown
from ...runners.base import GenerationRequest, SamplingSettings, run_seed
from ...runners import provenance
from ...runners.session import GenerateResult, SessionPlan, run_session
from ...runners.store import model_key
from ...schema import Response, Status
from ...validators import is_int, is_number, option_int
from .data import CFEProblem, FlowStep, Variable, VariableType
from .grade import DEFAULT_TIMEOUT, CFEGraded, CFERows, grade
from .prompts import with_question
from .quantity import parse_quantity

UNIT_PROMPT_VERSION = "cfe-unit-v1"
UNIT_SEP = "#unit"
RUN_SEP = "#run"

UNIT_INSTRUCTION = """A reference solution to this problem proceeds in steps. {prefix}
Now answer only the next step:
Step {k}: {step}

End your response with one line: answer = <value>"""

SEGMENT_SYSTEM = """You split a worked solution into its reasoning steps.
A step is one atomic, verifiable unit of reasoning: a sub-question the solution answers, such as stating a law, substituting values, simplifying an expression, or computing a quantity. Restating the question, commentary and the final summary are not steps.
Count the steps of the solution you are given. Output only a JSON object {"steps": N}, where N is a positive integer."""
SEGMENT_USER = "Solution:\n{solution}"
SEGMENT_VERSION = "cfe-segment-" + hashlib.sha256(
    (SEGMENT_SYSTEM + "\x00" + SEGMENT_USER).encode("utf-8")).hexdigest()[:12]
MAX_SOLUTION_CHARS = 12000

Announce = Callable[[str], None]


@dataclass(frozen=True)
class ReasoningUnit:
    problem: CFEProblem
    index: int                       # 0-based position in the flow
    step: FlowStep

    @property
    def id(self) -> str:
        return f"{self.problem.id}{UNIT_SEP}{self.index + 1}"


def units(problems: Iterable[CFEProblem]) -> list[ReasoningUnit]:
    return [ReasoningUnit(p, i, s) for p in problems for i, s in enumerate(p.reasoning_flow)]


def _answer_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def unit_problem(unit: ReasoningUnit) -> CFEProblem:
    """The unit as a one-variable problem, graded like the benchmark."""
    value = unit.step.verifiable_answer
    text = _answer_text(value)
    quantity = parse_quantity(text) if isinstance(value, str) else None
    if is_number(value):
        vtype = VariableType.NUMERIC
    elif quantity is not None:
        vtype = VariableType.OTHER if quantity.unit.text else VariableType.NUMERIC
    elif isinstance(value, str) and any(c in text for c in "\\^_=") and len(text) < 300:
        vtype = VariableType.FORMULA
    else:
        vtype = VariableType.OTHER
    return CFEProblem(id=unit.id, question=f"{unit.problem.question}\n\nStep {unit.index + 1}: "
                      f"{unit.step.step}", variables=(Variable("answer", vtype,
                                                               unit.step.step, text),),
                      modality=unit.problem.modality, subject=unit.problem.subject,
                      tolerance=unit.problem.tolerance)


def unit_messages(unit: ReasoningUnit) -> tuple[dict[str, Any], ...]:
    done = unit.problem.reasoning_flow[:unit.index]
    prefix = ("Its first steps and their answers are:\n" + "\n".join(
        f"Step {i + 1}: {s.step}\nAnswer: {_answer_text(s.verifiable_answer)}"
        for i, s in enumerate(done))) if done else "This is its first step."
    tail = UNIT_INSTRUCTION.format(prefix=prefix, k=unit.index + 1, step=unit.step.step)
    # the figures included, as the benchmark asks
    return ({"role": "user", "content": with_question(unit.problem, tail)},)


def unit_requests(unit_list: Sequence[ReasoningUnit], settings: SamplingSettings,
                  runs: int = 1) -> list[GenerationRequest]:
    base = settings.seed if settings.seed is not None else 0
    return [GenerationRequest(u.id, run, unit_messages(u),
                              settings.with_seed(run_seed(base, run)))
            for run in range(runs) for u in unit_list]


def generate_into(out_dir: str, make_runner: Callable[[], Any],
                  requests: list[GenerationRequest], *, model: str, purpose: str,
                  prompt_version: str, progress: bool = True) -> GenerateResult:
    """Generate what the run folder `out_dir` does not hold yet, as `general365 generate`
    does (runners/session.py: lock, run.json, progress, resume)."""
    sampling = requests[0].sampling.to_dict() if requests else {}
    dataset = {"benchmark": "cfe", "diagnostic": purpose,
               "problems": len({r.problem_id for r in requests})}

    def start(runner_provenance: dict, previous: dict | None) -> dict:
        return provenance.start_record(
            backend="openai", model=model, revision=None, dataset=dataset, sampling=sampling,
            runs=len({r.run for r in requests}), runner=runner_provenance,
            prompt={"version": prompt_version}, previous=previous)

    return run_session(SessionPlan(
        out=out_dir, model=model_key(model, None), backend="openai", requests=requests,
        make_runner=make_runner, inline={}, start_record=start,
        end_record=provenance.end_record, progress=progress,
        unit="units" if purpose == "units" else "responses"))


@dataclass
class UnitResults:
    graded: list[CFEGraded]
    positions: dict[str, int] = field(default_factory=dict)   # unit id -> 1-based k

    def accuracy(self, rows: Iterable[CFEGraded] | None = None) -> tuple[int, int, float | None]:
        rows = list(self.graded if rows is None else rows)
        graded = [g for g in rows if g.status is not Status.UNGRADED]
        right = sum(g.correct for g in graded)
        return right, len(graded), right / len(graded) if graded else None


def grade_units(out_dir: str, unit_list: Sequence[ReasoningUnit], *,
                policy: str | None = None, judge: Any = None, workers: int | None = None,
                timeout: float = 30.0) -> UnitResults:
    by_id = {u.id: u for u in unit_list}
    path = f"{out_dir}/responses.jsonl"
    responses = (Response.from_dict(d, path=path, line=n) for n, d in iter_jsonl(path))
    pairs = [(r, unit_problem(by_id[r.id])) for r in responses if r.id in by_id]
    graded = grade(pairs, policy=policy, judge=judge, workers=workers, timeout=timeout)
    return UnitResults(graded, {u.id: u.index + 1 for u in unit_list})


def unit_table(results: UnitResults) -> Table:
    cols = [Column("Subset"), Column("Position"), Column("Units", INT), Column("Correct", INT),
            Column("Unit execution accuracy", PCT)]
    t = Table("cfe_unit_execution", "CFE-Bench unit execution accuracy", cols,
              note="Each unit answered given the question and the reference prefix, graded "
                   "against its verifiable answer (the paper's Figure 3). Units: graded "
                   "(unit x run).")
    for subset in ("text", "mm", "all"):
        rows = [g for g in results.graded if subset == "all" or g.problem.modality == subset]
        if not rows:
            continue
        positions = sorted({results.positions.get(g.problem.id, 0) for g in rows})
        for k in ["all", *positions]:
            at = rows if k == "all" else [g for g in rows
                                          if results.positions.get(g.problem.id) == k]
            right, n, acc = results.accuracy(at)
            t.rows.append([subset, str(k), n, right, acc])
    return t


def segment_messages(solution: str) -> tuple[dict[str, str], ...]:
    if len(solution) > MAX_SOLUTION_CHARS:   # the front goes: the steps that count remain
        solution = "[...] " + solution[-MAX_SOLUTION_CHARS:]
    return ({"role": "system", "content": SEGMENT_SYSTEM},
            {"role": "user", "content": SEGMENT_USER.format(solution=solution)})


def parse_steps(text: str | None) -> int | None:
    """N from a reply that is exactly one JSON object {"steps": N}, N a positive integer
    (after a closed reasoning block, if any; one ``` fence allowed); else None."""
    if not text or not text.strip():
        return None
    _, final, closed = split_reasoning(text)
    if not closed:
        return None
    body = final.strip()
    if body.startswith("```") and body.endswith("```"):
        body = body.strip("`").strip()
        if body[:4].lower() == "json":
            body = body[4:].strip()
    try:
        obj = parse(body, expected="one JSON object {\"steps\": N}")
    except DataError:   # broken, nested 100,000 deep, a 5,000-digit number, NaN: no count
        return None
    if not isinstance(obj, dict) or set(obj) != {"steps"}:
        return None
    n = obj["steps"]
    if not is_int(n) or not 1 <= n <= 1000:
        return None
    return n


@dataclass(frozen=True)
class Outcome:
    id: str                          # question id
    run: int
    modality: str
    solved: bool
    solution: str | None             # the final part of the response (None: cut off)


def outcomes(graded_paths: Sequence[str]) -> list[Outcome]:
    out = []
    for path in graded_paths:
        for n, d in iter_jsonl(path):
            r = Response.from_dict(d, path=path, line=n)
            status = d.get("status")
            if status not in Status.values() or status == Status.UNGRADED.value:
                continue
            _, final, closed = split_reasoning(r.response)
            modality = d.get("modality") if d.get("modality") in ("text", "mm") else "text"
            out.append(Outcome(r.id, r.run, modality, status == Status.CORRECT.value,
                               final.strip() if closed else None))
    if not out:
        raise UserError("no graded rows with a verdict in " + ", ".join(graded_paths))
    return out


def segment_requests(items: Sequence[Outcome], settings: SamplingSettings
                     ) -> list[GenerationRequest]:
    return [GenerationRequest(f"{o.id}{RUN_SEP}{o.run}", 0, segment_messages(o.solution),
                              settings) for o in items if o.solution]


@dataclass(frozen=True)
class LengthRow:
    subset: str
    outcome: str                     # Solved | Unsolved | Overall
    questions: int
    gt_mean: float | None
    gt_std: float | None
    resp_counted: int
    resp_mean: float | None
    resp_std: float | None


def _stats(values: list[int]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    return statistics.fmean(values), statistics.pstdev(values) if len(values) > 1 else 0.0


def length_rows(items: Sequence[Outcome], problems: dict[str, CFEProblem],
                counts: dict[str, int]) -> list[LengthRow]:
    out = []
    for subset in ("text", "mm", "all"):
        sub = [o for o in items if (subset == "all" or o.modality == subset)
               and o.id in problems]
        if not sub:
            continue
        for label, keep in (("Solved", lambda o: o.solved), ("Unsolved", lambda o: not o.solved),
                            ("Overall", lambda o: True)):
            rows = [o for o in sub if keep(o)]
            gt = [len(problems[o.id].reasoning_flow) for o in rows]
            resp = [counts[k] for o in rows for k in [f"{o.id}{RUN_SEP}{o.run}"] if k in counts]
            out.append(LengthRow(subset, label, len(rows), *_stats(gt), len(resp), *_stats(resp)))
    return out


def read_counts(out_dir: str) -> tuple[dict[str, int], int]:
    """Step counts from the segmenter's replies in `out_dir`, and how many were unusable."""
    counts, failed = {}, 0
    path = f"{out_dir}/responses.jsonl"
    for n, d in iter_jsonl(path):
        r = Response.from_dict(d, path=path, line=n)
        k = parse_steps(r.response)
        if k is None:
            failed += 1
        else:
            counts[r.id] = k
    return counts, failed


def length_table(rows: Sequence[LengthRow]) -> Table:
    cols = [Column("Subset"), Column("Outcome"), Column("Questions", INT),
            Column("GT len. mean", DEC), Column("GT len. std", DEC),
            Column("Responses counted", INT), Column("Resp. len. mean", DEC),
            Column("Resp. len. std", DEC)]
    t = Table("cfe_flow_lengths", "CFE-Bench reasoning-flow lengths by outcome", cols,
              note="GT: units in the reference reasoning flow. Resp.: steps of the response's "
                   "final part as counted by the segmenting model (prompt " + SEGMENT_VERSION
                   + "); replies that are not {\"steps\": N} are left out. The paper's "
                   "Table 4. Questions: graded rows (question x run).")
    t.rows.extend(list(astuple(r)) for r in rows)
    return t


def _check_count(option: str, value: Any) -> None:
    option_int(option, value, text=f"must be at least 1 (got {value!r})")


def select(problems: Sequence[CFEProblem], limit: int | None) -> list[CFEProblem]:
    if limit is not None:
        _check_count("limit", limit)
    return list(problems[:limit])


def unit_execution(problems: Sequence[CFEProblem], *, make_runner: Callable[[], Any],
                   model: str, out: str, settings: SamplingSettings, runs: int = 1,
                   policy: str | None = None, judge: Any = None, workers: int | None = None,
                   timeout: float = DEFAULT_TIMEOUT, dry_run: bool = False,
                   progress: bool = True, announce: Announce = print) -> Table | None:
    """Unit execution accuracy (the paper's Figure 3): every reasoning unit of `problems`
    answered `runs` times given the reference prefix, graded against its verifiable
    answer (policy rule, or cascade / paper with `judge`)."""
    _check_count("runs", runs)
    Grader(CFERows(), policy=policy, judge=judge, timeout=timeout)   # checked before any call
    unit_list = units(problems)
    if not unit_list:
        raise UserError("the problems chosen have no reasoning flow: no units to answer")
    requests = unit_requests(unit_list, settings, runs)
    announce(f"unit execution: {len(requests)} model call(s) ({len(unit_list)} units of "
             f"{len(problems)} problems x {runs} run(s)), to {model}")
    if dry_run:
        return None
    gen = generate_into(out, make_runner, requests, model=model, purpose="units",
                        prompt_version=UNIT_PROMPT_VERSION, progress=progress)
    _say_generated("unit execution", gen, out, announce)
    results = grade_units(out, unit_list, policy=policy, judge=judge, workers=workers,
                          timeout=timeout)
    return _write(out, unit_table(results))


def flow_lengths(problems: Sequence[CFEProblem], graded: Sequence[str], *,
                 make_runner: Callable[[], Any], model: str, out: str,
                 settings: SamplingSettings, dry_run: bool = False, progress: bool = True,
                 announce: Announce = print) -> Table | None:
    """Reasoning-flow lengths of solved and unsolved questions (the paper's Table 4): the
    reference flow's units against the steps a segmenting model counts in each graded
    response's final part."""
    if not graded:
        raise OptionError("graded", "names no graded file; expected one or more")
    items = outcomes(graded)
    requests = segment_requests(items, settings)
    announce(f"flow lengths: {len(requests)} model call(s) (one per graded response with a "
             f"final answer), to {model}")
    if dry_run:
        return None
    gen = generate_into(out, make_runner, requests, model=model, purpose="lengths",
                        prompt_version=SEGMENT_VERSION, progress=progress)
    _say_generated("flow lengths", gen, out, announce)
    counts, failed = read_counts(out)
    if failed:
        announce(f"flow lengths: note: {failed} segmenter repl(ies) were not "
                 "{\"steps\": N}; left out")
    by_id = {p.id: p for p in problems}
    unknown = sorted({o.id for o in items} - set(by_id))
    if unknown:
        announce(f"flow lengths: note: {len(unknown)} graded question(s) are not in the "
                 f"problems given (e.g. {unknown[0]!r}); left out")
    return _write(out, length_table(length_rows(items, by_id, counts)))


def _say_generated(what: str, gen: Any, out: str, announce: Announce) -> None:
    announce(f"{what}: {gen.written} generated, {gen.already_done} already in {out}, "
             f"{gen.failed} failed" + (" (rerun to retry them)" if gen.failed else ""))
    for error in gen.errors:
        announce(f"{what}: failed: {error}")


def _write(out: str, table: Table) -> Table:
    for suffix, text in ((".md", to_markdown(table)), (".csv", to_csv(table))):
        write_text(os.path.join(out, table.key + suffix), text)
    return table
