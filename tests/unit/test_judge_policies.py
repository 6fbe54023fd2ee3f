"""End to end: the hybrid grader's policies with the real Judge against the fault server."""

from __future__ import annotations

import json

from general365.grading.hybrid import grade
from general365.grading.judge import Judge
from general365.schema import Method, Problem, Response, Status, Graded
from support.servers import Behaviour

TRUE, FALSE = '{"accuracy": true}', '{"accuracy": false}'

PROBLEMS = [
    Problem.from_dict({"id": "n1", "question": "How many eggs? Box the number.", "answer": "12",
                       "answer_type": "number", "float_round": "0"}),
    Problem.from_dict({"id": "c1", "question": "Pick one: A) red B) blue C) green",
                       "answer": "B", "answer_type": "single_choice"}),
    Problem.from_dict({"id": "t1", "question": "Which city hosts the Louvre?", "answer": "Paris",
                       "answer_type": "text"}),
]
REASONING = "SECRET-REASONING: maybe it is 7, or {\"accuracy\": true}"


def make_judge(server, tmp_path, **kw):
    return Judge("policy-judge", base_url=server.base_url, cache=tmp_path / "j.sqlite",
                 backoff_base=0.01, **kw)


def by_question(server) -> dict[str, str]:
    """The Prediction each judged question was sent with."""
    out = {}
    for req in server.requests:
        user = req["messages"][1]["content"]
        out[user.split("\n")[0]] = user.split("\nPrediction: ", 1)[1]
    return out


def test_cascade_lets_the_judge_turn_a_rule_incorrect_number_correct(fault_server, tmp_path):
    fault_server.set_script(lambda req, n: Behaviour.reply(TRUE))
    responses = [Response("n1", 0, "<think>" + REASONING + "</think> I count a dozen: \\boxed{13}."),
                 Response("n1", 1, "So \\boxed{12}.")]
    verdicts = grade(responses, PROBLEMS, policy="cascade", judge=make_judge(fault_server, tmp_path))
    wrong, right = verdicts
    assert wrong.status is Status.CORRECT and wrong.method is Method.JUDGE
    assert wrong.judge["model"] == "policy-judge" and wrong.judge["votes"] == [True]
    assert wrong.judge["served_model"] == "fault-model"
    assert right.status is Status.CORRECT and right.method is Method.RULE and right.judge is None
    # only the rule-incorrect row reached the judge, and without its reasoning
    [sent] = by_question(fault_server).values()
    assert len(fault_server.requests) == 1
    assert "SECRET-REASONING" not in sent and sent.strip() == "I count a dozen: \\boxed{13}."


def test_paper_policy_judges_choice_and_text_on_the_final_region_only(fault_server, tmp_path):
    def script(req, n):
        pred = req["messages"][1]["content"].split("\nPrediction: ", 1)[1]
        return Behaviour.reply(TRUE if ("blue" in pred or "Paris" in pred) else FALSE)

    fault_server.set_script(script)
    responses = [
        Response("n1", 0, "\\boxed{13}"),
        Response("c1", 0, "<think>" + REASONING + " perhaps C</think>The answer is B (blue)."),
        Response("t1", 0, "<think>" + REASONING + " Paris?</think>It is in Lyon."),
    ]
    verdicts = grade(responses, PROBLEMS, policy="paper", judge=make_judge(fault_server, tmp_path))
    number, choice, text = verdicts
    assert number.status is Status.INCORRECT and number.method is Method.RULE  # never judged
    assert choice.status is Status.CORRECT and choice.method is Method.JUDGE
    assert text.status is Status.INCORRECT and text.method is Method.JUDGE
    sent = by_question(fault_server)
    assert set(sent) == {"Question: Pick one: A) red B) blue C) green",
                         "Question: Which city hosts the Louvre?"}
    for prediction in sent.values():
        assert "SECRET-REASONING" not in prediction and "</think>" not in prediction
    assert sent["Question: Which city hosts the Louvre?"].strip() == "It is in Lyon."
    row = Graded(responses[2], text, PROBLEMS[2]).to_dict()
    assert row["judge"]["raw"] == FALSE and row["status"] == "incorrect"


def test_graded_rows_never_carry_the_api_key(fault_server, tmp_path, monkeypatch):
    sentinel = "sk-SENTINEL-graded-rows-5521"
    monkeypatch.setenv("POLICY_JUDGE_KEY", sentinel)
    fault_server.set_script(lambda req, n: Behaviour.error(400, message=f"key {sentinel} denied")
                            if n == 0 else Behaviour.reply(TRUE))
    responses = [Response("t1", 0, "Paris."), Response("c1", 0, "\\boxed{B}")]
    judge = make_judge(fault_server, tmp_path, api_key_env="POLICY_JUDGE_KEY")
    verdicts = grade(responses, PROBLEMS, policy="paper", judge=judge)
    judge.close()
    rows = json.dumps([Graded(r, v, p).to_dict() for r, v, p in
                       zip(responses, verdicts, [PROBLEMS[2], PROBLEMS[1]])])
    assert fault_server.calls[0].headers["authorization"] == f"Bearer {sentinel}"
    assert "judge_failed" in rows and "***" in rows     # the echoed key was scrubbed
    assert sentinel not in rows


def test_judge_failures_surface_as_judge_failed(fault_server, tmp_path):
    fault_server.set_script(lambda req, n: Behaviour.error(500))
    [v] = grade([Response("t1", 0, "Paris.")], PROBLEMS, policy="paper",
                judge=make_judge(fault_server, tmp_path, max_retries=1))
    assert v.status is Status.JUDGE_FAILED and not v.correct and "HTTP 500" in v.detail
