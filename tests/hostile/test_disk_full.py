"""A full disk (issue 13, item 9): each verb says which file it could not write, exits 2,
and leaves nothing half-written; generate keeps every whole record and resumes once there
is room.

The disk is a real one: a small tmpfs mounted for the test (this needs root; elsewhere
the tests are skipped, saying why).
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
from pathlib import Path

import pytest

from general365.cli import main
from general365.runners.store import iter_records
from support.servers import Behaviour


@pytest.fixture
def small_disk(tmp_path):
    mnt = tmp_path / "disk"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", str(mnt)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def grow(disk: Path, size: str) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(disk)], check=True)


def one_error(err: str, verb: str) -> str:
    assert "Traceback" not in err, err[-3000:]
    lines = [ln for ln in err.splitlines() if ln.startswith(f"general365 {verb}: error:")]
    assert len(lines) == 1, err[-3000:]
    return lines[0]


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_grade_names_the_graded_file_and_leaves_nothing(tmp_path, small_disk, capsys):
    rows = [{"id": f"p{i}", "run": 0, "response": f"{'reasoning ' * 20}\\boxed{{{i}}}",
             "answer": str(i), "answer_type": "number"} for i in range(2000)]
    src = write_jsonl(tmp_path / "responses.jsonl", rows)
    out = small_disk / "graded.jsonl"
    code = main(["grade", str(src), "--out", str(out), "--no-progress", "--workers", "1"])
    line = one_error(capsys.readouterr().err, "grade")
    assert code == 2
    assert f"{out}: cannot write the graded file (No space left on device)" in line
    assert os.listdir(small_disk) == []


def test_report_names_the_report_folder_and_changes_nothing(tmp_path, small_disk, capsys):
    rows = [{"id": f"p{i}", "run": 0, "model": "m", "status": "correct", "correct": True,
             "answer_type": "number"} for i in range(50)]
    src = write_jsonl(tmp_path / "graded.jsonl", rows)
    out = small_disk / "report"
    code = main(["report", str(src), "--out", str(out), "--published", "none",
                 "--bootstrap", "200"])
    line = one_error(capsys.readouterr().err, "report")
    assert code == 2
    assert f"{out}: cannot write the report (No space left on device" in line
    assert os.listdir(small_disk) == []


def test_dataset_build_names_the_folder_and_leaves_nothing(tmp_path, small_disk, capsys):
    import random

    rng = random.Random(9)   # text that does not compress: the parquet files must not fit
    rows = [{"id": f"p{i}", "question": "Sum these: " + " ".join(
        str(rng.randrange(10**9)) for _ in range(150)), "answer": str(i),
             "answer_type": "number"} for i in range(200)]
    src = write_jsonl(tmp_path / "problems.jsonl", rows)
    out = small_disk / "hub"
    code = main(["dataset", "build", "--source", str(src), "--out", str(out)])
    line = one_error(capsys.readouterr().err, "dataset")
    assert code == 2 and f"{out}: cannot write the folder (" in line
    assert "No space left on device" in line
    assert os.listdir(small_disk) == []


def test_generate_names_responses_jsonl_keeps_whole_records_and_resumes(
        tmp_path, small_disk, capsys, fault_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    fault_server.set_script(lambda req, n: Behaviour.reply(
        f"seed={req['seed']} " + "a long answer " * 300))
    out = small_disk / "run"
    argv = ["generate", "--backend", "openai", "--model", fault_server.model, "--base-url",
            fault_server.base_url, "--dataset", "sample", "--limit", "12", "--runs", "4",
            "--max-tokens", "64", "--concurrency", "4", "--out", str(out)]
    code = main(argv)
    captured = capsys.readouterr()
    line = one_error(captured.err, "generate")
    assert code == 2
    assert f"{out / 'responses.jsonl'}: cannot write (No space left on device)" in line
    data = (out / "responses.jsonl").read_bytes()
    assert data == b"" or data.endswith(b"\n")       # no torn line left behind
    kept = list(iter_records(str(out / "responses.jsonl")))
    assert 0 < len(kept) < 48
    assert not [n for n in os.listdir(out) if n.startswith(".tmp")]

    grow(small_disk, "8m")
    assert main(argv) == 0, capsys.readouterr().err[-3000:]
    summary = capsys.readouterr().out
    assert f"already done {len(kept)}" in summary
    records = list(iter_records(str(out / "responses.jsonl")))
    keys = collections.Counter((r["id"], r["run"]) for r in records)
    assert len(keys) == 48 and set(keys.values()) == {1}
    assert json.loads((out / "run.json").read_text())["status"] == "complete"
