"""Any question/answer dataset (a file, a folder of them, or a Hub dataset) as a benchmark:
rows become `schema.Problem` records graded by the General365 grader, each row's answer type
from its column, else a fixed `answer_type`, else the gold itself (`infer_answer_type`).
So BBH or BBEH run through the same runners, grader and report (the paper's section 3.3.2).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Mapping, Sequence

from ..answers.gold import parse_gold
from ..data.readers import read_source
from ..errors import DataError, DataErrors, OptionError
from ..reporting.kinds import ReportKind, plain_tables
from ..schema import AnswerType, Problem
from .general365 import General365

# Asked after each question unless the dataset's questions carry their own instruction: the
# grader reads the last \boxed{} (or an explicit "the answer is").
DEFAULT_INSTRUCTION = ("Please reason step by step, and put your final answer within "
                       "\\boxed{}.")
PROMPT_VERSION = "qa-query-v1"
_LETTER = re.compile(r"^\(?([A-Ja-j])\)?$")


def infer_answer_type(answer: str) -> AnswerType:
    """An option letter (`B`, `(b)`) is a single choice; else an interval or a number where
    the gold reads as one (bracketed: an interval first); else text."""
    text = answer.strip()
    if _LETTER.match(text):
        return AnswerType.SINGLE_CHOICE
    bracketed = text[:1] in "[(" and text[-1:] in "])" or "\\cup" in text
    kinds = ((AnswerType.INTERVAL, AnswerType.NUMBER) if bracketed
             else (AnswerType.NUMBER, AnswerType.INTERVAL))
    for kind in kinds:
        try:
            parse_gold(text, kind, 0)
            return kind
        except (ValueError, RecursionError):
            continue
    return AnswerType.TEXT


class QABenchmark(General365):   # General365's messages and grader
    name = "qa"
    prompt_version = PROMPT_VERSION

    def __init__(self, *, question_field: str = "question", answer_field: str = "answer",
                 id_field: str | None = None, answer_type: str | None = None,
                 instruction: str | None = DEFAULT_INSTRUCTION, title: str = "Q&A benchmark"):
        if answer_type is not None and answer_type not in AnswerType.values():
            raise OptionError("answer_type", f"{answer_type!r}: expected one of "
                                             f"{', '.join(AnswerType.values())}")
        for option, value in (("question_field", question_field),
                              ("answer_field", answer_field)):
            if not isinstance(value, str) or not value:
                raise OptionError(option, f"must name a column (got {value!r})")
        self.question_field, self.answer_field = question_field, answer_field
        self.id_field, self.answer_type = id_field, answer_type
        self.instruction = instruction
        self.title = title
        self.report = ReportKind(name=self.name, title=title, tables=plain_tables)

    def load(self, source: str | None, *, split: str = "public",
             config: str = "all") -> list[Problem]:
        if source is None:
            raise OptionError("dataset", "is required for the qa benchmark: a JSON Lines, JSON "
                                         "or parquet file, a folder of them, or a Hub id")
        rows, _where, _notes = read_source(str(source), split=split)
        problems, errors = [], []
        seen: dict[str, int] = {}
        for raw in rows:
            try:
                p = self._problem(raw.data, raw.path, raw.line)
            except DataError as exc:
                errors.append(exc)
                continue
            if p.id in seen:
                errors.append(DataError("duplicated id", path=raw.path, line=raw.line,
                                        row_id=p.id, field=self.id_field or "id",
                                        expected=f"each id once (first on line {seen[p.id]})"))
                continue
            seen[p.id] = raw.line
            problems.append(p)
        if errors:
            raise DataErrors(errors)
        if not problems:
            raise DataError("no rows", path=str(source), expected="at least one question")
        return problems

    def _problem(self, row: Any, path: str, line: int) -> Problem:
        where = {"path": path, "line": line}
        if not isinstance(row, Mapping):
            raise DataError("not a JSON object", expected="one object per row", **where)
        for f in (self.question_field, self.answer_field):
            if f not in row or row[f] is None:
                raise DataError("missing field", field=f, expected=f"a {f!r} column in every "
                                "row (see --question-field / --answer-field)", **where)
        rid = row.get(self.id_field) if self.id_field else str(line)
        if isinstance(rid, int) and not isinstance(rid, bool):
            rid = str(rid)
        answer = row[self.answer_field]
        if isinstance(answer, (int, float)) and not isinstance(answer, bool):
            answer = str(answer)
        if not isinstance(answer, str) or not answer.strip():
            raise DataError("not a usable gold answer", field=self.answer_field, value=answer,
                            row_id=rid if isinstance(rid, str) else None,
                            expected="a non-empty string or number", **where)
        kind = row.get("answer_type") or self.answer_type or infer_answer_type(answer).value
        question = row[self.question_field]
        if isinstance(question, str) and self.instruction:
            question = f"{question.rstrip()}\n\n{self.instruction}"
        d = {"id": rid, "question": question, "answer": answer.strip(), "answer_type": kind,
             "float_round": row.get("float_round", 0), "source": path}
        return Problem.from_dict(d, path=path, line=line)

    def inline(self, item: Problem) -> Mapping[str, Any]:
        return {**super().inline(item), "benchmark": self.name}

    def fingerprint(self, items: Sequence[Problem]) -> str:
        h = hashlib.sha256()
        for p in items:
            h.update(json.dumps([p.id, p.question, p.answer, p.answer_type.value],
                                ensure_ascii=False).encode("utf-8") + b"\n")
        return h.hexdigest()[:16]
