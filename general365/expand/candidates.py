"""The candidate record: one proposed variant of a seed, a line of `candidates.jsonl`
(its fields: docs/expand.md, section 2). An unparseable reply is still a candidate,
flagged, with the reply's text for the reviewer. candidates.jsonl is derived from
responses.jsonl, each reply parsed, checked and joined with its solver agreement, rebuilt
whole on every run, so the sibling checks see every candidate and a resumed expansion is
checked as if it had run at once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..errors import DataError, UserError
from ..jsonl import iter_jsonl, write
from ..schema import Problem
from ..validators import is_int
from .prompt import FIELDS, parse_reply

REPLY_CHARS = 4000   # the part of an unparseable reply kept for the review page
CANDIDATES = "candidates.jsonl"
SEEDS = "seeds.jsonl"   # the seeds the candidates were made from (review and select read it)


@dataclass(frozen=True)
class Flag:
    name: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"flag": self.name, "reason": self.reason}


@dataclass
class Solver:
    """How often a solver model, answering the candidate k times, matched its gold."""

    model: str
    k: int
    graded: int = 0
    correct: int = 0
    ungraded_reason: str | None = None   # why some answers were not graded (a text gold)

    @property
    def rate(self) -> float | None:
        return self.correct / self.graded if self.graded else None

    def to_dict(self) -> dict[str, Any]:
        d = {"model": self.model, "k": self.k, "graded": self.graded, "correct": self.correct,
             "agreement": self.rate}
        if self.ungraded_reason:
            d["ungraded_reason"] = self.ungraded_reason
        return d

    @classmethod
    def from_dict(cls, d: Any) -> "Solver | None":
        if not isinstance(d, Mapping):
            return None
        return cls(model=str(d.get("model", "")), k=int(d.get("k") or 0),
                   graded=int(d.get("graded") or 0), correct=int(d.get("correct") or 0),
                   ungraded_reason=d.get("ungraded_reason"))


@dataclass
class ExpansionCandidate:
    seed_id: str
    candidate: int
    fields: dict[str, Any]                       # question, reasoning, answer, ... as given
    categories: list[str] = field(default_factory=list)   # the seed's
    flags: list[Flag] = field(default_factory=list)
    model: str = ""
    finish_reason: str | None = None
    reply: str | None = None                     # the raw reply, when it did not parse
    solver: Solver | None = None

    @property
    def id(self) -> str:
        return f"{self.seed_id}-c{self.candidate}"

    def flag(self, name: str, reason: str) -> None:
        self.flags.append(Flag(name, reason))

    @property
    def flag_names(self) -> list[str]:
        return [f.name for f in self.flags]

    def get(self, name: str) -> Any:
        return self.fields.get(name)

    def to_dict(self) -> dict[str, Any]:
        d = {"id": self.id, "seed_id": self.seed_id, "candidate": self.candidate,
             **{name: self.fields.get(name) for name in FIELDS},
             "categories": list(self.categories), "flags": [f.to_dict() for f in self.flags],
             "solver": self.solver.to_dict() if self.solver else None, "model": self.model,
             "finish_reason": self.finish_reason}
        if self.reply is not None:
            d["reply"] = self.reply
        return d

    @classmethod
    def from_dict(cls, d: Any, *, path: str, line: int) -> "ExpansionCandidate":
        where = {"path": path, "line": line}
        if not isinstance(d, Mapping):
            raise DataError("not a JSON object", expected="a candidate row", **where)
        seed_id, number = d.get("seed_id"), d.get("candidate")
        if not isinstance(seed_id, str) or not seed_id:
            raise DataError("no seed_id", field="seed_id", value=seed_id,
                            expected="the seed's id (text)", **where)
        if not is_int(number) or number < 0:
            raise DataError("bad candidate number", field="candidate", value=number,
                            row_id=seed_id, expected="an integer >= 0", **where)
        flags = d.get("flags") or []
        if not isinstance(flags, list) or not all(
                isinstance(f, Mapping) and isinstance(f.get("flag"), str) for f in flags):
            raise DataError("bad flags", field="flags", row_id=seed_id,
                            expected='a list of {"flag": NAME, "reason": TEXT}', **where)
        cats = d.get("categories") or []
        return cls(seed_id=seed_id, candidate=number,
                   fields={k: d.get(k) for k in FIELDS},
                   categories=[str(c) for c in cats] if isinstance(cats, list) else [],
                   flags=[Flag(f["flag"], str(f.get("reason", ""))) for f in flags],
                   model=str(d.get("model") or ""), finish_reason=d.get("finish_reason"),
                   reply=d.get("reply"), solver=Solver.from_dict(d.get("solver")))


# --- candidates.jsonl ------------------------------------------------------------------


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
                     solver: Mapping[str, Solver]) -> list[ExpansionCandidate]:
    """Candidates in seed order, then candidate order, not yet checked (checks.check_all);
    records of seeds not in `seeds` are left out."""
    by_id = {s.id: s for s in seeds}
    order = {s.id: i for i, s in enumerate(seeds)}
    got = [candidate_from_record(r, by_id[r["id"]]) for r in records if r.get("id") in by_id]
    got.sort(key=lambda c: (order[c.seed_id], c.candidate))
    for c in got:
        c.solver = solver.get(c.id)
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
    return list({**{s.id: s for s in read_seeds(folder)}, **{s.id: s for s in chosen}}.values())


def write_seeds(folder: str, seeds: Sequence[Problem]) -> None:
    write(os.path.join(folder, SEEDS), [s.to_dict() for s in seeds])
