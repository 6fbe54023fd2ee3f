"""responses.jsonl -> candidates.jsonl: each reply parsed, checked, and joined with its solver
agreement. candidates.jsonl is derived, rebuilt whole on every run, so the sibling checks
see every candidate and a resumed expansion is checked as if it had run at once.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping, Sequence

from ..errors import DataError, UserError
from ..jsonl import iter_jsonl, write
from ..schema import Problem
from .candidates import REPLY_CHARS, ExpansionCandidate, Solver
from .checks import NEAR_DUPLICATE, check_all
from .prompt import parse_reply

CANDIDATES = "candidates.jsonl"
SEEDS = "seeds.jsonl"   # the seeds the candidates were made from (review and select read it)


def _writable(text: Any) -> Any:
    """Text with any lone surrogate (a server's `\ud800`, which UTF-8 cannot encode) kept
    as its escape: the candidate row must always be writable and readable back."""
    if not isinstance(text, str) or text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def candidate_from_record(rec: Mapping[str, Any], seed: Problem) -> ExpansionCandidate:
    text = rec.get("response") if isinstance(rec.get("response"), str) else ""
    finish = _writable(rec.get("finish_reason"))
    reply = parse_reply(text, finish_reason=finish)
    c = ExpansionCandidate(seed_id=seed.id, candidate=int(rec["run"]),
                           fields=dict(reply.fields or {}),
                           categories=[cat.value for cat in seed.categories],
                           model=_writable(str(rec.get("model") or "")),
                           finish_reason=finish if isinstance(finish, str) else None)
    if reply.fields is None:
        c.flag("unparseable", _writable(reply.error) or "no JSON object")
        c.reply = _writable(text[:REPLY_CHARS])
    return c


def build_candidates(records: Iterable[Mapping[str, Any]], seeds: Sequence[Problem], *,
                     near_duplicate: float = NEAR_DUPLICATE,
                     solver: Mapping[str, Solver] | None = None) -> list[ExpansionCandidate]:
    """Candidates in seed order, then candidate order; records of seeds not in `seeds`
    are left out."""
    by_id = {s.id: s for s in seeds}
    order = {s.id: i for i, s in enumerate(seeds)}
    got = [candidate_from_record(r, by_id[r["id"]]) for r in records if r.get("id") in by_id]
    got.sort(key=lambda c: (order[c.seed_id], c.candidate))
    check_all(got, by_id, near_duplicate)
    for c in got:
        if solver and c.id in solver:
            c.solver = solver[c.id]
    return got


def write_candidates(path: str, cands: Sequence[ExpansionCandidate]) -> None:
    write(path, [c.to_dict() for c in cands])


def read_candidates(folder: str) -> list[ExpansionCandidate]:
    """The candidates of an expansion folder, each row checked (file and line on error)."""
    path = os.path.join(folder, CANDIDATES)
    if not os.path.isdir(folder):
        raise UserError(f"{folder}: no such folder; expected the --out folder of "
                        "`general365 expand`")
    if not os.path.isfile(path):
        raise UserError(f"{path}: not found; run `general365 expand` into {folder} first")
    out: list[ExpansionCandidate] = []
    seen: dict[tuple[str, int], int] = {}
    for line, row in iter_jsonl(path):
        c = ExpansionCandidate.from_dict(row, path=path, line=line)
        if (c.seed_id, c.candidate) in seen:
            raise DataError(f"candidate {c.candidate} of seed {c.seed_id!r} twice (first on "
                            f"line {seen[(c.seed_id, c.candidate)]})", path=path, line=line)
        seen[(c.seed_id, c.candidate)] = line
        out.append(c)
    if not out:
        raise UserError(f"{path}: no candidates")
    return out


def read_seeds(folder: str, *, required: bool = False) -> list[Problem]:
    """The seeds an expansion folder was made from (`DIR/seeds.jsonl`), or [] if none."""
    from ..data.load import load_problems

    path = os.path.join(folder, SEEDS)
    if os.path.isfile(path):
        return load_problems(source=path)
    if required:
        raise UserError(f"{path}: not found; rerun `general365 expand` into this folder to "
                        "write it")
    return []


def merge_seeds(folder: str, chosen: Sequence[Problem]) -> list[Problem]:
    """The folder's earlier seeds and this run's (this run's copy wins): an expansion run
    on fewer seeds than an earlier one keeps the earlier candidates."""
    merged = {s.id: s for s in read_seeds(folder)}
    merged.update({s.id: s for s in chosen})
    return list(merged.values())


def write_seeds(folder: str, seeds: Sequence[Problem]) -> None:
    write(os.path.join(folder, SEEDS), [s.to_dict() for s in seeds])
