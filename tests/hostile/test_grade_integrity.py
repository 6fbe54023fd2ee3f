"""`general365 grade` and the files around it (issue 13, items 6, 7, 9 and 10): a regrade
replaces every grader-owned field; the responses file changing between the two passes is
caught; temporaries of killed runs are swept; a full disk names the file."""

from __future__ import annotations

import json
import os
import re
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
        "judge": None, "detail": None, "parts": None, "score": None}
    assert not {"judge", "detail", "parts", "score"} & set(row)
    assert row["note"] == "mine"          # the user's own fields are kept
    capsys.readouterr()


# --- item 7: the responses file changes between (or during) the passes ------------------

ROWS = 3000   # three chunks of the grader's 1,000: the judge is asked while more is read


def numbered_rows(n: int = ROWS) -> list[dict]:
    rows = [{"id": "t0000", "run": 0, "response": "Paris", "answer": "Paris",
             "answer_type": "text", "question": "Capital of France?"}]
    rows += [{"id": f"r{i:04d}", "run": 0, "response": f"\\boxed{{{i}}}", "answer": str(i),
              "answer_type": "number"} for i in range(1, n)]
    return rows


def judge_args(fault_server) -> list[str]:
    return ["--policy", "paper", "--judge-model", "j", "--judge-base-url",
            fault_server.base_url, "--judge-cache", "none", "--no-progress", "--workers", "1"]


def test_a_row_appended_while_grading_is_not_graded_and_the_summary_says_so(
        tmp_path, capsys, fault_server):
    src = write_jsonl(tmp_path / "responses.jsonl", numbered_rows())

    def script(request, n):
        if n == 0:   # grading is under way: a writer appends one more response
            with open(src, "a", encoding="utf-8") as f:
                f.write(json.dumps({"id": "late", "run": 0, "response": "\\boxed{1}",
                                    "answer": "1", "answer_type": "number"}) + "\n")
        return Behaviour.reply('{"accuracy": true}')

    fault_server.set_script(script)
    out = tmp_path / "graded.jsonl"
    assert main(["grade", str(src), "--out", str(out), *judge_args(fault_server)]) == 0
    captured = capsys.readouterr()
    graded = read_jsonl(out)
    assert len(graded) == ROWS and "late" not in {r["id"] for r in graded}
    assert f"graded {ROWS} responses" in captured.out
    assert "grew while it was graded" in captured.err
    assert len(src.read_text().splitlines()) == ROWS + 1   # the writer's row is still there


def test_a_line_rewritten_while_grading_stops_the_grade_and_writes_nothing(
        tmp_path, capsys, fault_server):
    src = write_jsonl(tmp_path / "responses.jsonl", numbered_rows())
    data = src.read_bytes()
    target = b'"id": "r2900"'
    at = data.index(target)

    def script(request, n):
        if n == 0:   # rewrite a row in place, far ahead of the reader: now a duplicate
            with open(src, "r+b") as f:
                f.seek(at)
                f.write(b'"id": "r0001"')
        return Behaviour.reply('{"accuracy": true}')

    fault_server.set_script(script)
    out = tmp_path / "graded.jsonl"
    code = main(["grade", str(src), "--out", str(out), *judge_args(fault_server)])
    err = capsys.readouterr().err
    assert code == 2
    lines = [ln for ln in err.splitlines() if ln.startswith("general365 grade: error:")]
    assert len(lines) == 1 and "responses.jsonl:2901: the file changed" in lines[0]
    assert "nothing was written" in lines[0] and "Traceback" not in err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["responses.jsonl"]


def test_a_file_replaced_by_rename_is_graded_as_it_was_when_read(tmp_path, capsys,
                                                                    fault_server):
    # An editor that saves by renaming a new file over the old one: the open file is the
    # old one to the end, so the grade is of one consistent file.
    src = write_jsonl(tmp_path / "responses.jsonl", numbered_rows())

    def script(request, n):
        if n == 0:
            tmp = tmp_path / "new.jsonl"
            write_jsonl(tmp, numbered_rows(10))
            os.replace(tmp, src)
        return Behaviour.reply('{"accuracy": true}')

    fault_server.set_script(script)
    out = tmp_path / "graded.jsonl"
    code = main(["grade", str(src), "--out", str(out), *judge_args(fault_server)])
    capsys.readouterr()
    assert code == 0
    assert [r["id"] for r in read_jsonl(out)] == [r["id"] for r in numbered_rows()]


# --- item 6: temporaries of a killed grade ----------------------------------------------


def grade_cmd(src: Path, out: Path, fault_server) -> list[str]:
    exe = Path(sys.executable).with_name("general365")
    head = [str(exe)] if exe.exists() else [sys.executable, "-m", "general365.cli"]
    return [*head, "grade", str(src), "--out", str(out), *judge_args(fault_server)]


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".graded.jsonl."))


def wait_for_temporary(folder: Path, proc: subprocess.Popen, fault_server) -> str:
    """The process's temporary, once it exists and the judge holds the process's request
    (so the process is mid-grade, and a later process's requests are not the held one)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        names = [n for n in temporaries(folder)
                 if re.fullmatch(rf"\.graded\.jsonl\.{proc.pid}-[0-9a-f]{{8}}\.tmp", n)]
        if names and fault_server.requests:
            return names[0]
        time.sleep(0.05)
    raise AssertionError(f"no temporary appeared: {proc.communicate()[1][-2000:]}")


def held_judge(fault_server, held: set[int]):
    """A judge that holds the requests whose ordinal is in `held` for a minute."""
    fault_server.set_script(lambda req, n: Behaviour.reply('{"accuracy": true}',
                                                           delay=60 if n in held else 0))


def test_a_killed_grades_temporary_is_removed_by_the_next_run(tmp_path, fault_server):
    src = write_jsonl(tmp_path / "responses.jsonl", numbered_rows(50))
    out = tmp_path / "graded.jsonl"
    held_judge(fault_server, {0})
    proc = subprocess.Popen(grade_cmd(src, out, fault_server), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    name = wait_for_temporary(tmp_path, proc, fault_server)
    proc.kill()
    proc.communicate()
    assert temporaries(tmp_path) == [name]          # what kill -9 leaves
    rerun = subprocess.run(grade_cmd(src, out, fault_server), capture_output=True, text=True,
                           timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert temporaries(tmp_path) == [] and len(read_jsonl(out)) == 50


def test_a_live_grades_temporary_is_kept_and_sigterm_cleans_up(tmp_path, fault_server):
    src = write_jsonl(tmp_path / "responses.jsonl", numbered_rows(50))
    out = tmp_path / "graded.jsonl"
    held_judge(fault_server, {0})
    slow = subprocess.Popen(grade_cmd(src, out, fault_server), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        name = wait_for_temporary(tmp_path, slow, fault_server)
        # A second grade of the same --out runs meanwhile: it must not take the first's
        # temporary for a leftover.
        other = subprocess.run(grade_cmd(src, out, fault_server), capture_output=True,
                               text=True, timeout=300)
        assert other.returncode == 0, other.stderr[-2000:]
        assert temporaries(tmp_path) == [name]
        # SIGTERM (a scheduler's stop): the first ends cleanly, its temporary removed.
        slow.send_signal(signal.SIGTERM)
        _, err = slow.communicate(timeout=120)
        assert slow.returncode == 128 + signal.SIGTERM, err[-2000:]
        assert "general365 grade: terminated" in err and "Traceback" not in err
        assert temporaries(tmp_path) == []
        assert len(read_jsonl(out)) == 50            # the second grade's file, untouched
    finally:
        if slow.poll() is None:
            slow.kill()


# --- the rule policy's single read: a file changed while read --------------------------


def rule_rows(n: int, answer: int) -> list[dict]:
    return [{"id": f"r{i:05d}", "run": 0, "response": f"\\boxed{{{answer}}}", "answer": "1",
             "answer_type": "number"} for i in range(n)]


def grade_with_a_writer(tmp_path, monkeypatch, change) -> tuple[int, Path]:
    """Grade 6,000 rows under the rule policy (one read); `change(src)` runs when the
    reader reaches row 3,000, as a writer would meanwhile. The trigger is the reading of
    that row (a subclass of the record type that calls `change` once), so the moment is
    exact: the first half is read, the rest is not."""
    import general365.grading.files as files

    src = write_jsonl(tmp_path / "responses.jsonl", rule_rows(6000, 1))
    base = files.Response

    class Reading(base):
        fired = False

        @classmethod
        def from_dict(cls, d, **where):
            if d["id"] == "r03000" and not Reading.fired:
                Reading.fired = True
                change(src)
            return super().from_dict(d, **where)

    monkeypatch.setattr(files, "Response", Reading)
    out = tmp_path / "out" / "graded.jsonl"
    code = main(["grade", str(src), "--policy", "rule", "--out", str(out), "--no-progress",
                 "--workers", "1"])
    assert Reading.fired
    return code, out


def rewrite_in_place(src: Path) -> None:
    # Same length, other answers: the rest of the read lands on line boundaries of the
    # new version, so only a check of the whole read can tell the versions apart.
    with open(src, "r+", encoding="utf-8") as f:
        f.write("".join(json.dumps(r) + "\n" for r in rule_rows(6000, 2)))


def truncate_at_a_line(src: Path) -> None:
    size = len(json.dumps(rule_rows(1, 1)[0])) + 1
    with open(src, "r+b") as f:
        f.truncate(size * 100)


@pytest.mark.parametrize("change,needle", [
    (rewrite_in_place, "responses.jsonl:1: the file changed while it was being read"),
    (truncate_at_a_line, "responses.jsonl:101: the file changed while it was being read "
                         "(it is now shorter)"),
])
def test_the_rule_policy_never_grades_two_versions_of_a_file_spliced(
        tmp_path, capsys, monkeypatch, change, needle):
    # One read, no second pass to compare against: unchecked, the graded file held the old
    # first half and the new second half (3,523 correct and 2,477 incorrect), exit 0, or a
    # silently short file after a truncation.
    code, out = grade_with_a_writer(tmp_path, monkeypatch, change)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "nothing was written" in lines[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["responses.jsonl"]


def test_the_rule_policy_grades_rows_appended_while_it_reads(tmp_path, capsys, monkeypatch):
    late = {"id": "late", "run": 0, "response": "\\boxed{1}", "answer": "1",
            "answer_type": "number"}

    def append(src: Path) -> None:
        with open(src, "a", encoding="utf-8") as f:
            f.write(json.dumps(late) + "\n")

    code, out = grade_with_a_writer(tmp_path, monkeypatch, append)
    assert code == 0, capsys.readouterr().err
    graded = read_jsonl(out)
    assert [r["id"] for r in graded] == [r["id"] for r in rule_rows(6000, 1)] + ["late"]
    assert {r["status"] for r in graded} == {"correct"}
