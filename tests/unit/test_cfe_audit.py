"""The grading audit on CFE-Bench graded files: at the question level as they are, and at
the variable level (the paper's Table 1) through per-variable rows."""

from __future__ import annotations

import json

from general365 import audit
from general365.grading.judge import Judge
from general365.schema import Response
from general365.tasks.cfe.graded_rows import variable_rows, write_variable_rows
from general365.tasks.cfe.data import CFEProblem, Variable, VariableType
from general365.tasks.cfe.grade import grade
from support.servers import Behaviour

TRUE, FALSE = '{"accuracy": true}', '{"accuracy": false}'


def test_audit_reads_cfe_graded_files_and_finds_disagreements(fault_server, tmp_path):
    # The judge accepts every value: it turns the rule's `incorrect` into `correct`.
    fault_server.set_script(lambda req, n: Behaviour.reply(TRUE))
    p = CFEProblem("q", "How long, and what colour?",
                   (Variable("length", VariableType.NUMERIC, "in m", "2.5"),
                    Variable("colour", VariableType.OTHER, "a colour", "red")))
    responses = [Response("q", run, f"length = {v}\ncolour = red", model="m")
                 for run, v in enumerate(["2.5", "9", "2.5 m", "3"])]
    judge = Judge("cfe-judge", base_url=fault_server.base_url, cache=tmp_path / "j.sqlite")
    graded = grade([(r, p) for r in responses], policy="cascade", judge=judge)
    path = tmp_path / "graded.jsonl"
    path.write_text("".join(json.dumps(g.record()) + "\n" for g in graded), encoding="utf-8")

    questions = audit.sample([str(path)], n=4, seed=0)
    assert {r.id for r in questions.rows} == {"q"} and len(questions.rows) == 4
    flipped = [r for r in questions.rows if r.disagreement]
    assert {r.run for r in flipped} == {1, 3}           # the rule said incorrect, judge yes
    assert all(r.rule_status == "incorrect" and r.status == "correct" for r in flipped)
    # Runs 0 and 2: the rule could not decide the colour, so it gave the question no
    # verdict: nothing to disagree with.
    assert all(r.rule_status is None for r in questions.rows if r.run in (0, 2))
    assert all(r.answer == "length = 2.5; colour = red" for r in questions.rows)
    assert all(r.judge_model == "cfe-judge" for r in questions.rows)

    out = tmp_path / "variables.jsonl"
    assert write_variable_rows(str(path), str(out)) == 8
    rows = list(variable_rows(str(path)))
    assert {r["id"] for r in rows} == {"q#length", "q#colour"}
    variables = audit.sample([str(out)], n=8, seed=0)
    assert len(variables.rows) == 8
    dis = [r for r in variables.rows if r.disagreement]
    assert {(r.id, r.run) for r in dis} == {("q#length", 1), ("q#length", 3)}
    # Undecided by the rule, then judged: not a disagreement (the rule gave no verdict).
    colour = [r for r in variables.rows if r.id == "q#colour"]
    assert all(r.rule_status is None and not r.disagreement for r in colour)
    assert all(r.detail.startswith("rule undecided (") for r in colour)
    # Labels on the variable rows score like any audit.
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({**r.to_dict(), "label": "wrong" if r.disagreement
                                          else "right"}) + "\n" for r in variables.rows),
                      encoding="utf-8")
    scored = audit.score([str(labels)])
    assert scored.overall.n == 8 and scored.overall.fp == 2   # accepted, and wrong to
