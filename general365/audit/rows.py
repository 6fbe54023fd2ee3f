"""Graded rows as a reviewer sees them, and where the rule and the judge disagree. The
report's reader checks the graded files; the fields a reviewer reads come from a second pass
over the sampled lines. `rule_side` reads the cascade's `rule: incorrect; judge: ...` detail
prefix strictly (tests/unit/test_audit.py pins it against the real cascade)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..errors import DataError
from ..jsonl import iter_jsonl
from ..markers import split_reasoning
from ..reporting.load import load_graded
from ..schema import Graded
from ..schema import Method, Status
from ..validators import is_int

# `rule: incorrect`, `choice: no_answer; judge: ...` (hybrid.py, cascade): what the first
# grader said before the judge's verdict replaced it.
_FIRST_GRADER = "|".join(m.value for m in Method if m is not Method.JUDGE)
_RULE_SAID = re.compile(rf"^({_FIRST_GRADER}): ({'|'.join(Status.values())})(?:;|$)")
# What a reviewer needs to see, capped so that a page of hundreds of rows stays light.
MAX_FINAL = 8000
MAX_TAIL = 1500
MAX_RAW = 2000


@dataclass(frozen=True)
class RuleSide:
    """What the first grader said on a row the judge then graded (cascade)."""

    method: str   # "rule" or "choice"
    status: str   # its status before the judge


def rule_side(d: Mapping[str, Any]) -> RuleSide | None:
    """The rule's verdict on a row that both the rule and the judge graded, or None."""
    if d.get("method") != Method.JUDGE.value or not isinstance(d.get("judge"), Mapping):
        return None
    detail = d.get("detail")
    if not isinstance(detail, str):
        return None
    m = _RULE_SAID.match(detail)
    return RuleSide(m.group(1), m.group(2)) if m else None


def disagree(status: str, side: RuleSide | None) -> bool:
    """The rule and the judge disagree: both gave a verdict and one accepted the answer
    while the other did not. The judge's verdict is correct or incorrect (a judge_failed
    row has none); the rule's counts as accepting only when it was `correct` (incorrect,
    no_answer and timeout all leave the answer not accepted, as accuracy counts them)."""
    if side is None or status not in (Status.CORRECT.value, Status.INCORRECT.value):
        return False
    return (side.status == Status.CORRECT.value) != (status == Status.CORRECT.value)


@dataclass(frozen=True)
class Candidate:
    """One graded row that may be sampled: its strata fields and where it lives."""

    row: Graded
    side: RuleSide | None
    disagreement: bool


@dataclass
class ReviewRow:
    """One row of the review file (`review.jsonl`) and of the review page."""

    item: int                 # 1-based position in the review
    model: str
    id: str
    run: int
    answer_type: str | None
    method: str | None
    status: str
    correct: bool
    stratum: str
    stratum_size: int         # graded rows of the input in this stratum
    reason: str               # "disagreement" or "sample"
    weight: float             # rows of the whole input this row stands for
    disagreement: bool
    rule_method: str | None   # cascade: the first grader and what it said
    rule_status: str | None
    question: str | None
    answer: str | None        # the gold
    float_round: int | None
    extracted: str | None
    final: str | None         # the final-answer region (after the reasoning), capped
    cut_off: bool             # the reasoning block was never closed: no final region
    response_tail: str | None
    response_chars: int
    detail: str | None
    judge_model: str | None
    judge_raw: str | None
    source: str               # path:line of the graded row
    sample_id: str = ""       # the sample this row was drawn in (set by sampling.py)
    label: str | None = None  # "right" / "wrong": the reviewer's mark
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def read_candidates(paths: Sequence[str], names: Sequence[str] | None = None
                    ) -> list[Candidate]:
    """Every graded row of `paths` with a verdict (ungraded rows have none to audit), in
    file order, with the rule's side where the cascade recorded one."""
    models = load_graded(paths, names)
    # The same file may be given twice under two --name values: a line can be two rows.
    by_place: dict[tuple[str, int], list[Graded]] = {}
    for m in models:
        for row in m.rows:
            by_place.setdefault((row.path, row.line), []).append(row)
    out: list[Candidate] = []
    for path in dict.fromkeys(paths):
        for n, d in iter_jsonl(path):
            side = None
            for row in by_place.get((path, n), ()):
                if row.status is Status.UNGRADED:
                    continue
                side = side or rule_side(d)
                out.append(Candidate(row, side, disagree(row.status.value, side)))
    return out


def review_rows(chosen: Iterable[tuple[Candidate, str, int, str, float]]) -> list[ReviewRow]:
    """The review rows of the chosen candidates (candidate, stratum, stratum size, reason,
    weight), in the order given: each file is read once more, for these lines only."""
    chosen = list(chosen)
    wanted: dict[tuple[str, int], list[int]] = {}
    for i, (c, *_) in enumerate(chosen):
        wanted.setdefault((c.row.path, c.row.line), []).append(i)
    raw: dict[int, Mapping[str, Any]] = {}
    for path in dict.fromkeys(c.row.path for c, *_ in chosen):
        for n, d in iter_jsonl(path):
            for i in wanted.get((path, n), ()):
                raw[i] = d
    out = []
    for i, (c, stratum, size, reason, weight) in enumerate(chosen):
        d = raw.get(i)
        if d is None:  # the file changed between the passes
            raise DataError("the graded file changed while it was being read",
                            path=c.row.path, line=c.row.line, row_id=c.row.id)
        out.append(_review_row(i + 1, c, d, stratum, size, reason, weight))
    return out


def _text(d: Mapping[str, Any], key: str) -> str | None:
    v = d.get(key)
    return None if v is None else str(v)


def _review_row(item: int, c: Candidate, d: Mapping[str, Any], stratum: str, size: int,
                reason: str, weight: float) -> ReviewRow:
    row = c.row
    response = d.get("response") if isinstance(d.get("response"), str) else ""
    _, final, closed = split_reasoning(response)
    final = final.strip() if closed else None
    if final is not None and len(final) > MAX_FINAL:
        final = "\u2026" + final[-MAX_FINAL:]  # the answer is at the end
    tail = response[-MAX_TAIL:] if response else None
    if tail is not None and len(response) > MAX_TAIL:
        tail = "\u2026" + tail
    judge = d.get("judge") if isinstance(d.get("judge"), Mapping) else {}
    raw = _text(judge, "raw")
    fr = d.get("float_round")
    return ReviewRow(
        item=item, model=row.model, id=row.id, run=row.run,
        answer_type=row.answer_type.value if row.answer_type else None,
        method=row.method, status=row.status.value, correct=row.correct, stratum=stratum,
        stratum_size=size, reason=reason, weight=weight, disagreement=c.disagreement,
        rule_method=c.side.method if c.side else None,
        rule_status=c.side.status if c.side else None,
        question=_text(d, "question"), answer=_text(d, "answer"),
        float_round=fr if is_int(fr) else None,
        extracted=_text(d, "extracted"), final=final, cut_off=not closed,
        response_tail=tail, response_chars=len(response), detail=_text(d, "detail"),
        judge_model=row.judge_model, judge_raw=raw and raw[:MAX_RAW], source=f"{row.path}:{row.line}")
