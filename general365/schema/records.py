"""The records that cross module boundaries: Problem (a dataset row), Response (a model's
output, `responses.jsonl`) and Verdict (its grade), and the field checks they share.

Each record has `from_dict` (validating, naming the row's id and the field on error) and
`to_dict` (the JSON Lines form of docs/architecture.md). Each field check refuses a bad
value with one DataError naming the file, line, row id and field, and what was expected:
plain Python, so that checking 100,000 rows stays cheap."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ..errors import DataError
from .enums import AnswerType, Category, Method, Status
from ..validators import is_int, is_number


def _where(d: Any, path: str | None, line: int | None, expected: str = "an object") -> dict:
    """Where a row was read, for every message about it; a row that is not an object refused."""
    where: dict[str, Any] = {"path": path, "line": line}
    if not isinstance(d, Mapping):
        raise DataError("not a JSON object", value=d, expected=expected, **where)
    return where


def _req(d: Mapping[str, Any], key: str, where: dict) -> Any:
    if key not in d or d[key] is None:
        raise DataError("missing field", field=key, **where)
    return d[key]


def _str(value: Any, key: str, where: dict, *, allow_empty: bool = True) -> str:
    if not isinstance(value, str):
        raise DataError("wrong type", field=key, value=value, expected="a string", **where)
    if not allow_empty and not value.strip():
        raise DataError("empty", field=key, expected="a non-empty string", **where)
    return value


# The largest count or index a record may carry. No real run comes near it, and past it
# the report's float arithmetic (means, rates) loses exactness; 10**400 output tokens
# would even overflow a float and crash it.
MAX_INT = 2**53 - 1


def _int(value: Any, key: str, where: dict, *, minimum: int | None = None) -> int:
    if not is_int(value):   # a JSON `true` here is a data error, not 1
        raise DataError("wrong type", field=key, value=value, expected="an integer", **where)
    if minimum is not None and value < minimum:
        raise DataError("out of range", field=key, value=value,
                        expected=f"an integer >= {minimum}", **where)
    if value > MAX_INT:
        raise DataError("out of range", field=key, value=value,
                        expected=f"an integer <= {MAX_INT} (2**53 - 1)", **where)
    return value


def row_id(d: Mapping[str, Any], where: dict) -> str:
    """A row's `id`, checked alike by every reader: a non-empty string (an integer id, as
    some datasets have, is read as its digits). Sets where["row_id"] for later messages."""
    rid = _req(d, "id", where)
    where["row_id"] = _str(str(rid) if is_int(rid) else rid, "id", where, allow_empty=False)
    return where["row_id"]


def row_id_and_run(d: Mapping[str, Any], where: dict) -> tuple[str, int]:
    """The `id` and `run` that name a row (a response, a graded row, a label pointing at
    one); a run is an integer from 0 to MAX_INT (absent: 0)."""
    return row_id(d, where), _int(d.get("run", 0), "run", where, minimum=0)


def as_int(value: Any, digits: int = 18) -> Any:
    """Digits (at most `digits` of them) or an integral float as an int; anything else as
    it is, for a field check to refuse. isdigit() alone also takes "²" (which int() refuses)
    and any length (int() refuses 4,301 digits)."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() \
            and len(value.strip()) <= digits:
        return int(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def parse_float_round(value: Any, **where: Any) -> int:
    """`float_round` arrives as a string in the official data ("0", "2"); cast it strictly."""
    if value is None or value == "":
        return 0
    n = as_int(value, digits=9)
    if not is_int(n):
        raise DataError("bad float_round", field="float_round", value=value,
                        expected="a non-negative integer", **where)
    if n < 0 or n > 30:
        raise DataError("bad float_round", field="float_round", value=value,
                        expected="an integer from 0 to 30", **where)
    return n


def parse_categories(value: Any, **where: Any) -> tuple[Category, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        # A single category or a comma/semicolon separated list is accepted from sources.
        value = [v for v in (p.strip() for p in value.replace(";", ",").split(",")) if v]
        # "Branching & Enumeration" contains no comma, so the split is safe.
    if not isinstance(value, (list, tuple)):
        raise DataError("wrong type", field="categories", value=value,
                        expected="a list of category names", **where)
    out = []
    for v in value:
        c = Category.parse(v, field="categories", **where)
        if c not in out:
            out.append(c)
    return tuple(out)


@dataclass(frozen=True)
class Problem:
    """One General365 problem (a dataset row)."""

    id: str
    question: str
    answer: str
    answer_type: AnswerType
    float_round: int = 0
    seed_id: str = ""
    variant: int = 0
    categories: tuple[Category, ...] = ()
    reasoning: str = ""
    source: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if not self.seed_id:
            object.__setattr__(self, "seed_id", self.id)

    @property
    def is_seed(self) -> bool:
        return self.variant == 0

    FIELDS = ("id", "seed_id", "variant", "question", "answer", "answer_type",
              "float_round", "categories", "reasoning", "source")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, path: str | None = None,
                  line: int | None = None) -> "Problem":
        where = _where(d, path, line)
        pid = row_id(d, where)
        question = _str(_req(d, "question", where), "question", where, allow_empty=False)
        answer = _req(d, "answer", where)
        answer = _str(str(answer) if is_number(answer) else answer, "answer", where,
                      allow_empty=False)
        answer_type = AnswerType.parse(_req(d, "answer_type", where),
                                       field="answer_type", **where)
        float_round = parse_float_round(d.get("float_round"), **where)
        seed_id = d.get("seed_id") or pid
        seed_id = _str(str(seed_id) if isinstance(seed_id, int) else seed_id, "seed_id", where)
        variant = _int(d.get("variant", 0), "variant", where, minimum=0)
        if variant == 0 and seed_id != pid:
            raise DataError("a seed (variant 0) must have seed_id equal to its id",
                            field="seed_id", value=seed_id, expected=repr(pid), **where)
        if variant > 0 and seed_id == pid:
            raise DataError("a variant must name its seed, not itself", field="seed_id",
                            value=seed_id, expected="the id of its seed problem", **where)
        categories = parse_categories(d.get("categories"), **where)
        reasoning = _str(d.get("reasoning") or "", "reasoning", where)
        source = _str(d.get("source") or "", "source", where)
        extra = {k: v for k, v in d.items() if k not in cls.FIELDS}
        return cls(id=pid, question=question, answer=answer, answer_type=answer_type,
                   float_round=float_round, seed_id=seed_id, variant=variant,
                   categories=categories, reasoning=reasoning, source=source, extra=extra)

    def to_dict(self, *, with_extra: bool = False) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.FIELDS}
        d["answer_type"] = self.answer_type.value
        d["categories"] = [c.value for c in self.categories]
        if with_extra:
            for k, v in self.extra.items():
                d.setdefault(k, v)
        return d

    def graded_fields(self) -> dict[str, Any]:
        """The problem's fields a graded row carries (schema.Graded.to_dict), so that the
        report groups it with no dataset at hand. Another benchmark's problem record has
        its own (CFE-Bench's: its variables, modality, subject)."""
        d = self.to_dict()
        return {k: d[k] for k in ("answer", "answer_type", "float_round", "categories",
                                  "seed_id", "variant")}


# Problem fields a response may carry inline so that it can be graded (and reported, seed
# families included) without a dataset.
INLINE_PROBLEM_FIELDS = ("question", "answer", "answer_type", "float_round", "categories",
                         "seed_id", "variant")


@dataclass
class Response:
    """One model output for one problem and one repeat (`responses.jsonl`)."""

    id: str
    run: int
    response: str
    model: str | None = None
    reasoning: str | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    finish_reason: str | None = None
    sampling: dict[str, Any] | None = None
    inline: dict[str, Any] = field(default_factory=dict)  # problem fields carried inline
    extra: dict[str, Any] = field(default_factory=dict)   # anything else, kept verbatim

    KNOWN = ("id", "run", "response", "model", "reasoning", "output_tokens",
             "reasoning_tokens", "finish_reason", "sampling")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, path: str | None = None,
                  line: int | None = None) -> "Response":
        where = _where(d, path, line)
        rid, run = row_id_and_run(d, where)
        text = _str(_req(d, "response", where), "response", where)
        opt_str = {k: None if d.get(k) is None else _str(d[k], k, where)
                   for k in ("model", "reasoning", "finish_reason")}
        opt_int = {k: None if d.get(k) is None else _int(d[k], k, where, minimum=0)
                   for k in ("output_tokens", "reasoning_tokens")}
        sampling = d.get("sampling")
        if sampling is not None and not isinstance(sampling, Mapping):
            raise DataError("wrong type", field="sampling", value=sampling,
                            expected="an object", **where)
        inline = {k: d[k] for k in INLINE_PROBLEM_FIELDS if k in d}
        extra = {k: v for k, v in d.items() if k not in cls.KNOWN and k not in inline}
        return cls(id=rid, run=run, response=text, sampling=dict(sampling) if sampling else None,
                   inline=inline, extra=extra, **opt_str, **opt_int)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "run": self.run, "response": self.response}
        for key in self.KNOWN[3:]:
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        d.update(self.inline)
        for k, v in self.extra.items():
            d.setdefault(k, v)
        return d

    def inline_problem(self, *, path: str | None = None,
                       line: int | None = None) -> Problem | None:
        """The problem carried inline, or None when the response carries no gold."""
        has = [k for k in ("answer", "answer_type") if k in self.inline]
        if not has:
            return None
        if len(has) == 1:
            missing = "answer_type" if has == ["answer"] else "answer"
            raise DataError("an inline gold needs both answer and answer_type", path=path,
                            line=line, row_id=self.id, field=missing,
                            expected=f"{missing!r} beside {has[0]!r}")
        d = {"id": self.id, "question": self.inline.get("question") or "(not given)"}
        d.update({k: v for k, v in self.inline.items() if k != "question"})
        return Problem.from_dict(d, path=path, line=line)


@dataclass
class Verdict:
    """The grade of one response (a `graded.jsonl` row adds these to the response)."""

    id: str
    run: int
    status: Status
    method: Method | None = None
    extracted: str | None = None
    judge: dict[str, Any] | None = None   # {model, raw, votes} for judged rows
    detail: str | None = None             # why, for no_answer/timeout/judge_failed
    # A benchmark that grades several answers per problem (CFE-Bench's variables) records
    # each part's verdict and the share right; General365 leaves both unset.
    parts: list[dict[str, Any]] | None = None
    score: float | None = None

    @property
    def correct(self) -> bool:
        return self.status is Status.CORRECT

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "status": self.status.value,
            "correct": self.correct,
            "method": self.method.value if self.method else None,
            "extracted": self.extracted,
        }
        if self.judge is not None:
            d["judge"] = self.judge
        if self.detail:
            d["detail"] = self.detail
        for key in ("parts", "score"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        return d


def index_problems(problems: Iterable[Problem]) -> dict[str, Problem]:
    """Problems by id; a duplicated id is a data error."""
    out: dict[str, Problem] = {}
    for p in problems:
        if p.id in out:
            raise DataError("duplicated id", row_id=p.id, field="id",
                            expected="each id once")
        out[p.id] = p
    return out
