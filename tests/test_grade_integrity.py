"""`general365 grade` and the files around it (issue 13, items 6, 7, 9 and 10): a regrade
replaces every grader-owned field; the responses file changing between the two passes is
caught; temporaries of killed runs are swept; a full disk names the file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from general365.cli import main
from general365.schema import GRADER_FIELDS
from support.servers import Behaviour


def write_jsonl(path: Path, rows) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines()]


# --- item 10: a regrade replaces every grader-owned field ------------------------------


def test_regrading_a_graded_file_leaves_nothing_of_the_old_grade(tmp_path, capsys,
                                                                  fault_server):
    state = {"down": True}
    fault_server.set_script(lambda req, n: Behaviour.error(500) if state["down"]
                            else Behaviour.reply('{"accuracy": true}'))
    rows = [{"id": "t", "run": 0, "response": "Paris", "answer": "Paris",
             "answer_type": "text", "question": "Capital of France?"},
            {"id": "n", "run": 0, "response": r"\boxed{12}", "answer": "12",
             "answer_type": "number"}]
    src = write_jsonl(tmp_path / "responses.jsonl", rows)
    judge = ["--policy", "paper", "--judge-model", "j", "--judge-base-url",
             fault_server.base_url, "--judge-cache", "none", "--no-progress"]

    # 1. The judge is down: the text row is judge_failed, with a detail saying why.
    first = tmp_path / "graded-1.jsonl"
    assert main(["grade", str(src), "--out", str(first), *judge]) == 1
    failed = read_jsonl(first)[0]
    assert failed["status"] == "judge_failed" and failed["detail"]

    # 2. Regrading that graded file with the judge back: correct, and no stale detail.
    state["down"] = False
    second = tmp_path / "graded-2.jsonl"
    assert main(["grade", str(first), "--out", str(second), *judge]) == 0
    judged = read_jsonl(second)[0]
    assert judged["status"] == "correct" and judged["judge"]["votes"] == [True]
    assert "detail" not in judged

    # 3. Regrading that with the rule policy: the text row is ungraded, and the judge's
    # block is gone (the rule policy asked no judge).
    third = tmp_path / "graded-3.jsonl"
    assert main(["grade", str(second), "--out", str(third), "--policy", "rule",
                 "--no-progress"]) == 0
    ruled = {r["id"]: r for r in read_jsonl(third)}
    assert ruled["t"]["status"] == "ungraded" and "judge" not in ruled["t"]
    assert ruled["n"]["status"] == "correct" and ruled["n"]["method"] == "rule"
    capsys.readouterr()


def test_every_grader_field_of_a_hand_made_graded_row_is_replaced(tmp_path, capsys):
    stale = {"id": "n", "run": 0, "response": r"\boxed{12}", "answer": "12",
             "answer_type": "number", "status": "judge_failed", "correct": False,
             "method": "judge", "extracted": "11", "detail": "gave up after 5 failed requests",
             "judge": {"model": "old", "votes": [False, False, True]}, "note": "mine"}
    src = write_jsonl(tmp_path / "graded.jsonl", [stale])
    out = tmp_path / "regraded.jsonl"
    assert main(["grade", str(src), "--out", str(out), "--policy", "rule",
                 "--no-progress"]) == 0
    row = read_jsonl(out)[0]
    assert {k: row.get(k) for k in GRADER_FIELDS} == {
        "status": "correct", "correct": True, "method": "rule", "extracted": "12",
        "judge": None, "detail": None}
    assert "judge" not in row and "detail" not in row
    assert row["note"] == "mine"          # the user's own fields are kept
    capsys.readouterr()
