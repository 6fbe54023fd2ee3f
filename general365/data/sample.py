"""The bundled sample: General365-style problems written for this project (CC BY 4.0).

The rows live in `general365/data/sample/*.jsonl` (one Problem a line, ../../docs/DESIGN.md);
several files so that several people can write rows at once. They are read in sorted file
order so that the sample's row order never depends on the file system.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import DataError, DataErrors, UserError
from ..schema import Problem
from .readers import read_text, split_lines


def sample_dir() -> Path:
    """The folder that holds the sample's JSON Lines files."""
    return Path(__file__).resolve().parent / "sample"


def sample_files() -> list[Path]:
    return sorted(sample_dir().glob("*.jsonl"))


def load_sample() -> list[Problem]:
    """Every sample problem, validated; all bad rows are reported together (DataErrors)."""
    files = sample_files()
    if not files:
        raise UserError(f"the bundled sample is missing: no *.jsonl files in {sample_dir()}")
    problems: list[Problem] = []
    errors: list[DataError] = []
    first_seen: dict[str, str] = {}
    for path in files:
        try:
            lines = split_lines(read_text(path))
        except DataError as exc:  # e.g. not UTF-8: the file's other rows cannot be trusted
            errors.append(exc)
            continue
        for line_no, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            try:
                row = json.loads(text)
            except json.JSONDecodeError as exc:
                errors.append(DataError(f"not valid JSON ({exc.msg})", path=str(path),
                                        line=line_no, expected="one JSON object a line"))
                continue
            try:
                problem = Problem.from_dict(row, path=str(path), line=line_no)
            except DataError as exc:
                errors.append(exc)
                continue
            where = f"{path.name}:{line_no}"
            if problem.id in first_seen:
                errors.append(DataError(
                    "duplicated id", path=str(path), line=line_no, row_id=problem.id,
                    field="id", expected=f"each id once (first at {first_seen[problem.id]})"))
                continue
            first_seen[problem.id] = where
            problems.append(problem)
    if errors:
        raise DataErrors(errors)
    return problems
