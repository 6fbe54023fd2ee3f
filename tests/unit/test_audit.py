"""The grading-accuracy audit (general365.audit): the sample, the disagreement rows of the
real cascade, the labels, the scores, and the command line end to end with labels the tests
write. The review page in a browser: test_audit_browser.py."""

from __future__ import annotations

import json
import os

import pytest

from general365 import audit
from general365.audit.labels import read_labels
from general365.audit.scoring import scores, weighted_estimate
from general365.audit.rows import RuleSide, disagree, rule_side
from general365.audit.sampling import DISAGREEMENT, allocate
from general365.cli import main
from general365.errors import UserError
from general365.grading.hybrid import grade
from general365.grading.judge import Judge
from general365.schema import Problem, Response, Graded
from support.servers import Behaviour

TRUE, FALSE = '{"accuracy": true}', '{"accuracy": false}'


def write_jsonl(path, rows) -> str:
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return str(path)


def read_jsonl(path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def graded_row(i: int, status: str, method: str | None, answer_type: str, **extra) -> dict:
    d = {"id": f"p{i}", "run": 0, "response": f"<think>work</think> So \\boxed{{{i}}}.",
         "answer": str(i), "answer_type": answer_type, "status": status,
         "correct": status == "correct", "method": method, "extracted": str(i)}
    d.update(extra)
    return d


def mixed_file(tmp_path, name="graded.jsonl", model="m") -> str:
    """118 rows: 114 with a verdict over 8 strata plus 3 cascade disagreements; 4 ungraded."""
    rows = []
    plan = ([("correct", "rule", "number")] * 50 + [("incorrect", "rule", "number")] * 20
            + [("no_answer", "rule", "number")] * 6 + [("correct", "rule", "interval")] * 10
            + [("correct", "choice", "single_choice")] * 15
            + [("incorrect", "judge", "text")] * 8 + [("timeout", "rule", "number")] * 1
            + [("ungraded", None, "text")] * 4)
    for i, (st, m, t) in enumerate(plan):
        rows.append(graded_row(i, st, m, t, model=model))
    for j in range(3):  # the judge turned the rule's verdict around
        rows.append(graded_row(500 + j, "correct", "judge", "number", model=model,
                               detail="rule: incorrect; judge: 1 of 1 votes",
                               judge={"model": "j", "raw": TRUE, "votes": [True]}))
    rows.append(graded_row(600, "incorrect", "judge", "number", model=model,  # agreement
                           detail="rule: incorrect", judge={"model": "j", "raw": FALSE}))
    return write_jsonl(tmp_path / name, rows)


# --- the rule's side of a cascade row ----------------------------------------------


def test_rule_side_reads_only_the_cascade_prefix():
    judged = {"method": "judge", "judge": {"model": "j"}}
    assert rule_side({**judged, "detail": "rule: incorrect; judge: x"}) == RuleSide("rule", "incorrect")
    assert rule_side({**judged, "detail": "choice: no_answer"}) == RuleSide("choice", "no_answer")
    assert rule_side({**judged, "detail": "rule: timeout"}) == RuleSide("rule", "timeout")
    for detail in ["the judge said rule: incorrect", "rule: wrong", "judge: incorrect",
                   "rule:incorrect", "Rule: incorrect", "rule: incorrectly", None, 7]:
        assert rule_side({**judged, "detail": detail}) is None, detail
    # only on a row the judge graded, with its record
    assert rule_side({"method": "rule", "judge": {}, "detail": "rule: incorrect"}) is None
    assert rule_side({"method": "judge", "detail": "rule: incorrect"}) is None


@pytest.mark.parametrize("status,rule,expected", [
    ("correct", "incorrect", True), ("correct", "no_answer", True), ("correct", "timeout", True),
    ("incorrect", "correct", True), ("incorrect", "incorrect", False),
    ("incorrect", "no_answer", False), ("judge_failed", "incorrect", False),
])
def test_disagreement_is_one_accepting_and_the_other_not(status, rule, expected):
    assert disagree(status, RuleSide("rule", rule)) is expected
    assert disagree(status, None) is False


def test_disagreements_of_the_real_cascade_are_found(fault_server, tmp_path):
    # The cascade's own rows, graded by the real grader and the real Judge (the server
    # answers as scripted): the audit must see exactly the rows the judge turned around.
    def script(req, n):
        pred = req["messages"][1]["content"].split("\nPrediction: ", 1)[1]
        if "garbled" in pred:
            return Behaviour.reply("no verdict here")
        return Behaviour.reply(TRUE if ("dozen" in pred or "blue" in pred) else FALSE)

    fault_server.set_script(script)
    problems = [
        Problem.from_dict({"id": "n1", "question": "How many eggs?", "answer": "12",
                           "answer_type": "number"}),
        Problem.from_dict({"id": "c1", "question": "A) red B) blue", "answer": "B",
                           "answer_type": "single_choice"}),
        Problem.from_dict({"id": "t1", "question": "Capital of France?", "answer": "Paris",
                           "answer_type": "text"}),
    ]
    responses = [
        Response("n1", 0, "A dozen: \\boxed{13}."),          # rule incorrect, judge correct
        Response("n1", 1, "So \\boxed{12}."),                # rule correct, no judge
        Response("n1", 2, "So \\boxed{14}."),                # both incorrect
        Response("c1", 0, "The answer is blue."),            # letter grader: no letter; judge
        Response("n1", 3, "I could not finish."),            # rule no_answer, judge incorrect
        Response("n1", 4, "garbled \\boxed{15}"),            # judge_failed: no verdict
        Response("t1", 0, "Paris"),                          # judged only
    ]
    judge = Judge("audit-judge", base_url=fault_server.base_url, cache=False,
                  backoff_base=0.01, max_retries=1)
    verdicts = grade(responses, problems, policy="cascade", judge=judge)
    by_id = {p.id: p for p in problems}
    path = write_jsonl(tmp_path / "graded.jsonl",
                       [Graded(r, v, by_id[r.id]).to_dict() for r, v in zip(responses, verdicts)])
    s = audit.sample([path], n=50, seed=1)
    found = {(r.id, r.run): (r.disagreement, r.rule_method, r.rule_status) for r in s.rows}
    assert found[("n1", 0)] == (True, "rule", "incorrect")
    assert found[("c1", 0)] == (True, "choice", "incorrect")
    assert found[("n1", 2)] == (False, "rule", "incorrect")
    assert found[("n1", 3)] == (False, "rule", "no_answer")
    assert found[("n1", 4)][0] is False and verdicts[5].status.value == "judge_failed"
    assert found[("n1", 1)] == (False, None, None) and found[("t1", 0)] == (False, None, None)
    assert s.disagreements == 2
    assert [r.reason for r in s.rows[:2]] == ["disagreement", "disagreement"]


# --- the sample --------------------------------------------------------------------


def test_allocate_gives_each_stratum_one_then_shares_by_size():
    sizes = {"a": 100, "b": 10, "c": 1, "d": 0}
    got = allocate(sizes, 12)
    assert sum(got.values()) == 12 and got["c"] == 1 and got["d"] == 0
    assert got["a"] > got["b"] >= 1
    assert allocate(sizes, 500) == {"a": 100, "b": 10, "c": 1, "d": 0}   # all there is
    assert allocate(sizes, 2) == {"a": 1, "b": 1, "c": 0, "d": 0}        # largest first
    big = allocate({"x": 7, "y": 3}, 5)
    assert big == {"x": 3, "y": 2} and sum(big.values()) == 5


def test_sample_is_stratified_seeded_and_has_every_disagreement(tmp_path):
    path = mixed_file(tmp_path)
    s = audit.sample([path], n=20, seed=7)
    again = audit.sample([path], n=20, seed=7)
    other = audit.sample([path], n=20, seed=8)
    keys = [(r.id, r.run) for r in s.rows]
    assert keys == [(r.id, r.run) for r in again.rows] and s.sample_id == again.sample_id
    assert keys != [(r.id, r.run) for r in other.rows]
    assert {r.id for r in s.rows if r.reason == "disagreement"} == {"p500", "p501", "p502"}
    drawn = [r for r in s.rows if r.reason == "sample"]
    assert len(drawn) == 20 and not any(r.status == "ungraded" for r in s.rows)
    strata = {st.name: st for st in s.strata}
    # every stratum seen, the big one most; weights are population / drawn
    assert set(strata) == {DISAGREEMENT, "rule / correct / number", "rule / incorrect / number",
                           "rule / no_answer / number", "rule / correct / interval",
                           "choice / correct / single_choice", "judge / incorrect / text",
                           "rule / timeout / number", "judge / incorrect / number"}
    assert all(st.drawn >= 1 for st in s.strata)
    assert strata["rule / correct / number"].drawn == max(st.drawn for st in s.strata)
    assert sum(st.population for st in s.strata) == 114
    for r in drawn:
        st = strata[r.stratum]
        assert r.weight == pytest.approx(st.population / st.drawn)
        assert r.stratum_size == st.population and r.sample_id == s.sample_id
    # what the reviewer reads
    row = next(r for r in s.rows if r.id == "p500")
    assert row.final == "So \\boxed{500}." and row.answer == "500" and row.judge_raw == TRUE
    assert row.source.endswith("graded.jsonl:115")


def test_n_larger_than_the_input_takes_every_row(tmp_path):
    path = mixed_file(tmp_path)
    s = audit.sample([path], n=10_000)
    assert len(s.rows) == 114
    assert all(r.weight == 1.0 for r in s.rows)


def test_cut_off_and_long_responses_in_the_review_row(tmp_path):
    rows = [graded_row(1, "no_answer", "rule", "number", response="<think>never closed"),
            graded_row(2, "correct", "rule", "number", response="<think>x</think>" + "y" * 20000
                       + " \\boxed{2}")]
    s = audit.sample([write_jsonl(tmp_path / "g.jsonl", rows)], n=5)
    cut, long = sorted(s.rows, key=lambda r: r.id)
    assert cut.cut_off and cut.final is None and cut.response_tail == "<think>never closed"
    assert not long.cut_off and long.final.endswith("\\boxed{2}") and len(long.final) <= 8001
    assert long.response_chars == len(rows[1]["response"])


def test_write_sample_files(tmp_path):
    s = audit.write_sample(audit.sample([mixed_file(tmp_path)], n=10), str(tmp_path / "out"))
    review = read_jsonl(tmp_path / "out" / "review.jsonl")
    assert len(review) == len(s.rows) and all(r["label"] is None for r in review)
    manifest = json.loads((tmp_path / "out" / "sample.json").read_text())
    assert manifest["sample_id"] == s.sample_id and manifest["disagreements"] == 3
    page = (tmp_path / "out" / "review.html").read_text()
    assert "Content-Security-Policy" in page and s.sample_id in page
    assert not [f for f in os.listdir(tmp_path / "out") if f.startswith(".")]


def test_page_data_cannot_close_its_script(tmp_path):
    evil = "</script><script>alert(1)</script><!--"
    rows = [graded_row(1, "incorrect", "rule", "number", response=evil, answer=evil)]
    s = audit.write_sample(audit.sample([write_jsonl(tmp_path / "g.jsonl", rows)], n=1),
                           str(tmp_path / "out"))
    page = (tmp_path / "out" / "review.html").read_text()
    assert "</script><script>alert" not in page and page.count("</script>") == 2
    assert s.rows[0].final == evil


# --- labels and scores --------------------------------------------------------------


def label_row(i, status, label, **extra):
    return {"id": f"p{i}", "run": 0, "status": status, "label": label, **extra}


def test_scores_and_wilson_by_hand(tmp_path):
    # 6 graded correct (5 right, 1 wrong), 4 graded not correct (2 right, 2 wrong)
    rows = ([label_row(i, "correct", "right") for i in range(5)]
            + [label_row(5, "correct", "wrong"), label_row(6, "incorrect", "right"),
               label_row(7, "no_answer", "right"), label_row(8, "incorrect", "wrong"),
               label_row(9, "timeout", "wrong")])
    labels, unlabelled = read_labels([write_jsonl(tmp_path / "l.jsonl", rows)])
    s = scores(labels)
    assert (s.n, s.tp, s.fp, s.tn, s.fn) == (10, 5, 1, 2, 2) and unlabelled == 0
    assert s.accuracy == pytest.approx(0.7)
    assert s.precision == pytest.approx(5 / 6) and s.recall == pytest.approx(5 / 7)
    assert s.f1 == pytest.approx(10 / 13)
    # Wilson 95% for 7 of 10: 0.3968 to 0.8922 (the textbook figures)
    low, high = s.interval
    assert low == pytest.approx(0.3968, abs=1e-4) and high == pytest.approx(0.8922, abs=1e-4)


def test_wilson_edges():
    assert audit.wilson(0, 0) is None
    low, high = audit.wilson(10, 10)
    assert high == 1.0 and low == pytest.approx(0.7225, abs=1e-4)
    low, high = audit.wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)


def test_undefined_precision_and_recall_are_none(tmp_path):
    labels, _ = read_labels([write_jsonl(tmp_path / "l.jsonl",
                                         [label_row(1, "incorrect", "right")])])
    s = scores(labels)
    assert s.precision is None and s.recall is None and s.f1 is None and s.accuracy == 1.0


def test_post_stratified_estimate_by_hand(tmp_path):
    # stratum A: 90 rows, 2 labelled (1 right); stratum B: 10 rows, 2 labelled (both right)
    rows = [label_row(1, "correct", "right", stratum="A", stratum_size=90, sample_id="s"),
            label_row(2, "correct", "wrong", stratum="A", stratum_size=90, sample_id="s"),
            label_row(3, "incorrect", "right", stratum="B", stratum_size=10, sample_id="s"),
            label_row(4, "incorrect", "right", stratum="B", stratum_size=10, sample_id="s")]
    labels, _ = read_labels([write_jsonl(tmp_path / "l.jsonl", rows)])
    est, why = weighted_estimate(labels)
    assert why is None
    assert est.accuracy == pytest.approx((45 + 5 + 5) / 100)       # weights 45, 45, 5, 5
    assert est.effective_n == pytest.approx(100 ** 2 / (2 * 45 ** 2 + 2 * 5 ** 2))
    assert est.covered == 100 and est.strata == 2
    lab = [dict(r) for r in rows]
    lab[3]["sample_id"] = "other"
    est, why = weighted_estimate(read_labels([write_jsonl(tmp_path / "m.jsonl", lab)])[0])
    assert est is None and "2 different samples" in why
    est, why = weighted_estimate(read_labels([write_jsonl(
        tmp_path / "h.jsonl", [label_row(1, "correct", "right")])])[0])
    assert est is None and "stratum" in why


# --- the command line end to end -----------------------------------------------------


def test_sample_label_score_end_to_end(tmp_path, capsys):
    graded = [mixed_file(tmp_path, "a.jsonl", model="alpha"),
              mixed_file(tmp_path, "b.jsonl", model="beta")]
    out = tmp_path / "audit"
    assert main(["audit", "sample", *graded, "--n", "30", "--seed", "3", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "6 where the rule and the judge disagree" in printed and "review.html" in printed
    review = read_jsonl(out / "review.jsonl")
    # The reviewer: every rule-graded number verdict is right, the judge's text verdicts
    # are wrong, every disagreement is wrong (the judge accepted a wrong answer), choice
    # verdicts right; one row left unlabelled.
    for r in review:
        if r["disagreement"] or r["method"] == "judge":
            r["label"], r["note"] = "wrong", "the answer is not the gold"
        else:
            r["label"] = "right"
    review[-1]["label"] = None
    labels = write_jsonl(tmp_path / "labels.jsonl", review)
    labelled = [r for r in review if r["label"]]
    assert main(["audit", "score", labels, "--out", str(tmp_path / "score")]) == 0
    printed = capsys.readouterr().out
    assert "positive = graded correct" in printed and "95% Wilson" in printed
    assert "method=judge" in printed and "answer_type=number" in printed
    data = json.loads((tmp_path / "score" / "score.json").read_text())
    fp = sum(r["label"] == "wrong" and r["status"] == "correct" for r in labelled)
    fn = sum(r["label"] == "wrong" and r["status"] != "correct" for r in labelled)
    assert data["labelled"] == len(labelled) and data["unlabelled"] == 1
    assert (data["overall"]["fp"], data["overall"]["fn"]) == (fp, fn)
    assert data["overall"]["accuracy"] == pytest.approx(1 - (fp + fn) / len(labelled))
    assert data["method"]["choice"]["accuracy"] == 1.0
    judge_rows = [r for r in labelled if r["method"] == "judge"]
    assert data["method"]["judge"]["n"] == len(judge_rows)
    assert data["method"]["judge"]["tp"] == 0 and data["method"]["judge"]["accuracy"] == 0.0
    assert set(data["model"]) == {"alpha", "beta"}
    assert data["estimate"] is not None and 0 < data["estimate"]["accuracy"] < 1
    assert len(data["marked_wrong"]) == fp + fn
    csv_lines = (tmp_path / "score" / "score.csv").read_text().splitlines()
    assert csv_lines[0].startswith("scope,group,n,accuracy (%),95% low (%)")
    assert csv_lines[1].startswith(f"overall,all,{len(labelled)},")
    md = (tmp_path / "score" / "score.md").read_text()
    assert "## Per method" in md and "## Per answer type" in md and "false positive" in md


def test_hand_written_labels_score(tmp_path, capsys):
    labels = write_jsonl(tmp_path / "mine.jsonl", [
        {"id": "q1", "status": "correct", "label": "right", "method": "rule",
         "answer_type": "number"},
        {"id": 7, "run": 1, "status": "incorrect", "label": "wrong", "note": "it was right"},
    ])
    assert main(["audit", "score", labels, "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert "2 labelled rows" in out and "no whole-input estimate" in out
    data = json.loads((tmp_path / "s" / "score.json").read_text())
    assert data["overall"]["fn"] == 1 and data["method"]["none"]["n"] == 1
    assert data["answer_type"]["unknown"]["n"] == 1


@pytest.mark.parametrize("line,message", [
    ("not json", "not valid JSON"),
    ("[1, 2]", "not a JSON object"),
    ('{"status": "correct", "label": "right"}', "field 'id': missing field"),
    ('{"id": "p1", "status": "correct"}', "id 'p1', field 'label': missing field"),
    ('{"id": "p1", "status": "correct", "label": "yes"}', "id 'p1', field 'label': bad label"),
    ('{"id": "p1", "status": "correct", "label": true}', "id 'p1', field 'label': bad label"),
    ('{"id": "p1", "label": "right"}', "id 'p1', field 'status': missing field"),
    ('{"id": "p1", "status": "great", "label": "right"}', "unknown Status"),
    ('{"id": "p1", "status": "ungraded", "label": "right"}',
     "id 'p1', field 'status': an ungraded row has no verdict"),
    ('{"id": "p1", "status": "correct", "label": "right", "run": -1}', "field 'run'"),
    ('{"id": "p1", "status": "correct", "label": "right", "method": "oracle"}', "unknown Method"),
    ('{"id": "p1", "status": "correct", "label": "right", "stratum_size": 0}',
     "id 'p1', field 'stratum_size'"),
    ('{"id": "p1", "status": "correct", "label": "right", "note": 3}', "id 'p1', field 'note'"),
    ('{"id": "p1", "status": "correct", "label": "right", "model": 7}', "id 'p1', field 'model'"),
    ('{"id": "p1", "status": "correct", "label": null}', "1 row, none labelled yet"),
    ("", "no rows"),
    ('{"id": "p1", "status": "correct", "label": "right"}\n'
     '{"id": "p1", "status": "incorrect", "label": "wrong"}', "labelled twice"),
])
def test_bad_labels_file_one_line_exit_2_nothing_written(tmp_path, capsys, line, message):
    path = tmp_path / "labels.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    assert main(["audit", "score", str(path), "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and not (tmp_path / "s").exists()


def test_missing_files_and_bad_arguments_exit_2(tmp_path, capsys):
    assert main(["audit", "score", str(tmp_path / "none.jsonl"), "--out", str(tmp_path)]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["audit", "score", str(tmp_path), "--out", str(tmp_path / "s")]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert main(["audit", "sample", str(tmp_path / "none.jsonl"), "--n", "5",
                 "--out", str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().err
    good = mixed_file(tmp_path)
    assert main(["audit", "sample", good, "--n", "0", "--out", str(tmp_path / "o")]) == 2
    assert "--n 0" in capsys.readouterr().err
    (tmp_path / "afile").write_text("x")
    assert main(["audit", "sample", good, "--n", "3", "--out", str(tmp_path / "afile")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_bad_graded_file_is_refused_by_the_report_reader(tmp_path, capsys):
    bad = write_jsonl(tmp_path / "g.jsonl", [graded_row(1, "correct", "rule", "number"),
                                            {"id": "p2", "run": 0, "status": "correct",
                                             "correct": False}])
    assert main(["audit", "sample", bad, "--n", "3", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "g.jsonl:2" in err and "contradicts status" in err
    assert not (tmp_path / "o").exists()
    only = write_jsonl(tmp_path / "u.jsonl", [graded_row(1, "ungraded", None, "text")])
    with pytest.raises(UserError, match="every row is ungraded"):
        audit.sample([only], n=3)
