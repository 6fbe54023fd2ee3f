"""The bundled sample: General365-style problems written for this project (CC BY 4.0), one
Problem a line in `general365/data/sample/*.jsonl` (several files, so several people can
write rows at once), read in sorted file order."""

from __future__ import annotations

from pathlib import Path

from ..errors import DataError, DataErrors, UserError
from ..jsonl import iter_jsonl
from ..schema import Problem


def sample_dir() -> Path:
    return Path(__file__).resolve().parent / "sample"


def sample_files() -> list[Path]:
    files = sorted(sample_dir().glob("*.jsonl"))
    if not files:
        raise UserError(f"the bundled sample is missing: no *.jsonl files in {sample_dir()}")
    return files


def load_sample() -> list[Problem]:
    """Every sample problem, validated; all bad rows are reported together (DataErrors)."""
    problems: list[Problem] = []
    errors: list[DataError] = []
    first_seen: dict[str, str] = {}
    for path in sample_files():
        for line_no, row in iter_jsonl(str(path), errors=errors):
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
