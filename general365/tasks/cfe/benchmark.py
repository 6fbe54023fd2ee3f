"""CFE-Bench behind the Benchmark protocol (the seam draft: load, messages, inline,
from_inline, grade, report_tables), so that generate / grade / report run it by name.

- `load(source, split, config)`: `source` a release folder, a file, a Hub id, or None for
  $CFE_BENCH_DATA; `config` the subset: all (default), text or mm; `split` is ignored (the
  release has one).
- A response row carries `benchmark: "cfe"` and the problem's gold inline (`variables`:
  name, type, description, value; `question`, `modality`, `subject`, `tolerance`), so a
  responses file, and a graded one, is graded again with no dataset at hand.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping, Sequence

from ...errors import DataError
from ...schema import Response
from . import NAME
from .data import CFEProblem, Variable, VariableType, load
from .grade import DEFAULT_TIMEOUT, CFEGraded, grade_iter
from .prompts import PROMPT_VERSION, build_messages
from .quantity import DEFAULT_TOLERANCE

INLINE_FIELDS = ("question", "modality", "subject", "tolerance", "variables")


def inline(problem: CFEProblem) -> dict[str, Any]:
    d: dict[str, Any] = {"benchmark": NAME, "question": problem.question,
                         "modality": problem.modality,
                         "variables": [v.to_dict() for v in problem.variables]}
    if problem.subject is not None:
        d["subject"] = problem.subject
    if problem.tolerance is not None:
        d["tolerance"] = problem.tolerance
    return d


def _field(response: Any, key: str) -> Any:
    if isinstance(response, Mapping):
        return response.get(key)
    for store in (getattr(response, "inline", {}), getattr(response, "extra", {})):
        if key in store:
            return store[key]
    return None


def from_inline(response: Any, *, path: str | None = None,
                line: int | None = None) -> CFEProblem | None:
    """The problem a response row carries, or None when it carries no variables."""
    rid = response.get("id") if isinstance(response, Mapping) else getattr(response, "id", None)
    raw = _field(response, "variables")
    if raw is None:
        return None
    where = {"path": path, "line": line, "row_id": rid}
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
        try:
            vt = VariableType(v.get("type"))
        except ValueError:
            raise DataError("unknown variable type", field=f"variables[{i}].type",
                            value=v.get("type"), expected="numeric, formula or other",
                            **where) from None
        tol = v.get("tolerance")
        if tol is not None and (isinstance(tol, bool) or not isinstance(tol, (int, float))
                                or not 0 <= tol <= 0.5):
            raise DataError("bad tolerance", field=f"variables[{i}].tolerance", value=tol,
                            expected="a relative tolerance from 0 to 0.5", **where)
        desc = v.get("description") or ""
        variables.append(Variable(name, vt, desc if isinstance(desc, str) else str(desc),
                                  value, None if tol is None else float(tol)))
    question = _field(response, "question")
    modality = _field(response, "modality") or "text"
    tolerance = _field(response, "tolerance")
    if tolerance is not None and (isinstance(tolerance, bool)
                                  or not isinstance(tolerance, (int, float))
                                  or not 0 <= tolerance <= 0.5):
        raise DataError("bad tolerance", field="tolerance", value=tolerance,
                        expected="a relative tolerance from 0 to 0.5", **where)
    subject = _field(response, "subject")
    return CFEProblem(id=str(rid), question=question if isinstance(question, str) and question
                      else "(not given)", variables=tuple(variables),
                      modality=modality if modality in ("text", "mm") else "text",
                      subject=subject if isinstance(subject, str) else None,
                      tolerance=None if tolerance is None else float(tolerance),
                      source=f"{path}:{line}" if path else "")


class CFEBench:
    """The Benchmark protocol object for CFE-Bench (name "cfe")."""

    name = NAME
    title = "CFE-Bench (Classroom Final Exam)"
    prompt_version = PROMPT_VERSION

    def __init__(self, *, tolerance: float = DEFAULT_TOLERANCE):
        self.tolerance = tolerance

    def load(self, source: str | None, *, split: str = "test", config: str = "all"
             ) -> Sequence[CFEProblem]:
        return load(source, subset=config or "all").problems

    def messages(self, item: CFEProblem, *, system_prompt: str | None = None
                 ) -> tuple[dict[str, Any], ...]:
        return build_messages(item, system_prompt)

    def inline(self, item: CFEProblem) -> dict[str, Any]:
        return inline(item)

    def from_inline(self, response: Any, *, path: str | None = None,
                    line: int | None = None) -> CFEProblem | None:
        return from_inline(response, path=path, line=line)

    def grade(self, pairs: Iterable[tuple[Any, CFEProblem]], *, policy: str | None,
              judge: Any, workers: int | None, timeout: float = DEFAULT_TIMEOUT,
              progress: bool = False) -> Iterator[CFEGraded]:
        def responses() -> Iterator[tuple[Response, CFEProblem]]:
            for n, (r, p) in enumerate(pairs, start=1):
                yield (r if isinstance(r, Response) else Response.from_dict(r, line=n)), p

        return grade_iter(responses(), policy=policy, judge=judge, workers=workers,
                          timeout=timeout, tolerance=self.tolerance, progress=progress)

    def report_tables(self, models: Sequence[Any]) -> list[Any]:
        from .report import report_tables

        return report_tables(models)


__all__ = ["CFEBench", "from_inline", "inline"]
