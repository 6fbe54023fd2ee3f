"""CFE-Bench behind the Benchmark seam (`--benchmark cfe`). A response row carries its
problem's gold inline (docs/cfe-bench.md, "Rows"), so a responses file grades again with no
dataset at hand; `CFEGrader` yields schema.Graded rows whose `parts` are per variable.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Iterable, Iterator, Mapping, Sequence

from ...errors import DataError, OptionError
from ...grading.engine import Grader, Pairing
from ...schema import Graded, Response, index_problems
from ...validators import is_number
from . import NAME
from .data import DATA_ENV, MAX_TOLERANCE, SUBSETS, CFEProblem, Variable, VariableType, load
from .grade import DEFAULT_TIMEOUT, CFERows, check_tolerance
from .prompts import PROMPT_VERSION, build_messages
from .quantity import DEFAULT_TOLERANCE
from .report import CFE_REPORT


def _field(response: Response, key: str) -> Any:
    return response.inline.get(key, response.extra.get(key))


def _tolerance(value: Any, field: str, where: dict[str, Any]) -> float | None:
    if value is not None and not (is_number(value) and 0 <= value <= MAX_TOLERANCE):
        raise DataError("bad tolerance", field=field, value=value,
                        expected=f"a relative tolerance from 0 to {MAX_TOLERANCE}", **where)
    return None if value is None else float(value)


def from_inline(response: Response, *, path: str | None = None,
                line: int | None = None) -> CFEProblem | None:
    """The problem a response row carries, or None when it carries no variables."""
    raw = _field(response, "variables")
    if raw is None:
        return None
    where = {"path": path, "line": line, "row_id": response.id}
    if not isinstance(raw, list) or not raw:
        raise DataError("wrong type", field="variables", value=raw,
                        expected="a non-empty list of {name, type, description, value}", **where)
    variables = []
    for i, v in enumerate(raw):
        if not isinstance(v, Mapping):
            raise DataError("wrong type", field=f"variables[{i}]", value=v,
                            expected="an object {name, type, description, value}", **where)
        name, value = v.get("name"), v.get("value")
        for key, got in (("name", name), ("value", value)):
            if not isinstance(got, str) or not got.strip():
                raise DataError("missing or empty", field=f"variables[{i}].{key}", value=got,
                                expected="a non-empty string", **where)
        if name in [x.name for x in variables]:
            raise DataError("a variable name appears twice", field=f"variables[{i}].name",
                            value=name, expected="distinct variable names", **where)
        try:
            vt = VariableType(v.get("type"))
        except ValueError:
            raise DataError("unknown variable type", field=f"variables[{i}].type",
                            value=v.get("type"), expected="numeric, formula or other",
                            **where) from None
        tol = _tolerance(v.get("tolerance"), f"variables[{i}].tolerance", where)
        variables.append(Variable(name, vt, str(v.get("description") or ""), value, tol))
    question, subject = _field(response, "question"), _field(response, "subject")
    modality = _field(response, "modality") or "text"
    if modality not in ("text", "mm"):
        raise DataError("unknown modality", field="modality", value=modality,
                        expected="text or mm", **where)
    return CFEProblem(id=response.id, question=question if isinstance(question, str) and question
                      else "(not given)", variables=tuple(variables), modality=modality,
                      subject=subject if isinstance(subject, str) else None,
                      tolerance=_tolerance(_field(response, "tolerance"), "tolerance", where),
                      source=f"{path}:{line}" if path else "")


def inline_agrees(resp: Response, prob: CFEProblem, *, path: str | None = None,
                  line: int | None = None) -> None:
    """A response graded against a dataset carries the dataset's variables or none: else it
    would show one gold and be graded on another."""
    carried = _field(resp, "variables")
    if carried is None:
        return
    theirs = [(v.name, v.type.value, v.value) for v in prob.variables]
    mine = [(v.get("name"), v.get("type"), v.get("value")) if isinstance(v, Mapping) else v
            for v in carried] if isinstance(carried, list) else carried
    if mine != theirs:
        raise DataError("the response's variables are not the dataset's", path=path,
                        line=line, row_id=resp.id, field="variables",
                        value=[f"{m[0]} = {m[2]}" if isinstance(m, tuple) else m
                               for m in (mine if isinstance(mine, list) else [mine])],
                        expected="; ".join(f"{n} = {v}" for n, _, v in theirs)
                        + " (the same gold as the dataset, or none inline)")


class CFEGrader(Grader):
    """CFE-Bench's grader for one policy and judge: schema.Graded rows."""

    def __init__(self, problems: Sequence[CFEProblem] | None = None, *,
                 policy: str | None = None, judge: Any = None, workers: int | None = None,
                 timeout: float = DEFAULT_TIMEOUT, tolerance: float = DEFAULT_TOLERANCE,
                 dataset: str | None = None):
        super().__init__(CFERows(tolerance),
                         Pairing(index_problems(problems) if problems is not None else None,
                                 from_inline=from_inline, agrees=inline_agrees,
                                 prepare=lambda p: None, dataset=dataset),
                         policy=policy, judge=judge, workers=workers, timeout=timeout)

    def grade(self, responses: Iterable, **options) -> Iterator[Graded]:
        return (g.to_graded() for g in super().grade(responses, **options))


def _image_digest(path: str) -> str:
    try:
        with open(path, "rb") as f:   # a figure is read whole for its prompt too
            return hashlib.sha256(f.read()).hexdigest()[:16]
    except OSError:
        return "unreadable"


class CFEBench:
    name = NAME
    title = "CFE-Bench"
    prompt_version = PROMPT_VERSION
    report = CFE_REPORT
    default_timeout = DEFAULT_TIMEOUT

    def __init__(self, *, tolerance: float | None = None):
        self.tolerance = DEFAULT_TOLERANCE if tolerance is None else \
            float(check_tolerance(tolerance))

    @property
    def default_source(self) -> str | None:
        """What a run with no dataset named reads (run.json records it)."""
        folder = os.environ.get(DATA_ENV)
        return f"${DATA_ENV} ({folder})" if folder else None

    def load(self, source: str | None, *, split: str = "test",
             config: str = "all") -> list[CFEProblem]:
        if config not in SUBSETS:
            raise OptionError("config", f"{config!r}: CFE-Bench's subsets are "
                                        f"{', '.join(SUBSETS)}")
        return load(source, subset=config).problems

    def messages(self, item: CFEProblem, *, system_prompt: str | None = None
                 ) -> tuple[dict[str, Any], ...]:
        return build_messages(item, system_prompt)

    def inline(self, item: CFEProblem) -> Mapping[str, Any]:
        return item.inline_fields()

    def fingerprint(self, items: Sequence[CFEProblem]) -> str:
        """What a run asks and is graded against: ids, questions, variables, figures (by
        content, so a figure replaced under the same name changes it)."""
        h = hashlib.sha256()
        for p in items:
            h.update(json.dumps([p.id, p.question, [v.to_dict() for v in p.variables],
                                 p.modality, [_image_digest(i) for i in p.images]],
                                ensure_ascii=False).encode("utf-8") + b"\n")
        return h.hexdigest()[:16]

    def grader(self, problems: Sequence[CFEProblem] | None, *, policy: str | None = None,
               judge: Any = None, workers: int | None = None,
               timeout: float = DEFAULT_TIMEOUT, dataset: str | None = None) -> CFEGrader:
        return CFEGrader(problems, policy=policy, judge=judge, workers=workers,
                         timeout=timeout, tolerance=self.tolerance, dataset=dataset)
