"""Each response paired with the problem it is graded against, with every check made
before grading (one response per (id, run), a problem for each, an inline gold that agrees
with the dataset's, a gold that parses): the Python API and `general365 grade` share it."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..errors import DataError
from ..schema import Problem, Response

class Pairing:
    """`from_inline(response, path=, line=)`: its inline problem or None; `agrees(response,
    problem, path=, line=)` and `prepare(problem)`: raise DataError when a check fails."""

    def __init__(self, lookup: Mapping[str, Any] | None, *, from_inline: Callable[..., Any],
                 agrees: Callable[..., None], prepare: Callable[[Any], None],
                 dataset: str | None = None):
        self.lookup = lookup
        self.from_inline = from_inline
        self.agrees = agrees
        self.prepare = prepare
        self.dataset = dataset
        self._seen: dict[tuple[str, int], int] = {}
        self._n = 0   # position of the response, where no line number is given

    def pair(self, resp: Response, *, path: str | None = None, line: int | None = None,
             check: bool = True) -> Any:
        """The problem `resp` is graded against. `check=False`: a first pass over the same
        rows already made the checks."""
        if check:
            self._n += 1
            at = line if line is not None else self._n
            first = self._seen.setdefault((resp.id, resp.run), at)
            if first != at:
                where = f"line {first}" if line is not None else f"response #{first}"
                raise DataError(f"a second response for this id and run (the first is {where})",
                                path=path, line=line, row_id=resp.id, field="run",
                                value=resp.run,
                                expected="one response per (id, run); number repeats 0, 1, ...")
        if self.lookup is not None:
            prob = self.lookup.get(resp.id)
            if prob is None:
                named = f" {self.dataset!r}" if self.dataset else ""
                raise DataError("no problem with this id in the dataset", path=path, line=line,
                                row_id=resp.id, field="id",
                                expected=f"an id of dataset{named}")
            if check:
                self.agrees(resp, prob, path=path, line=line)
        else:
            prob = self.from_inline(resp, path=path, line=line)
            if prob is None:
                raise DataError("no gold answer in the response and no dataset given",
                                path=path, line=line, row_id=resp.id, field="answer",
                                expected="the problem's gold carried inline, or a dataset "
                                         "(--dataset / problems=)")
        if check:
            try:
                self.prepare(prob)
            except DataError as exc:
                raise DataError(exc.detail, path=path, line=line, row_id=resp.id,
                                field=exc.field or "answer", value=exc.value,
                                expected=exc.expected) from None
        return prob


def inline_agrees(resp: Response, prob: Problem, *, path: str | None = None,
                  line: int | None = None) -> None:
    """A response graded against a dataset carries the dataset's gold, if any inline."""
    theirs = prob.to_dict()
    for key in ("answer", "answer_type", "float_round"):
        if key in resp.inline and str(resp.inline[key]).strip() != str(theirs[key]).strip():
            raise DataError(f"the response carries {key} {resp.inline[key]!r}, the dataset "
                            f"has {theirs[key]!r}", path=path, line=line, row_id=resp.id,
                            field=key, expected="the same gold as the dataset, or no inline gold")
