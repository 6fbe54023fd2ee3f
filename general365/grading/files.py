"""Grade a responses file into a graded file (`general365.grade_file`, `general365 grade`).
Every line is checked before any judge call is paid for (a first read), one version of the
file is graded (jsonl.Snapshot: a file rewritten meanwhile stops the grade), and the graded
rows go to a temporary renamed over the output at the end (fsutil.atomic_write)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..errors import OptionError, UserError
from ..fsutil import atomic_write, check_target
from ..jsonl import READ_BUFFER, FileChanged, Snapshot, iter_jsonl, line
from ..schema import Response, Status
from .summary import GradeSummary


@dataclass
class GradeResult:
    responses: str
    out: str
    count: int
    policy: str
    summary: GradeSummary
    notes: list[str] = field(default_factory=list)   # e.g. the file grew while graded

    @property
    def judge_failed(self) -> int:
        return self.summary.counts.get(Status.JUDGE_FAILED.value, 0)

    def render(self) -> str:
        return (f"graded {self.count} responses -> {self.out}  (policy {self.policy})\n"
                + self.summary.render())


def check_out_file(out: str) -> None:
    if os.path.isdir(out):
        raise OptionError("out", f"{out} is a folder; expected the path of the graded .jsonl "
                                 "file to write")
    check_target(out)   # a device or a FIFO: refused before the grade, not after it


def grade_file(responses: str, out: str, grader: Any, *, progress: bool = False) -> GradeResult:
    """Grade `responses` into `out` with a benchmark's `grader` (engine.Grader's `pairing`,
    `grade`, `policy` and `uses_judge`: False when grading costs nothing but time)."""
    check_out_file(out)
    if not os.path.isfile(responses):
        raise UserError(f"{responses}: no such file")
    if os.path.exists(out) and os.path.samefile(responses, out):
        # The graded rows would be renamed over the responses they were graded from.
        raise OptionError("out", f"{out} is the responses file itself; expected another path for the graded rows")

    snapshot = Snapshot()
    checking = not getattr(grader, "uses_judge", True)
    if checking:   # nothing to pay for: each line checked and graded from one read
        count = _count_rows(responses) if progress else None
        lines = iter_jsonl(responses, snapshot=snapshot)
    else:
        # read 1: every line checked before any judge call is paid for
        count = 0
        for n, d in iter_jsonl(responses, snapshot=snapshot):
            grader.pairing.pair(Response.from_dict(d, path=responses, line=n),
                                path=responses, line=n)
            count += 1
        if count == 0:
            raise UserError(f"{responses}: no responses in the file")
        # read 2: exactly those lines (or FileChanged at the first that differs)
        lines = iter_jsonl(responses, expect=snapshot)

    out_path = Path(out)
    created = _make_folders(out_path.parent)
    summary = GradeSummary()
    graded = 0
    done = False
    try:
        with atomic_write(str(out_path), what="the graded file") as writer:
            def stream() -> Iterator[Response]:
                for n, d in lines:
                    r = Response.from_dict(d, path=responses, line=n)
                    if checking:
                        grader.pairing.pair(r, path=responses, line=n)
                    yield r

            rows = _Sized(stream(), count) if count is not None else stream()
            for g in grader.grade(rows, path=responses, checked=True, progress=progress):
                writer.write(line(g.to_dict()))
                summary.add(g)
                graded += 1
            if graded == 0:
                raise UserError(f"{responses}: no responses in the file")
        done = True
    except FileChanged as exc:
        raise UserError(f"{exc}; nothing was written: rerun once nothing rewrites it") from None
    finally:
        if not done:
            _remove_empty(created)
    notes = []
    if snapshot.grew:
        notes.append(f"{responses} grew while it was graded; the {graded} responses it held "
                     "when grading began are graded (rerun to grade the rest)")
    return GradeResult(responses, str(out_path), graded, grader.policy, summary, notes)


def _count_rows(path: str) -> int:
    """The non-blank lines of `path` (the progress bar's total)."""
    with open(path, "rb", buffering=READ_BUFFER) as f:
        return sum(not raw.isspace() for raw in f)


def _make_folders(folder: Path) -> list[Path]:
    """mkdir -p `folder`; the folders it made, outermost first."""
    missing = []
    while not folder.exists() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    if missing:
        missing[0].mkdir(parents=True, exist_ok=True)
    return missing[::-1]


def _remove_empty(folders: list[Path]) -> None:
    """Take back the folders _make_folders made, deepest first, where still empty."""
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            return


class _Sized:
    """An iterator that knows its length (for the progress bar)."""

    def __init__(self, it, n: int):
        self._it, self._n = it, n

    def __iter__(self):
        return self._it

    def __len__(self) -> int:
        return self._n
