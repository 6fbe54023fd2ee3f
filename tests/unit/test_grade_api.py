"""`general365.grade` and `grade_iter`: inputs, policies, the judge seam, the summary.

The judge here is a scripted stand-in with `judge_batch` (the real client and its server
test belong to judge.py's tests); the rule grader and its pool are real."""

from __future__ import annotations

import pytest

import general365
from general365.errors import DataError, UserError
from general365.grading.hybrid import grade_iter
from general365.grading.judge import JudgeItem, JudgeResult
from general365.grading.summary import GradeSummary
from general365.schema import Method, Problem, Response, Status


class ScriptedJudge:
    """Says "correct" when the gold text appears in the prediction; "fails" on request."""

    def __init__(self, fail_on: str | None = None, always: bool | None = None):
        self.items: list[JudgeItem] = []
        self.calls = 0
        self.fail_on = fail_on
        self.always = always

    def judge_batch(self, items):
        self.calls += 1
        self.items.extend(items)
        out = []
        for it in items:
            if self.fail_on and self.fail_on in it.prediction:
                out.append(JudgeResult(Status.JUDGE_FAILED, "scripted", None, [],
                                       "reply had no accuracy field"))
                continue
            ok = self.always if self.always is not None else it.gold.lower() in it.prediction.lower()
            out.append(JudgeResult(Status.CORRECT if ok else Status.INCORRECT, "scripted",
                                   '{"accuracy": %s}' % str(ok).lower(), [ok]))
        return out


PROBLEMS = [
    Problem("n1", "How many?", "12", general365.AnswerType.NUMBER),
    Problem("i1", "Where?", "[2,5)", general365.AnswerType.INTERVAL),
    Problem("c1", "Which?", "BD", general365.AnswerType.MULTIPLE_CHOICE),
    Problem("s1", "Which one?", "A", general365.AnswerType.SINGLE_CHOICE),
    Problem("t1", "Capital of France?", "Paris", general365.AnswerType.TEXT,
            categories=(general365.Category.SPATIAL_TEMPORAL,)),
]


def resp(pid, text, run=0):
    return Response(pid, run, text)


def test_problems_as_list_dict_by_id_or_dicts():
    rs = [resp("n1", r"\boxed{12}"), resp("i1", r"\boxed{[2,5)}")]
    a = general365.grade(rs, PROBLEMS, policy="rule")
    b = general365.grade(rs, {p.id: p for p in PROBLEMS}, policy="rule")
    c = general365.grade([r.to_dict() for r in rs], [p.to_dict() for p in PROBLEMS], policy="rule")
    assert [v.status for v in a] == [v.status for v in b] == [v.status for v in c] == [Status.CORRECT] * 2


def test_inline_gold():
    rows = [{"id": "x", "run": 1, "response": r"\boxed{2.666}", "answer": "2.67",
             "answer_type": "number", "float_round": 2}]
    [v] = general365.grade(rows, policy="rule")
    assert v.status is Status.CORRECT and (v.id, v.run) == ("x", 1)


def test_repeated_inline_golds_are_read_once_yet_every_row_is_checked():
    # The runs of a problem carry the same inline gold (read once); a row whose gold differs
    # only by type (float_round `true` vs 1) is still refused, and a row with another gold
    # is graded against its own.
    same = {"id": "x", "response": r"\boxed{2.7}", "answer": "2.67", "answer_type": "number",
            "float_round": 1}
    vs = general365.grade([dict(same, run=0), dict(same, run=1),
                           dict(same, run=2, answer="2.66")], policy="rule")
    assert [v.status for v in vs] == [Status.CORRECT, Status.CORRECT, Status.CORRECT]
    vs = general365.grade([dict(same, run=0), dict(same, run=1, answer="3.5")], policy="rule")
    assert [v.status for v in vs] == [Status.CORRECT, Status.INCORRECT]
    with pytest.raises(DataError, match="float_round") as err:
        general365.grade([dict(same, run=0), dict(same, run=1, float_round=True)],
                         policy="rule")
    assert err.value.field == "float_round"


def test_unknown_id_is_one_data_error_naming_it():
    with pytest.raises(DataError) as err:
        general365.grade([resp("n1", "1"), resp("nope-9", "1")], PROBLEMS, policy="rule")
    assert "nope-9" in str(err.value) and "'id'" in str(err.value)


def test_no_gold_and_no_problems_is_a_data_error():
    with pytest.raises(DataError, match="no gold"):
        general365.grade([resp("n1", "1")], policy="rule")


def test_bad_response_dict_names_the_field():
    with pytest.raises(DataError, match="'response'"):
        general365.grade([{"id": "n1", "run": 0}], PROBLEMS, policy="rule")


@pytest.mark.parametrize("policy", ["paper", "cascade"])
def test_judge_policies_without_a_judge_say_how_to_give_one(policy):
    with pytest.raises(UserError) as err:
        general365.grade([resp("n1", "1")], PROBLEMS, policy=policy)
    assert "judge=" in str(err.value) and "--judge-model" in str(err.value)


def test_unknown_policy():
    with pytest.raises(UserError, match="unknown grading policy"):
        general365.grade([resp("n1", "1")], PROBLEMS, policy="vibes")


def test_rule_policy_leaves_text_ungraded_and_reports_coverage():
    rs = [resp("n1", r"\boxed{12}"), resp("c1", r"\boxed{B, D}"), resp("t1", "Paris")]
    vs = general365.grade(rs, PROBLEMS, policy="rule")
    assert [v.status for v in vs] == [Status.CORRECT, Status.CORRECT, Status.UNGRADED]
    assert vs[1].method is Method.CHOICE and vs[2].method is None
    s = GradeSummary.from_verdicts(vs, PROBLEMS)
    assert s.accuracy == 1.0 and s.coverage == pytest.approx(2 / 3)
    assert "ungraded" in s.render() and "coverage" in s.render()


def test_paper_policy_judges_choice_and_text_with_the_region_only():
    judge = ScriptedJudge()
    rs = [resp("n1", r"\boxed{12}"), resp("c1", r"<think>maybe A</think>\boxed{B, D}"),
          resp("t1", "<think>Lyon? no.</think>It is Paris."), resp("s1", "<think>A</think>")]
    vs = general365.grade(rs, PROBLEMS, policy="paper", judge=judge)
    assert vs[0].method is Method.RULE and vs[0].status is Status.CORRECT
    assert [i.prediction for i in judge.items] == [r"\boxed{B, D}", "It is Paris."]
    assert judge.items[1].question == "Capital of France?" and judge.items[1].gold == "Paris"
    # The judge's word is the verdict (scripted: "BD" is not in "\boxed{B, D}").
    assert vs[1].method is Method.JUDGE and vs[1].status is Status.INCORRECT
    assert vs[2].method is Method.JUDGE and vs[2].status is Status.CORRECT
    assert vs[2].judge["model"] == "scripted" and vs[2].judge["votes"] == [True]
    assert vs[2].judge["raw"] == '{"accuracy": true}'
    assert vs[3].status is Status.NO_ANSWER  # nothing after the reasoning: no judge call


def test_cut_off_reasoning_is_never_sent_to_the_judge():
    judge = ScriptedJudge(always=True)
    rs = [resp("t1", "<think>Paris is the capital, so"), resp("c1", "<think>B and D")]
    for policy in ("paper", "cascade"):
        vs = general365.grade(rs, PROBLEMS, policy=policy, judge=judge)
        assert [v.status for v in vs] == [Status.NO_ANSWER] * 2
    assert judge.items == []


def test_cascade_judge_true_turns_the_verdict_to_correct():
    judge = ScriptedJudge(always=True)
    rs = [resp("n1", "It is twelve."), resp("c1", r"\boxed{B, D}"), resp("i1", r"\boxed{[2,5]}")]
    vs = general365.grade(rs, PROBLEMS, policy="cascade", judge=judge)
    assert vs[0].status is Status.CORRECT and vs[0].method is Method.JUDGE
    assert "rule: no_answer" in vs[0].detail
    assert vs[1].status is Status.CORRECT and vs[1].method is Method.CHOICE  # not re-judged
    assert vs[2].status is Status.CORRECT and vs[2].method is Method.JUDGE
    assert [i.prediction for i in judge.items] == ["It is twelve.", r"\boxed{[2,5]}"]


def test_cascade_judge_false_keeps_incorrect_and_option_text_can_be_rescued():
    judge = ScriptedJudge()
    p = Problem("c2", "Capital? (A) Paris (B) Lyon", "A", general365.AnswerType.SINGLE_CHOICE)
    vs = general365.grade([resp("c2", r"\boxed{Paris}"), resp("n1", r"\boxed{13}")],
                          [p, *PROBLEMS], policy="cascade", judge=judge)
    assert vs[1].status is Status.INCORRECT and vs[1].method is Method.JUDGE
    # Rule: "Paris" names no letter; the judge (gold "A") says no here, as scripted.
    assert vs[0].method is Method.JUDGE and "choice: incorrect" in vs[0].detail


def test_judge_failure_is_its_own_status():
    judge = ScriptedJudge(fail_on="Lyon")
    vs = general365.grade([resp("t1", "Lyon")], PROBLEMS, policy="paper", judge=judge)
    assert vs[0].status is Status.JUDGE_FAILED and not vs[0].correct
    assert "accuracy" in vs[0].detail
    s = GradeSummary.from_verdicts(vs, PROBLEMS)
    assert s.counts["judge_failed"] == 1 and s.accuracy == 0.0


def test_choice_gold_without_letters_is_ungraded_under_rule():
    p = Problem("c3", "Pick", "Paris", general365.AnswerType.SINGLE_CHOICE)
    [v] = general365.grade([resp("c3", r"\boxed{Paris}")], [p], policy="rule")
    assert v.status is Status.UNGRADED and "option letter" in v.detail


def test_timeout_rows_are_counted_not_hidden():
    vs = general365.grade([resp("n1", r"\boxed{9^{9^{9^{9}}}}"), resp("n1", r"\boxed{12}", 1)],
                          PROBLEMS, policy="rule", timeout=1.0)
    assert [v.status for v in vs] == [Status.TIMEOUT, Status.CORRECT]
    s = GradeSummary.from_verdicts(vs, PROBLEMS)
    assert s.counts["timeout"] == 1 and s.accuracy == 0.5


def test_stream_in_chunks_keeps_order_and_judges_per_chunk():
    judge = ScriptedJudge()
    texts = [r"\boxed{12}", r"\boxed{2^{2}\cdot 3}", r"\boxed{13}", "Paris", "none"]
    ids = ["n1", "n1", "n1", "t1", "n1"]

    def gen():
        for n in range(50):
            yield resp(ids[n % 5], texts[n % 5], run=n)

    out = list(grade_iter(gen(), PROBLEMS, policy="paper", judge=judge, chunk_size=7))
    assert [g.verdict.run for g in out] == list(range(50))
    want = [Status.CORRECT, Status.CORRECT, Status.INCORRECT, Status.CORRECT, Status.NO_ANSWER]
    assert [g.verdict.status for g in out] == want * 10
    assert judge.calls == len([c for c in range(0, 50, 7) if any((n % 5) == 3 for n in range(c, min(c + 7, 50)))])
    assert all(isinstance(g.problem, Problem) for g in out)


def test_summary_per_type_and_category():
    judge = ScriptedJudge()
    vs = general365.grade([resp("n1", r"\boxed{12}"), resp("t1", "Paris"), resp("t1", "Rome", 1)],
                          PROBLEMS, policy="paper", judge=judge)
    s = GradeSummary.from_verdicts(vs, PROBLEMS)
    assert s.by_type["number"].accuracy == 1.0 and s.by_type["text"].accuracy == 0.5
    assert s.by_category["Spatial & Temporal"].graded == 2
    assert s.to_dict()["statuses"]["incorrect"] == 1
    text = s.render()
    assert "66.7%" in text and "Spatial & Temporal" in text


def test_gold_parsed_once_per_problem_not_per_response(monkeypatch):
    import general365.grading.hybrid as hybrid

    calls = []
    real = hybrid.parse_gold
    monkeypatch.setattr(hybrid, "parse_gold", lambda *a: calls.append(a[0]) or real(*a))
    rs = [resp("n1", r"\boxed{12}", run=i) for i in range(30)]
    rs += [resp("i1", r"\boxed{2\le x<5}", run=i) for i in range(30)]
    vs = general365.grade(rs, PROBLEMS, policy="rule", chunk_size=7)
    assert all(v.correct for v in vs)
    assert sorted(calls) == ["12", "[2,5)"]


def test_identical_answers_go_to_math_verify_once():
    from general365.grading.pool import RulePool

    with RulePool(1) as pool:
        rs = [resp("n1", r"\boxed{\sqrt{144}}", run=i) for i in range(20)]
        out = list(grade_iter(rs, PROBLEMS, policy="rule", pool=pool, chunk_size=5))
        assert [g.verdict.status for g in out] == [Status.CORRECT] * 20
        assert pool.graded == 1


def test_identical_plain_answers_are_compared_once(monkeypatch):
    import general365.grading.hybrid as hybrid

    calls = []
    real = hybrid.grade_fast
    monkeypatch.setattr(hybrid, "grade_fast", lambda g, c: calls.append(c) or real(g, c))
    rs = [resp("n1", r"\boxed{12}" if i % 3 else r"\boxed{13}", run=i) for i in range(30)]
    rs += [resp("i1", r"\boxed{[2,5)}", run=i) for i in range(10)]
    vs = general365.grade(rs, PROBLEMS, policy="rule", chunk_size=7)
    assert [v.status for v in vs[:30]] == [Status.INCORRECT if i % 3 == 0 else Status.CORRECT
                                           for i in range(30)]
    assert all(v.correct for v in vs[30:])
    assert sorted(calls) == ["12", "13", "[2,5)"]


def test_chunks_are_read_ahead_while_the_pool_lags_and_come_out_in_order():
    # The pool's first answers can take seconds (its server starting): meanwhile the
    # grader reads and fast-grades up to MAX_IN_FLIGHT chunks, never more, and the verdicts
    # still come out in input order.
    import threading
    import time

    from general365.grading.hybrid import MAX_IN_FLIGHT
    from general365.grading.pool import RulePool

    gate, read = threading.Event(), []

    class LaggingPool(RulePool):   # a real pool whose answers wait for the gate
        def map(self, tasks, timeout=5.0):
            gate.wait(120)
            return super().map(tasks, timeout)

    def stream():
        for i in range(40):
            read.append(i)
            yield resp("n1", r"\boxed{\sqrt{144}}" if i % 5 == 0 else rf"\boxed{{{10 + i % 3}}}",
                       run=i)

    with LaggingPool(1) as pool:
        out: list = []
        worker = threading.Thread(target=lambda: out.extend(
            grade_iter(stream(), PROBLEMS, policy="rule", pool=pool, chunk_size=5)))
        worker.start()
        deadline = time.monotonic() + 60
        while len(read) < MAX_IN_FLIGHT * 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        assert len(read) == MAX_IN_FLIGHT * 5 and not out   # read ahead, then it waits
        gate.set()
        worker.join(120)
        assert [g.response.run for g in out] == list(range(40))
        assert [g.verdict.status for g in out] == [
            Status.CORRECT if i % 5 == 0 or i % 3 == 2 else Status.INCORRECT
            for i in range(40)]
        assert pool.graded == 1   # the shared answer went to math-verify once


def test_no_policy_named_is_rule_without_a_judge_as_in_the_design_example():
    # DESIGN.md: `general365.grade(responses, problems, judge=None)` must just work.
    import general365

    problems = [{"id": "n", "question": "q", "answer": "12", "answer_type": "number"},
                {"id": "t", "question": "q", "answer": "Paris", "answer_type": "text"}]
    responses = [{"id": "n", "run": 0, "response": r"\boxed{12}"},
                 {"id": "t", "run": 0, "response": r"\boxed{Paris}"}]
    verdicts = general365.grade(responses, problems, judge=None)
    assert [v.status.value for v in verdicts] == ["correct", "ungraded"]


def test_naming_a_judge_policy_without_a_judge_is_still_refused():
    import general365

    with pytest.raises(general365.UserError, match="judge"):
        general365.grade([{"id": "n", "run": 0, "response": "x"}],
                         [{"id": "n", "question": "q", "answer": "1", "answer_type": "number"}],
                         policy="paper")
