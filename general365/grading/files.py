"""Grade a responses file into a graded file: the file-to-file form of grading
(`general365.grade_file`, and `general365 grade` on the command line).

The responses file is read twice, line by line and never whole. The first pass checks every
line (strict JSON, fields, one response per (id, run), a problem for each id, each gold
parses), so a bad line stops the grade before any judge call is paid for. The second pass
rereads exactly the lines the first pass checked (each line's CRC is kept; see
jsonl.iter_same_lines), grades them in chunks and writes the graded rows as they come, to a
temporary file locked by this process, fsynced and renamed over the output at the end.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..errors import OptionError, UserError
from ..fsutil import hold_lock, release, sweep
from ..jsonl import (FileChanged, Fingerprint, dumps, iter_jsonl, iter_same_lines,
                     parse_verbatim)
from ..schema import Response, Status
from .summary import GradeSummary


@dataclass
class GradeResult:
    """What one grade of a file did."""

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


def grade_file(responses: str, out: str, grader: Any, *, progress: bool = False) -> GradeResult:
    """Grade `responses` into `out` with `grader` (a benchmark's grader: `pairing` for the
    checks, `grade(stream, path=, checked=, progress=)` for the verdicts, `policy`)."""
    check_out_file(out)
    if not os.path.isfile(responses):
        raise UserError(f"{responses}: no such file")

    # Pass 1: every line checked before anything is graded or written.
    fingerprint = Fingerprint()
    count = 0
    for n, d in iter_jsonl(responses, fingerprint=fingerprint):
        grader.pairing.pair(Response.from_dict(d, path=responses, line=n), path=responses,
                            line=n)
        count += 1
    if count == 0:
        raise UserError(f"{responses}: no responses in the file")

    out_path = Path(out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    # What a killed grade of this output left (its process gone): removed before writing.
    sweep(str(out_path.parent), _tmp_pattern(out_path.name))
    tmp = out_path.with_name(f".{out_path.name}.{os.getpid()}.tmp")
    summary = GradeSummary()
    writer = None
    try:
        writer = _TmpWriter(tmp, out_path)
        # The JSON text of each long string (the response, the reasoning) as the line held
        # it, for the rows in flight: the graded row writes it back without encoding it
        # again (jsonl.dumps; the same bytes json.dumps would write).
        verbatim: dict[tuple[str, int], Mapping[str, tuple[str, str]]] = {}

        def stream() -> Iterator[Response]:
            for n, (d, strings) in iter_same_lines(responses, fingerprint, parse_verbatim):
                r = Response.from_dict(d, path=responses, line=n)
                if strings:
                    verbatim[(r.id, r.run)] = strings   # (id, run) is unique: pass 1
                yield r

        for g in grader.grade(_Sized(stream(), count), path=responses, checked=True,
                              progress=progress):
            strings = verbatim.pop((g.response.id, g.response.run), None)
            writer.write(dumps(g.to_dict(), strings) + "\n")
            summary.add(g)
        writer.finish()
        os.replace(tmp, out_path)
    except FileChanged as exc:
        raise UserError(f"{exc}; nothing was written: rerun once nothing rewrites it") from None
    finally:
        if writer is not None:
            writer.close()
        if tmp.exists():
            tmp.unlink()
    notes = []
    if fingerprint.grew:
        notes.append(f"{responses} grew while it was graded; the {count} responses it held "
                     "when grading began are graded (rerun to grade the rest)")
    return GradeResult(responses, str(out_path), count, grader.policy, summary, notes)


def _tmp_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(name)}\.(?P<pid>\d+)\.tmp")


class _TmpWriter:
    """The temporary graded file, locked while this process writes it (so no other grade
    takes it for a killed run's leftover). A failed write (a full disk, a quota) names the
    file it was for: the OS error of a write carries no path."""

    def __init__(self, tmp: Path, out: Path):
        self.out = out
        try:
            self.f = open(tmp, "wb")
        except OSError as exc:
            raise self._error(exc) from None
        self.lock = hold_lock(str(tmp))

    def _error(self, exc: OSError) -> UserError:
        return UserError(f"{self.out}: cannot write the graded file ({exc.strerror or exc}); "
                         "nothing was written")

    def write(self, text: str) -> None:
        try:
            self.f.write(text.encode("utf-8"))
        except OSError as exc:
            raise self._error(exc) from None

    def finish(self) -> None:
        """Everything on disk before the rename: a crash after it never leaves a graded file
        that is empty or short."""
        try:
            self.f.flush()
            os.fsync(self.f.fileno())
        except OSError as exc:
            raise self._error(exc) from None

    def close(self) -> None:
        try:
            self.f.close()
        except OSError:
            pass   # the write's own error is the one reported; the file is removed
        release(self.lock)


class _Sized:
    """An iterator that knows its length (for the progress bar), read lazily."""

    def __init__(self, it, n: int):
        self._it, self._n = it, n

    def __iter__(self):
        return self._it

    def __len__(self) -> int:
        return self._n
