"""The candidate record: one proposed variant of a seed, a line of `candidates.jsonl`
(its fields: docs/expand.md, section 2). An unparseable reply is still a candidate,
flagged, with the reply's text for the reviewer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from ..errors import DataError
from ..validators import is_int
from .prompt import FIELDS

REPLY_CHARS = 4000   # the part of an unparseable reply kept for the review page


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
