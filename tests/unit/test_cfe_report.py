"""CFE-Bench measures and report tables: Variable and Question Accuracy over subsets, runs
(pass@k, avg@k), subjects, variable types; the paper's figures beside the user's rows;
graded rows whose status contradicts their variables are refused."""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb

import pytest

from general365.errors import DataError
from general365.reporting.load import load_graded
from general365.reporting.tables import to_csv, to_markdown
from general365.tasks.cfe.grade import question_status
from general365.tasks.cfe.graded_rows import accuracy, pass_at_k, read_cfe_graded, run_stats
from general365.tasks.cfe.report import published, report_tables
from general365.schema import Status

C, I, N, U = "correct", "incorrect", "no_answer", "ungraded"


def graded_row(qid, run, statuses, *, modality="text", subject=None, model="m", types=None):
    types = types or ["numeric"] * len(statuses)
    parts = [{"name": f"v{i}", "type": types[i], "value": "1", "status": s,
              "correct": s == C, "method": None if s in (N, U) else "rule"}
             for i, s in enumerate(statuses)]
    status = question_status([Status(s) for s in statuses]).value
    d = {"id": qid, "run": run, "model": model, "response": "...", "benchmark": "cfe",
         "modality": modality, "parts": parts, "status": status,
         "variables": [{"name": f"v{i}", "type": types[i], "value": "1", "description": ""}
                       for i in range(len(statuses))],
         "correct": status == C, "method": "rule", "output_tokens": 10}
    if subject:
        d["subject"] = subject
    return d


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


# Two runs of four questions; the test's own arithmetic below.
RUNS = {
    0: [("q1", [C, C], "text", "Physics"), ("q2", [C, I, I], "text", "Physics"),
        ("q3", [N], "mm", "Biology"), ("q4", [C, U], "mm", None)],
    1: [("q1", [C, I], "text", "Physics"), ("q2", [C, C, C], "text", "Physics"),
        ("q3", [I], "mm", "Biology"), ("q4", [I, U], "mm", None)],
}


@pytest.fixture
def graded_file(tmp_path):
    rows = [graded_row(q, run, s, modality=m, subject=sub, types=["numeric", "formula",
                                                                   "other"][:len(s)])
            for run, qs in RUNS.items() for q, s, m, sub in qs]
    return write(tmp_path / "graded.jsonl", rows)


def expected(rows):
    """Variable Accuracy and Question Accuracy from the statuses, by hand."""
    scores, graded_q, right_q = [], 0, 0
    for statuses in rows:
        graded = [s for s in statuses if s != U]
        if graded:
            scores.append(Fraction(graded.count(C), len(graded)))
        q = question_status([Status(s) for s in statuses])
        if q is not Status.UNGRADED:
            graded_q += 1
            right_q += q is Status.CORRECT
    return float(sum(scores) / len(scores)), right_q / graded_q


def test_accuracies_by_subset(graded_file):
    [m] = read_cfe_graded([graded_file])
    all_rows = [s for qs in RUNS.values() for _, s, _, _ in qs]
    a = accuracy(m.rows)
    va, qa = expected(all_rows)
    assert (a.variable_accuracy, a.question_accuracy) == (pytest.approx(va), pytest.approx(qa))
    assert a.questions == 8 and a.graded_questions == 7          # q4 run 0 is ungraded
    assert a.variables == 16 and a.graded_variables == 14        # two `ungraded`
    text = accuracy([r for r in m.rows if r.modality == "text"])
    va, qa = expected([s for qs in RUNS.values() for _, s, mod, _ in qs if mod == "text"])
    assert (text.variable_accuracy, text.question_accuracy) == (pytest.approx(va),
                                                                 pytest.approx(qa))


def test_pass_and_avg_over_runs(graded_file):
    [m] = read_cfe_graded([graded_file])
    s = run_stats(m.rows)
    assert s.runs == 2 and set(s.pass_at) == {1, 2}
    # per question, graded runs and right ones: q1 (2, 1), q2 (2, 1), q3 (2, 0), q4 (1, 0)
    per_q = {"q1": (2, 1), "q2": (2, 1), "q3": (2, 0), "q4": (1, 0)}
    want1 = sum(1 - comb(n - c, 1) / comb(n, 1) for n, c in per_q.values()) / 4
    want2 = sum(1 - comb(n - c, 2) / comb(n, 2) for n, c in per_q.values() if n >= 2) / 3
    assert s.pass_at[1] == pytest.approx(want1) and s.pass_at[2] == pytest.approx(want2)
    assert s.avg_at_n == pytest.approx((0.5 + 0.5 + 0 + 0) / 4)
    assert s.per_run[0].question_accuracy == pytest.approx(1 / 3)   # q1 of q1..q3
    assert pass_at_k(5, 0, 3) == 0 and pass_at_k(5, 3, 3) == 1.0
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)


def test_tables_with_the_papers_rows(graded_file):
    tables = {t.key: t for t in report_tables(load_graded([graded_file]))}
    assert list(tables) == ["cfe_accuracy", "cfe_runs", "cfe_subjects", "cfe_variables"]
    acc = tables["cfe_accuracy"]
    mine = [r for r in acc.records() if r["Source"] == "your run"]
    assert [r["Subset"] for r in mine] == ["Text", "Multimodal", "Text + Multimodal"]
    paper = [r for r in acc.records() if r["Source"].startswith("paper")]
    assert {(r["Model"], r["Subset"]) for r in paper} == {
        (p.model, {"text": "Text", "all": "Text + Multimodal"}[p.subset]) for p in published()}
    gpt = next(r for r in paper if r["Model"] == "GPT-oss-120b")
    assert gpt["Variable Accuracy"] == pytest.approx(0.4115)
    assert gpt["Question Accuracy"] == pytest.approx(0.3443)
    assert "| GPT-oss-120b | paper (Table 2) | Text | 305 | 41.1 | 34.4 |" in to_markdown(acc)
    assert "41.15" in to_csv(acc)
    subjects = tables["cfe_subjects"].records()
    assert {r["Subject"] for r in subjects} == {"Physics", "Biology"}   # q4 names none
    variables = tables["cfe_variables"].records()
    numeric = next(r for r in variables if r["By"] == "type" and r["Value"] == "numeric")
    assert numeric["Variables"] == 8 and numeric["correct"] == 5    # the first variables
    runs = tables["cfe_runs"].records()[0]
    assert runs["Runs"] == 2 and runs["pass@N"] == pytest.approx(2 / 3)


def test_published_figures_are_the_papers():
    rows = published()
    assert len(rows) == 10
    assert {r.subset for r in rows} == {"text", "all"}
    llama = {r.subset: r for r in rows if r.model == "Llama-4-Maverick"}
    assert llama["text"].variable_accuracy == pytest.approx(0.2453)
    assert llama["all"].question_accuracy == pytest.approx(0.1648)
    assert all(0 < r.question_accuracy <= r.variable_accuracy < 1 for r in rows)


def test_rows_that_contradict_their_variables_are_refused(tmp_path):
    bad = graded_row("q1", 0, [C, I])
    bad.update(status="correct", correct=True)
    path = write(tmp_path / "g.jsonl", [graded_row("q0", 0, [C]), bad])
    with pytest.raises(DataError) as info:
        read_cfe_graded([path])
    assert f"{path}:2" in str(info.value) and "field 'status'" in str(info.value)
    no_parts = graded_row("q2", 0, [C])
    del no_parts["parts"]
    path = write(tmp_path / "h.jsonl", [no_parts])
    with pytest.raises(DataError, match="CFE-Bench graded row"):
        read_cfe_graded([path])
    bad_part = graded_row("q2", 0, [C])
    bad_part["parts"][0]["status"] = "fine"
    with pytest.raises(DataError, match=r"field 'parts\[0\]\.status'"):
        read_cfe_graded([write(tmp_path / "k.jsonl", [bad_part])])
    odd = graded_row("q3", 0, [C])
    odd["modality"] = "video"
    with pytest.raises(DataError, match="unknown modality"):
        read_cfe_graded([write(tmp_path / "i.jsonl", [odd])])
