"""The two costed reasoning-flow diagnostics (`general365 cfe units | lengths`). Each
announces its model calls before making any (`dry_run=True` stops there, writing nothing),
generates into a run folder that a rerun resumes, and writes its table beside the replies
(`out/<table key>.md` and `.csv`).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

from ...errors import OptionError, UserError
from ...fsutil import write_text
from ...reporting.tables import Table, to_csv, to_markdown
from ...runners.base import SamplingSettings
from ...validators import option_int
from . import flow
from .data import CFEProblem
from .grade import DEFAULT_TIMEOUT

Announce = Callable[[str], None]


def _check_count(option: str, value: Any) -> None:
    option_int(option, value, text=f"must be at least 1 (got {value!r})")


def select(problems: Sequence[CFEProblem], limit: int | None) -> list[CFEProblem]:
    if limit is not None:
        _check_count("limit", limit)
    return list(problems[:limit] if limit is not None else problems)


def unit_execution(problems: Sequence[CFEProblem], *, make_runner: Callable[[], Any],
                   model: str, out: str, settings: SamplingSettings, runs: int = 1,
                   policy: str | None = None, judge: Any = None, workers: int | None = None,
                   timeout: float = DEFAULT_TIMEOUT, dry_run: bool = False,
                   progress: bool = True, announce: Announce = print) -> Table | None:
    """Unit execution accuracy (the paper's Figure 3): every reasoning unit of `problems`
    answered `runs` times given the reference prefix, graded against its verifiable
    answer (policy rule, or cascade / paper with `judge`)."""
    _check_count("runs", runs)
    from .grade import check, default_policy

    check(default_policy(policy, judge), judge, 0.01, timeout)   # before any call is paid
    unit_list = flow.units(problems)
    if not unit_list:
        raise UserError("the problems chosen have no reasoning flow: no units to answer")
    requests = flow.unit_requests(unit_list, settings, runs)
    announce(f"unit execution: {len(requests)} model call(s) ({len(unit_list)} units of "
             f"{len(problems)} problems x {runs} run(s)), to {model}")
    if dry_run:
        return None
    gen = flow.generate_into(out, make_runner, requests, model=model, purpose="units",
                             prompt_version=flow.UNIT_PROMPT_VERSION, progress=progress)
    _say_generated("unit execution", gen, out, announce)
    results = flow.grade_units(out, unit_list, policy=policy, judge=judge, workers=workers,
                               timeout=timeout)
    return _write(out, flow.unit_table(results))


def flow_lengths(problems: Sequence[CFEProblem], graded: Sequence[str], *,
                 make_runner: Callable[[], Any], model: str, out: str,
                 settings: SamplingSettings, dry_run: bool = False, progress: bool = True,
                 announce: Announce = print) -> Table | None:
    """Reasoning-flow lengths of solved and unsolved questions (the paper's Table 4): the
    reference flow's units against the steps a segmenting model counts in each graded
    response's final part."""
    if not graded:
        raise OptionError("graded", "names no graded file; expected one or more")
    items = flow.outcomes(graded)
    requests = flow.segment_requests(items, settings)
    announce(f"flow lengths: {len(requests)} model call(s) (one per graded response with a "
             f"final answer), to {model}")
    if dry_run:
        return None
    gen = flow.generate_into(out, make_runner, requests, model=model, purpose="lengths",
                             prompt_version=flow.SEGMENT_VERSION, progress=progress)
    _say_generated("flow lengths", gen, out, announce)
    counts, failed = flow.read_counts(out)
    if failed:
        announce(f"flow lengths: note: {failed} segmenter repl(ies) were not "
                 "{\"steps\": N}; left out")
    by_id = {p.id: p for p in problems}
    unknown = sorted({o.id for o in items} - set(by_id))
    if unknown:
        announce(f"flow lengths: note: {len(unknown)} graded question(s) are not in the "
                 f"problems given (e.g. {unknown[0]!r}); left out")
    return _write(out, flow.length_table(flow.length_rows(items, by_id, counts)))


def _say_generated(what: str, gen: Any, out: str, announce: Announce) -> None:
    announce(f"{what}: {gen.written} generated, {gen.already_done} already in {out}, "
             f"{gen.failed} failed" + (" (rerun to retry them)" if gen.failed else ""))
    for error in gen.errors:
        announce(f"{what}: failed: {error}")


def _write(out: str, table: Table) -> Table:
    for suffix, text in ((".md", to_markdown(table)), (".csv", to_csv(table))):
        write_text(os.path.join(out, table.key + suffix), text)
    return table
