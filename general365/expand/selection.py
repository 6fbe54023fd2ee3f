"""`select(DIR, decisions=FILE, per_seed=3, out=FILE)`: the final variants of each seed. The
decisions are checked, accepted candidates checked again as dataset rows, and up to
`per_seed` chosen greedily by novelty + hardness (docs/expand.md, section 5).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..errors import DataError, OptionError
from ..fsutil import check_target, write_text
from ..jsonl import iter_jsonl, write
from ..schema import Problem, parse_categories
from ..terminal import shown
from ..validators import is_int, option_int
from .candidates import ExpansionCandidate, read_candidates, read_seeds
from .checks import gold_problem, normalise
from .review import EDITABLE

DECISIONS = ("accept", "reject")
_KEYS = {"seed_id", "candidate", "decision", "note", "id", *EDITABLE}


@dataclass
class Decision:
    seed_id: str
    candidate: int
    decision: str
    edits: dict[str, Any]
    note: str
    line: int


@dataclass
class Chosen:
    candidate: ExpansionCandidate   # its fields as accepted (edits applied)
    categories: list[str]
    novelty: float
    hardness: float


@dataclass
class Selection:
    out: str
    per_seed: int
    seeds: int
    accepted: int
    rejected: int
    undecided: int
    chosen: dict[str, list[Chosen]] = field(default_factory=dict)
    short: dict[str, int] = field(default_factory=dict)   # seed id -> variants it has

    def summary_lines(self) -> list[str]:
        n = sum(len(v) for v in self.chosen.values())
        lines = [f"general365 expand select: {n} variant(s) of {self.seeds} seed(s) -> {self.out}",
                 f"  decisions: {self.accepted} accepted, {self.rejected} rejected, "
                 f"{self.undecided} candidate(s) undecided"]
        if self.short:
            named = ", ".join(f"{shown(s)} ({k})" for s, k in self.short.items())
            lines.append(f"  {len(self.short)} seed(s) with fewer than {self.per_seed} "
                         f"variants (write the rest by hand): {named}")
        lines.append(f"  next: general365 dataset build --source {self.out} --out DIR")
        return lines


def read_decisions(path: str, cands: Sequence[ExpansionCandidate]
                   ) -> dict[tuple[str, int], Decision]:
    if not os.path.isfile(path):
        raise OptionError("decisions", f"{path}: not found; expected the decisions file "
                                       "(JSON Lines) exported from the review page")
    known = {(c.seed_id, c.candidate) for c in cands}
    out: dict[tuple[str, int], Decision] = {}
    for line, row in iter_jsonl(path):
        where = {"path": path, "line": line}
        if not isinstance(row, dict):
            raise DataError("not a JSON object", expected="a decision object", **where)
        unknown = sorted(set(row) - _KEYS)
        if unknown:
            raise DataError(f"unknown field {unknown[0]!r}", field=unknown[0],
                            expected="seed_id, candidate, decision, note and edited fields "
                                     f"({', '.join(EDITABLE)})", **where)
        seed, number = row.get("seed_id"), row.get("candidate")
        if not isinstance(seed, str) or not is_int(number):
            raise DataError("bad seed_id or candidate", field="candidate", value=number,
                            expected="seed_id (text) and candidate (an integer)", **where)
        where["row_id"] = f"{seed}-c{number}"
        if (seed, number) not in known:
            raise DataError("no such candidate in the folder", field="candidate",
                            value=number, expected="a candidate of candidates.jsonl", **where)
        decision = row.get("decision")
        if decision not in DECISIONS:
            raise DataError("bad decision", field="decision", value=decision,
                            expected="accept or reject", **where)
        if (seed, number) in out:
            raise DataError(f"decided twice (first on line {out[(seed, number)].line})",
                            expected="one decision per candidate", **where)
        note = row.get("note") or ""
        out[(seed, number)] = Decision(seed, number, decision,
                                       {k: row[k] for k in EDITABLE if k in row},
                                       note if isinstance(note, str) else str(note), line)
    return out


def final_fields(c: ExpansionCandidate, d: Decision, path: str) -> tuple[dict[str, Any], list[str]]:
    """The accepted candidate's fields with its edits, checked as a dataset row needs."""
    fields, problems = normalise({**c.fields, **{k: v for k, v in d.edits.items()
                                                 if k != "categories"}, "change": "-"})
    where = {"path": path, "line": d.line, "row_id": f"{d.seed_id}-c{d.candidate}"}
    if problems:
        raise DataError(f"accepted, but {problems[0]}; edit it or reject the candidate",
                        field=problems[0].split(" ", 1)[0], **where)
    probe = ExpansionCandidate(c.seed_id, c.candidate, fields)
    why = gold_problem(probe)
    if why:
        raise DataError(f"accepted, but the gold does not parse: {why}; edit it or reject "
                        "the candidate", field="answer", **where)
    cats = d.edits.get("categories", c.categories)
    categories = [x.value for x in parse_categories(cats, **where)]
    fields["change"] = c.get("change")
    return fields, categories


def _vectors(texts: list[str], embedder: str):
    from ..analysis.embed import embed_texts, make_embedder
    from ..analysis.skeleton import skeletons

    emb = make_embedder(embedder)
    vecs = embed_texts(emb, skeletons(texts)).vectors
    if hasattr(vecs, "toarray"):
        vecs = vecs.toarray()
    return vecs


def pick(seed: Problem, pool: list[tuple[ExpansionCandidate, list[str]]], per_seed: int,
         vecs, index: dict[str, int]) -> list[Chosen]:
    """Greedy: the most novel and hardest first, novelty measured against the seed and what
    is already chosen."""
    chosen: list[Chosen] = []
    taken = [index[seed.id]]
    left = list(pool)
    while left and len(chosen) < per_seed:
        scored = []
        for c, cats in left:
            novelty = 1.0 - max(float(vecs[index[c.id]] @ vecs[t]) for t in taken)
            rate = c.solver.rate if c.solver else None
            hardness = 0.5 if rate is None else 1.0 - rate
            scored.append(((novelty + hardness, -c.candidate), Chosen(c, cats, novelty, hardness)))
        choice = max(scored, key=lambda s: s[0])[1]
        left = [x for x in left if x[0] is not choice.candidate]
        taken.append(index[choice.candidate.id])
        chosen.append(choice)
    return chosen


def select(folder: str, *, decisions: str, per_seed: int = 3, out: str,
           embedder: str = "tfidf", overwrite: bool = False) -> Selection:
    option_int("per_seed", per_seed)
    if os.path.isdir(out):
        raise OptionError("out", f"{out}: is a folder; expected the .jsonl file to write")
    check_target(out)
    check_target(_report_path(out))
    if os.path.exists(out) and not overwrite:
        raise OptionError("out", f"{out}: exists; pass {{overwrite}} to replace it")
    cands = read_candidates(folder)
    seeds = read_seeds(folder, required=True)
    decided = read_decisions(decisions, cands)
    accepted: dict[str, list[tuple[ExpansionCandidate, list[str]]]] = {}
    for c in cands:
        d = decided.get((c.seed_id, c.candidate))
        if d is not None and d.decision == "accept":
            c.fields, cats = final_fields(c, d, decisions)
            accepted.setdefault(c.seed_id, []).append((c, cats))
    texts = [s.question for s in seeds]
    index = {s.id: i for i, s in enumerate(seeds)}
    for pool in accepted.values():
        for c, _ in pool:
            index[c.id] = len(texts)
            texts.append(c.get("question"))
    vecs = _vectors(texts, embedder) if any(accepted.values()) else None
    result = Selection(out=out, per_seed=per_seed, seeds=len(seeds),
                       accepted=sum(d.decision == "accept" for d in decided.values()),
                       rejected=sum(d.decision == "reject" for d in decided.values()),
                       undecided=len(cands) - len(decided))
    rows: list[dict[str, Any]] = []
    for s in seeds:
        chosen = pick(s, accepted.get(s.id, []), per_seed, vecs, index)
        result.chosen[s.id] = chosen
        if len(chosen) < per_seed:
            result.short[s.id] = len(chosen)
        rows.append(s.to_dict())
        for n, ch in enumerate(chosen, start=1):
            f = ch.candidate.fields
            rows.append({"id": f"{s.id}-v{n}", "seed_id": s.id, "variant": n,
                         "question": f["question"], "answer": f["answer"],
                         "answer_type": f["answer_type"], "float_round": f["float_round"],
                         "categories": ch.categories, "reasoning": f["reasoning"],
                         "source": f"general365 expand: candidate {ch.candidate.candidate} of "
                                   f"{s.id} ({ch.candidate.model or 'model'})"})
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    write(out, rows)
    _write_report(out, result)
    return result


def _write_report(out: str, s: Selection) -> None:
    """`OUT.selection.json` beside the rows: what was chosen, why, and the short seeds."""
    report = {"per_seed": s.per_seed, "short": s.short,
              "decisions": {"accepted": s.accepted, "rejected": s.rejected,
                            "undecided": s.undecided},
              "seeds": {sid: [{"candidate": ch.candidate.candidate, "id": f"{sid}-v{n}",
                               "novelty": round(ch.novelty, 4),
                               "hardness": round(ch.hardness, 4),
                               "solver": ch.candidate.solver.to_dict()
                               if ch.candidate.solver else None}
                              for n, ch in enumerate(chosen, start=1)]
                        for sid, chosen in s.chosen.items()}}
    write_text(_report_path(out), json.dumps(report, indent=2, ensure_ascii=False) + "\n")


def _report_path(out: str) -> str:
    return (out[:-6] if out.endswith(".jsonl") else out) + ".selection.json"
