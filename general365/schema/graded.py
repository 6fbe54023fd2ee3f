"""The graded row (`graded.jsonl`): one typed record that the grader writes and the report
and the audit read back."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..errors import DataError
from ..validators import is_int, is_number
from .enums import AnswerType, Method, Status
from .records import Problem, Response, Verdict, _int, _str, _where, parse_categories


# The fields a verdict writes into a graded row. Regrading a graded file replaces all of
# them: a field the new verdict does not set (a `detail`, a `judge` block) is dropped, not
# left over from the old grade.
GRADER_FIELDS = ("status", "correct", "method", "extracted", "judge", "detail", "parts",
                 "score")
_TEXT_FIELDS = ("response", "reasoning", "question")


def _field(part: str, name: str) -> Any:
    return property(lambda self: getattr(getattr(self, part), name))


_UNSET = object()


def _problem_field(name: str, default: Callable[[Any], Any]) -> Any:
    def get(self: Any) -> Any:
        if isinstance(self.problem, Problem):
            return getattr(self.problem, name)
        value = getattr(self, "_" + name, _UNSET)
        return default(self) if value is _UNSET else value
    return property(get)


@dataclass
class Graded:
    """A response, its verdict, and the problem it was graded against. Read back
    (`from_dict`, every field checked), `problem` is None: the problem's fields the report
    groups by come from the row itself, where the grader wrote them."""

    response: Response
    verdict: Verdict
    # General365's Problem, or another benchmark's problem record: anything with an `id`
    # and `graded_fields()` (the fields the row carries; see Problem.graded_fields).
    problem: Problem | Any | None = None
    path: str = field(default="", compare=False)   # where the row was read, for messages
    line: int = field(default=0, compare=False)

    @classmethod
    def from_dict(cls, d: Any, *, path: str | None = None, line: int | None = None,
                  with_text: bool = True) -> "Graded":
        """A graded row, checked. `with_text=False` drops the response, reasoning and
        question text (a report of 100,000 long answers needs none of it)."""
        where = _where(d, path, line, "one JSON object per line")
        for key in ("id", "run", "status", "correct"):
            if key not in d or d[key] is None:
                rid = d.get("id")
                raise DataError("missing field", field=key, row_id=rid if isinstance(rid, str)
                                else None, expected="a graded row (run `general365 grade` first)",
                                **where)
        rest = {k: v for k, v in d.items() if k not in GRADER_FIELDS}
        if not with_text:
            rest = {k: v for k, v in rest.items() if k not in _TEXT_FIELDS}
        rest.setdefault("response", "")
        response = Response.from_dict(rest, path=path, line=line)
        where["row_id"] = response.id
        verdict = _verdict_of(d, response, where)
        graded = cls(response, verdict, path=path or "", line=line or 0)
        graded._check_problem_fields(where)
        return graded

    def _check_problem_fields(self, where: dict) -> None:
        # Parsed once here so that a bad value is refused with its line, and the report's
        # group-bys read typed values.
        inline = self.response.inline
        at = inline.get("answer_type")
        self._answer_type = None if at is None else AnswerType.parse(at, field="answer_type",
                                                                     **where)
        self._categories = parse_categories(inline.get("categories"), **where)
        variant = _int(inline.get("variant", 0), "variant", where, minimum=0)
        seed_id = inline.get("seed_id")
        if seed_id is None:
            if variant > 0:
                raise DataError("missing field", field="seed_id",
                                expected="the id of its seed problem for a variant", **where)
            seed_id = self.response.id
        self._variant = variant
        self._seed_id = _str(str(seed_id) if is_int(seed_id) else seed_id, "seed_id", where,
                             allow_empty=False)

    # What the report reads: the response's and the verdict's fields, and the problem's
    # (the Problem's where the row has one, else what from_dict read from the row).
    id = _field("response", "id")
    run = _field("response", "run")
    model = _field("response", "model")
    output_tokens = _field("response", "output_tokens")
    reasoning_tokens = _field("response", "reasoning_tokens")
    finish_reason = _field("response", "finish_reason")
    status = _field("verdict", "status")
    correct = _field("verdict", "correct")
    method = _field("verdict", "method")
    answer_type = _problem_field("answer_type", lambda g: None)
    categories = _problem_field("categories", lambda g: ())
    seed_id = _problem_field("seed_id", lambda g: g.response.id)
    variant = _problem_field("variant", lambda g: 0)

    @property
    def graded(self) -> bool:
        """Ungraded rows have no verdict: they are left out of accuracy (shown as coverage)."""
        return self.verdict.status is not Status.UNGRADED

    @property
    def benchmark(self) -> str | None:
        """The benchmark a row was graded for; None for General365's own rows."""
        name = self.response.extra.get("benchmark")
        return name if isinstance(name, str) else None

    @property
    def is_seed(self) -> bool:
        return self.variant == 0

    @property
    def preset(self) -> str | None:
        p = (self.response.sampling or {}).get("preset")
        return p if isinstance(p, str) else None

    @property
    def settings_key(self) -> str | None:
        """The row's sampling settings as sorted JSON, the seed left out (each run has its
        own seed; the settings shared by the runs are what provenance shows)."""
        s = self.response.sampling
        if not s:
            return None
        return json.dumps({k: v for k, v in s.items() if k != "seed"}, sort_keys=True,
                          default=str)

    @property
    def judge_model(self) -> str | None:
        j = self.verdict.judge
        m = j.get("model") if isinstance(j, Mapping) else None
        return m if isinstance(m, str) else None

    def to_dict(self) -> dict[str, Any]:
        """The `graded.jsonl` row: the response's fields, the problem's metadata, the
        verdict (every grader-owned field replaced, see GRADER_FIELDS)."""
        d = self.response.to_dict()
        for key in GRADER_FIELDS:
            d.pop(key, None)
        if self.problem is not None:
            for key, value in self.problem.graded_fields().items():
                d.setdefault(key, value)
        d.update(self.verdict.to_dict())
        return d


def _verdict_of(d: Mapping[str, Any], response: Response, where: dict) -> Verdict:
    status = Status.parse(d["status"], field="status", **where)
    correct = d["correct"]
    if not isinstance(correct, bool):
        raise DataError("wrong type", field="correct", value=correct, expected="true or false",
                        **where)
    if correct != (status is Status.CORRECT):
        raise DataError("contradicts status", field="correct", value=correct,
                        expected=f"{str(status is Status.CORRECT).lower()} for status "
                                 f"{status.value!r}", **where)
    method = d.get("method")
    method = None if method is None else Method.parse(method, field="method", **where)
    extracted, detail = (None if d.get(k) is None else _str(d[k], k, where)
                         for k in ("extracted", "detail"))
    judge = d.get("judge")
    if judge is not None and not isinstance(judge, Mapping):
        raise DataError("wrong type", field="judge", value=judge, expected="an object", **where)
    parts = d.get("parts")
    if parts is not None and not (isinstance(parts, list)
                                  and all(isinstance(x, Mapping) for x in parts)):
        raise DataError("wrong type", field="parts", value=parts,
                        expected="a list of objects", **where)
    score = d.get("score")
    if score is not None and (not is_number(score) or not 0 <= score <= 1):
        raise DataError("out of range", field="score", value=score,
                        expected="a number from 0 to 1", **where)
    return Verdict(response.id, response.run, status, method, extracted,
                   dict(judge) if judge is not None else None, detail,
                   [dict(x) for x in parts] if parts is not None else None,
                   None if score is None else float(score))
