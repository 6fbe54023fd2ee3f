"""The seam with the grader: what `general365 grade` writes, `general365 report` reads, and
the two agree on every count. (The report itself never grades; this test grades first.)"""

from __future__ import annotations

import json

import pytest

from general365.cli import main
from test_report_cases import write_jsonl

CC, OS_ = "Complex Constraints", "Optimal Strategy"


def response(pid, run, text, answer, answer_type="number", **kw):
    d = {"id": pid, "run": run, "response": text, "model": "hand-written",
         "answer": answer, "answer_type": answer_type, "float_round": 0,
         "categories": [CC] if pid.startswith("a") else [CC, OS_],
         "output_tokens": 10 + len(text), "finish_reason": "stop",
         "sampling": {"preset": "chat", "temperature": 0.7, "seed": run}}
    d.update(kw)
    return d


@pytest.mark.timeout(300)
def test_graded_by_the_real_grader_then_reported(tmp_path, capsys):
    rows = [
        response("a", 0, "So \\boxed{42}", "42"),
        response("a", 1, "Final answer: 41", "42"),
        response("b", 0, "I give up", "[1, 2]", "interval"),
        response("b", 1, "\\boxed{[1, 2]}", "[1, 2]", "interval",
                 finish_reason="length"),
        response("c", 0, "Final answer: B", "B", "single_choice"),
        response("c", 1, "Final answer: C", "B", "single_choice"),
    ]
    responses = write_jsonl(str(tmp_path / "responses.jsonl"), rows)
    graded = tmp_path / "graded.jsonl"
    assert main(["grade", responses, "--policy", "rule", "--out", str(graded),
                 "--workers", "1", "--no-progress"]) == 0
    statuses = [json.loads(x)["status"] for x in graded.read_text().splitlines()]
    out = tmp_path / "report"
    capsys.readouterr()
    assert main(["report", str(graded), "--out", str(out), "--published", "none",
                 "--bootstrap", "200"]) == 0
    doc = json.loads((out / "report.json").read_text())
    (m,) = doc["models"]
    assert m["name"] == "hand-written" and m["group"] == "chat"
    # the report's counts are the grader's statuses, whatever they were
    for s in ("correct", "incorrect", "no_answer", "timeout", "judge_failed", "ungraded"):
        assert m["statuses"][s] == statuses.count(s)
    # and for these plain answers the grader's verdicts are not in doubt
    assert statuses == ["correct", "incorrect", "no_answer", "correct", "correct", "incorrect"]
    assert m["accuracy"] == pytest.approx(3 / 6)
    assert m["categories"][OS_] == pytest.approx(2 / 4)          # b and c
    assert m["answer_types"]["interval"]["no_answer"] == 1
    assert m["stability"]["runs"][0]["accuracy"] == pytest.approx(2 / 3)
    assert m["stability"]["runs"][1]["accuracy"] == pytest.approx(1 / 3)
    assert m["stability"]["pass_at_n"] == pytest.approx(1.0)
    assert m["tokens"]["truncated"] == 1
    assert m["provenance"]["grading_methods"] == ["choice", "rule"]
