"""A hostile solver/run.json in an expand folder: the solver's earlier agreement is read as
if run.json were absent, never raised on (int() of 1e999, NaN or "x" escaped as a bare
OverflowError or ValueError: a traceback from `general365 expand`)."""

from __future__ import annotations

import pytest

from general365.expand.solver import previous_agreement


@pytest.mark.parametrize("run_json", [
    '{"model": "s", "runs": 1e999}', '{"model": "s", "runs": NaN}',
    '{"model": "s", "runs": "x"}',
])
def test_a_hostile_run_json_reads_as_an_absent_one(tmp_path, run_json):
    solver = tmp_path / "solver"
    solver.mkdir()
    (solver / "graded.jsonl").write_text("", encoding="utf-8")
    absent = previous_agreement(str(tmp_path))
    (solver / "run.json").write_text(run_json, encoding="utf-8")
    assert previous_agreement(str(tmp_path)) == absent
