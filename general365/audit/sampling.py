"""`sample`: a stratified, seeded sample of graded rows to review (docs/audit.md). Strata are
(method, status, answer type), each given one row first (rare strata are where a grader
fails), the rest of `n` by size; every rule-judge disagreement is reviewed on top of `n`.
Each row carries its weight, so that `score` can estimate the whole input."""

from __future__ import annotations

import hashlib
import json
import os
import random
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from .. import __version__
from ..errors import UserError
from ..folders import write_folder
from ..fsutil import write_text
from ..jsonl import line
from ..validators import option_int
from .rows import Candidate, ReviewRow, read_candidates, review_rows

DISAGREEMENT = "rule-judge disagreement"


@dataclass
class Stratum:
    name: str
    population: int
    drawn: int = 0

    @property
    def weight(self) -> float:
        return self.population / self.drawn if self.drawn else 0.0


@dataclass
class AuditSample:
    """The drawn sample: its rows (in review order) and how they were drawn."""

    rows: list[ReviewRow]
    strata: list[Stratum]
    settings: dict
    out: str | None = None
    files: list[str] = field(default_factory=list)

    @property
    def sample_id(self) -> str:
        """A short fingerprint of what was drawn (the page keeps its marks under it)."""
        keys = json.dumps([[r.model, r.id, r.run] for r in self.rows]).encode()
        return hashlib.sha256(keys + str(self.settings.get("seed")).encode()).hexdigest()[:16]

    @property
    def disagreements(self) -> int:
        return sum(r.reason == "disagreement" for r in self.rows)

    def manifest(self) -> dict:
        return {"sample_id": self.sample_id, "general365_version": __version__,
                **self.settings, "rows": len(self.rows), "disagreements": self.disagreements,
                "strata": [{"stratum": s.name, "population": s.population, "drawn": s.drawn,
                            "weight": s.weight} for s in self.strata]}


def stratum_of(c: Candidate) -> str:
    r = c.row
    return (f"{r.method or 'none'} / {r.status.value} / "
            f"{r.answer_type.value if r.answer_type else 'unknown'}")


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Rows to draw from each stratum: one each first (the largest strata first when `n`
    is short), then the rest in proportion to size by largest remainders, capped by size."""
    order = sorted(sizes, key=lambda k: (-sizes[k], k))
    first = [k for k in order if sizes[k] > 0][:max(0, n)]
    alloc = {k: int(k in first) for k in sizes}
    left = n - len(first)
    while left > 0:
        room = {k: sizes[k] - alloc[k] for k in order if sizes[k] > alloc[k]}
        if not room:
            break
        total = sum(room.values())
        shares = {k: left * room[k] / total for k in room}
        floors = {k: min(room[k], int(shares[k])) for k in room}
        given = sum(floors.values())
        # The remainders, largest first (ties: the larger stratum, then the name).
        rest = sorted(room, key=lambda k: (-(shares[k] - int(shares[k])), -sizes[k], k))
        for k in rest[: max(0, left - given)]:
            if floors[k] < room[k]:
                floors[k] += 1
        for k, v in floors.items():   # at least one row: every stratum in room has room
            alloc[k] += v
        left -= sum(floors.values())
    return alloc


def sample(paths: Sequence[str], n: int, *, seed: int = 0,
           names: Sequence[str] | None = None) -> AuditSample:
    """Draw the review sample from graded files (nothing is written; see `write_sample`)."""
    option_int("n", n, text=f"{n!r}: expected the number of rows to sample, at least 1")
    if not paths:
        raise UserError("no graded files given; expected one or more GRADED.jsonl")
    candidates = read_candidates(paths, names)
    if not candidates:
        raise UserError("no graded row has a verdict to audit (every row is ungraded)")
    disagreements = [c for c in candidates if c.disagreement]
    groups: dict[str, list[Candidate]] = {}
    for c in candidates:
        if not c.disagreement:
            groups.setdefault(stratum_of(c), []).append(c)
    alloc = allocate({k: len(v) for k, v in groups.items()}, n)
    chosen: list[tuple[Candidate, str, int, str, float]] = []
    strata = []
    if disagreements:
        strata.append(Stratum(DISAGREEMENT, len(disagreements), len(disagreements)))
        chosen += [(c, DISAGREEMENT, len(disagreements), "disagreement", 1.0)
                   for c in disagreements]
    for name in sorted(groups):
        members = groups[name]
        st = Stratum(name, len(members), alloc[name])
        strata.append(st)
        if not st.drawn:
            continue
        picks = sorted(random.Random(f"{seed}:{name}").sample(range(len(members)), st.drawn))
        chosen += [(members[i], name, st.population, "sample", st.weight) for i in picks]
    rows = review_rows(chosen)
    settings = {"seed": seed, "n": n, "inputs": [os.path.abspath(p) for p in paths],
                "names": list(names) if names else None,
                "population": len(candidates)}
    drawn = AuditSample(rows=rows, strata=strata, settings=settings)
    for r in rows:
        r.sample_id = drawn.sample_id
    return drawn


def write_files(out: str, files: Mapping[str, str]) -> tuple[str, list[str]]:
    """Write an audit's files (name -> text, all built in memory first) into the folder
    `out` together (folders.write_folder): the old set or the new one, never a mix."""
    def build(tmp: str) -> None:
        for name, text in files.items():
            write_text(os.path.join(tmp, name), text)

    return write_folder(out, build, base="general365-audit", what="the audit")


def write_sample(s: AuditSample, out: str) -> AuditSample:
    """Write `review.jsonl` (the labels template), `review.html` (the review page) and
    `sample.json` (how the sample was drawn) into the folder `out`."""
    from .page import render_page

    manifest = s.manifest()
    lines = b"".join(line(r.to_dict()) for r in s.rows)
    files = {
        "review.jsonl": lines,
        "review.html": render_page(s.rows, manifest),
        "sample.json": json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
    }
    s.out, s.files = write_files(out, files)
    return s
