"""general365.rewards: TRL-style reward functions on the real grader (fast path, the shared
math-verify pool, the letter grader, the judge client against a scripted server)."""

from __future__ import annotations

import json
import logging
import pickle
import random
import threading

import pytest

import general365
from general365.grading.extract import extract
from general365.grading.pool import shared_pool
from general365.rewards import (STATUSES, AccuracyReward, accuracy_reward, completion_parts,
                                graded_tail, format_reward, format_status)
from general365.errors import UserError

COLS = {
    "answer": ["12", "12", "4", "[2,5)", "C", "BD", "BD", "Paris", "0.75"],
    "answer_type": ["number", "number", "number", "interval", "single_choice",
                    "multiple_choice", "multiple_choice", "text", "number"],
    "float_round": [0, 0, 0, 0, 0, 0, 0, 0, 2],
}
COMPLETIONS = [
    "<think>6+6</think> so \\boxed{12}",          # correct, fast path
    "<think>\\boxed{12}</think> \\boxed{13}",     # incorrect: the reasoning's box does not count
    "<think>...</think> $\\boxed{\\sqrt{16}}$",  # correct, math-verify in the pool
    "</think>Hence $x \\in \\boxed{2 \\le x < 5}$",  # correct (the <think> was in the prompt)
    "<think>hmm</think>\nAnswer: C",             # correct, letter grader, a statement
    "<think>x</think> \\boxed{D, B}",            # correct: order ignored
    "<think>x</think> \\boxed{B}",               # incorrect: not all letters
    "<think>x</think> \\boxed{Paris}",           # text, no judge: ungraded
    "<think>x</think> \\boxed{\\frac{3}{4}}",    # correct at 2 places
]
EXPECTED = [1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0]
EXPECTED_STATUS = ["correct", "incorrect", "correct", "correct", "correct", "correct",
                   "incorrect", "ungraded", "correct"]


def chat(text):
    return [{"role": "assistant", "content": text}]


def test_strings_and_conversational_completions_score_alike():
    assert accuracy_reward(COMPLETIONS, **COLS) == EXPECTED
    assert accuracy_reward.last_statuses == EXPECTED_STATUS
    assert accuracy_reward([chat(c) for c in COMPLETIONS], **COLS) == EXPECTED
    # TRL passes every dataset column and its own keyword arguments too
    extra = {"prompts": ["q"] * 9, "completion_ids": [[1]] * 9, "trainer_state": None,
             "id": list("abcdefghi"), "reasoning": [""] * 9}
    assert accuracy_reward(COMPLETIONS, **COLS, **extra) == EXPECTED


def test_results_say_why():
    r = AccuracyReward().score(COMPLETIONS, **COLS)
    assert [x.extracted for x in r][:3] == ["12", "13", "\\sqrt{16}"]
    assert [x.method for x in r] == ["rule"] * 4 + ["choice"] * 3 + [None, "rule"]
    assert "judge" in r[7].detail


def test_statuses_go_to_trls_loggers():
    metrics, extra = [], {}
    reward = AccuracyReward()
    out = reward(COMPLETIONS, **COLS, log_metric=lambda k, v: metrics.append((k, v)),
                 log_extra=lambda k, v: extra.setdefault(k, []).extend(v))
    assert out == EXPECTED
    names = [k for k, _ in metrics]
    assert names == [f"general365/{s}" for s in STATUSES]  # every status, every batch
    shares = dict(metrics)
    assert shares["general365/correct"] == pytest.approx(6 / 9)
    assert shares["general365/ungraded"] == pytest.approx(1 / 9)
    assert sum(shares.values()) == pytest.approx(1.0)
    # one compact column by default: "status: answer"
    assert list(extra) == ["general365"]
    assert [v.split(":")[0] for v in extra["general365"]] == EXPECTED_STATUS
    assert extra["general365"][4] == "correct: C"


def test_the_full_columns_are_opt_in_and_none_adds_none():
    full, none = {}, {}
    AccuracyReward(columns="full")(COMPLETIONS, **COLS,
                                   log_extra=lambda k, v: full.setdefault(k, []).extend(v))
    assert full["general365_status"] == EXPECTED_STATUS
    assert full["general365_answer"][4] == "C"
    AccuracyReward(columns="none")(COMPLETIONS, **COLS,
                                   log_extra=lambda k, v: none.setdefault(k, []).extend(v))
    assert none == {}
    with pytest.raises(UserError, match="columns must be one of compact, full, none"):
        AccuracyReward(columns="wide")


def test_the_compact_column_cuts_a_long_answer():
    from general365.rewards import RewardResult, compact

    assert compact(RewardResult(0.0, "no_answer")) == "no_answer"
    long = compact(RewardResult(0.0, "incorrect", extracted="x" * 100))
    assert long.startswith("incorrect: x") and len(long) == len("incorrect: ") + 24


def test_text_answers_without_a_judge_can_give_no_reward():
    reward = AccuracyReward(ungraded_reward=None)
    out = reward(COMPLETIONS, **COLS)
    assert out[7] is None and out[:7] == EXPECTED[:7]


MEGABYTE = "lorem ipsum \\frac{1}{2} " * 45_000


@pytest.mark.parametrize("completion, reward, status", [
    (None, 0.0, "no_answer"),
    ("", 0.0, "no_answer"),
    (12, 0.0, "no_answer"),
    ([1, 2], 0.0, "no_answer"),
    ([{"role": "user", "content": "\\boxed{4}"}], 0.0, "no_answer"),  # no assistant turn
    (b"\xff\xfe</think>\\boxed{4}", 1.0, "correct"),        # bad bytes replaced, answer kept
    ("\udcff\ud800</think> \\boxed{4}", 1.0, "correct"),      # lone surrogates
    ("<think>" + MEGABYTE, 0.0, "no_answer"),                  # cut off, a megabyte long
    (MEGABYTE, 0.0, "no_answer"),                              # no marker, no answer
    ("<think>" + MEGABYTE + "</think>\\boxed{4}", 1.0, "correct"),
    # a 200,000-digit answer: the fast path leaves it to math-verify, under the time limit
    ("</think>\\boxed{" + "9" * 200_000 + "}", 0.0, ("incorrect", "timeout")),
    ("</think>\\boxed{}", 0.0, "no_answer"),
    ([{"role": "assistant", "content": [{"type": "text", "text": "</think>\\boxed"},
                                        {"type": "text", "text": "{4}"}]}], 1.0, "correct"),
    ({"role": "assistant", "content": "\\boxed{4}"}, 1.0, "correct"),
])
def test_never_raises_on_any_completion(completion, reward, status):
    out = AccuracyReward(timeout=1.0).score([completion], answer=["4"],
                                            answer_type=["number"], float_round=[0])
    assert out[0].reward == reward
    assert out[0].status in ((status,) if isinstance(status, str) else status)


def test_the_last_assistant_turn_is_graded():
    turns = [{"role": "assistant", "content": "<think>a</think>\\boxed{3}"},
             {"role": "tool", "content": "\\boxed{4}"},
             {"role": "assistant", "content": "<think>b</think>\\boxed{4}"}]
    assert accuracy_reward([turns], answer=["4"], answer_type=["number"], float_round=[0]) == [1.0]


def test_bad_reference_rows_score_zero_and_are_logged_once(caplog):
    reward = AccuracyReward()
    cols = {"answer": ["abc", "4", "4", "abc"], "answer_type": ["number", "numbr", "number", "number"],
            "float_round": [0, 0, "x", 0]}
    with caplog.at_level(logging.WARNING, logger="general365.rewards"):
        out = reward(["\\boxed{4}"] * 4, **cols)
        reward(["\\boxed{4}"] * 4, **cols)
    assert out == [0.0] * 4
    assert reward.last_statuses == ["invalid_reference"] * 4
    assert "answer_type" in reward.last_results[1].detail
    assert len([r for r in caplog.records if "reference row" in r.message]) == 3
    # a good row beside bad ones is still graded
    out = reward(["\\boxed{4}", "\\boxed{4}"], answer=["abc", "4"], answer_type=["number"] * 2,
                 float_round=[0, 0])
    assert out == [0.0, 1.0]


def test_missing_or_misaligned_columns_are_one_clear_error():
    with pytest.raises(general365.UserError, match="'answer' column"):
        accuracy_reward(["\\boxed{4}"], answer_type=["number"], float_round=[0])
    with pytest.raises(general365.UserError, match="'answer_type' column"):
        accuracy_reward(["\\boxed{4}"], answer=["4"])
    with pytest.raises(general365.UserError, match="2 values for 1 completions"):
        accuracy_reward(["\\boxed{4}"], answer=["4", "5"], answer_type=["number"])
    # float_round may be left out: exact golds
    assert accuracy_reward(["\\boxed{4}"], answer=["4"], answer_type=["number"]) == [1.0]


def test_same_verdicts_as_the_grader_on_the_whole_sample():
    """The reward's shortcuts (the text after the last close marker, verdicts shared by
    equal answers) give exactly `general365.grade(policy="rule")`'s verdicts."""
    problems = general365.load_problems(source="sample")
    rng = random.Random(7)
    forms = ["\\boxed{%s}", "<think>r \\boxed{1}</think>\\boxed{%s}", "<think>%s",
             "</think> Final answer: %s", "<think>a</think><think>b</think> \\boxed{%s}",
             "<seed:think>x</seed:think> \\boxed{%s}", "<think>x</think>y<think>z \\boxed{%s}",
             "\\boxed{\\sqrt{%s}}", "\\boxed{-%s}", "<thinking>x</thinking>\\boxed{%s}"]
    responses, completions, cols = [], [], {"answer": [], "answer_type": [], "float_round": []}
    for run in range(3):
        for p in problems:
            text = rng.choice(forms) % p.answer
            responses.append({"id": p.id, "run": run, "response": text})
            completions.append(text)
            cols["answer"].append(p.answer)
            cols["answer_type"].append(p.answer_type.value)
            cols["float_round"].append(p.float_round)
    verdicts = general365.grade(responses, problems, policy="rule")
    reward = AccuracyReward()
    for _ in range(2):  # the second time, every verdict comes from the reward's memory
        results = reward.score(completions, **cols)
        assert [r.status for r in results] == [v.status.value for v in verdicts]
        assert [r.extracted for r in results] == [v.extracted for v in verdicts]
        assert [r.reward for r in results] == [float(v.correct) for v in verdicts]


@pytest.mark.parametrize("text", [
    "<think>a</think>b", "</think>b", "a</think>", "<think>a", "plain \\boxed{1}",
    "<think>a</think>b<think>c", "<think>a</think>\\boxed{1}</think>\\boxed{2}",
    "<think>a</thinking>b</think>c", "<seed:think>a</seed:think>\\boxed{3} <think>",
    "\u25c1think\u25b7a\u25c1/think\u25b7\\boxed{5}", "<|begin_of_thought|>a<|end_of_thought|>b",
    "<reasoning>x</reasoning><think>y</think>\\boxed{6}", "<think>y</think></reasoning>z",
])
def test_graded_tail_extracts_as_the_whole_text(text):
    assert extract(graded_tail(text)) == extract(text)


def test_no_pool_is_started_per_call():
    reward = AccuracyReward()
    batch = ["</think>\\boxed{\\sqrt{%d}}" % (n * n) for n in range(2, 6)]
    cols = {"answer": ["2", "3", "4", "6"], "answer_type": ["number"] * 4, "float_round": [0] * 4}
    assert reward(batch, **cols) == [1.0, 1.0, 1.0, 0.0]
    pool = shared_pool()
    server, pids, sent = pool.server_pid, pool.pids(), pool.graded
    assert server is not None and pids
    batch = ["</think>\\boxed{2^{%d}}" % n for n in range(1, 5)]
    cols["answer"] = ["2", "4", "8", "15"]
    assert reward(batch, **cols) == [1.0, 1.0, 1.0, 0.0]
    assert (pool.server_pid, pool.pids()) == (server, pids)
    assert pool.graded == sent + 4
    # already graded answers come from the reward's memory: nothing more goes to the pool
    assert reward(batch, **cols) == [1.0, 1.0, 1.0, 0.0]
    assert pool.graded == sent + 4


def test_a_math_verify_timeout_is_a_zero_not_a_crash():
    reward = AccuracyReward(timeout=0.5)
    out = reward(["</think>\\boxed{9^{9^{9^{9^{9}}}}}", "</think>\\boxed{4}"],
                 answer=["3", "4"], answer_type=["number"] * 2, float_round=[0, 0])
    assert out == [0.0, 1.0]
    assert reward.last_statuses[0] in ("timeout", "incorrect")


def test_warm_up_starts_the_shared_pool():
    reward = AccuracyReward()
    reward.warm_up(wait=True)
    pool = shared_pool()
    assert pool.server_pid is not None and pool.pids()
    # interval answers' machinery is warm too, in every worker (a first mixed batch after
    # warm_up() would otherwise wait for it and for the workers' replacement)
    assert pool._workers and all("interval" in w.warm for w in pool._workers)


def test_threads_grade_their_own_batches():
    reward = AccuracyReward()
    out: dict[int, list] = {}

    def work(k):
        answers = [str(k * 10 + i) for i in range(20)]
        texts = ["</think>\\boxed{%s}" % (a if i % 2 else int(a) + 1) for i, a in enumerate(answers)]
        out[k] = reward.score(texts, answer=answers, answer_type=["number"] * 20)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        assert [r.reward for r in out[k]] == [float(i % 2) for i in range(20)]


def test_pickles_for_multi_process_trainers():
    reward = AccuracyReward(timeout=2.0, name="acc")
    reward(COMPLETIONS, **COLS)
    copy = pickle.loads(pickle.dumps(reward))
    assert copy.__name__ == "acc" and copy.timeout == 2.0 and copy.last_results == []
    assert copy(COMPLETIONS, **COLS) == EXPECTED
    assert pickle.loads(pickle.dumps(accuracy_reward))(COMPLETIONS, **COLS) == EXPECTED


def test_trl_names_them():
    assert accuracy_reward.__name__ == "general365_accuracy"
    assert format_reward.__name__ == "general365_format"


def test_a_judge_grades_text_answers_only(fault_server, tmp_path):
    from support.servers import Behaviour

    from general365.grading.judge import Judge

    def script(request, n):
        user = request["messages"][-1]["content"]
        return Behaviour.reply('{"accuracy": %s}' % ("true" if "Paris" in user.split("Prediction:")[-1]
                                                     else "false"))

    fault_server.set_script(script)
    judge = Judge("judge-x", base_url=fault_server.base_url, cache=str(tmp_path / "j.sqlite"),
                  backoff_base=0.01)
    reward = AccuracyReward(judge=judge)
    texts = ["<think>London?</think>\\boxed{Paris}", "<think>x</think> \\boxed{Rome}",
             "<think>x</think>\\boxed{12}", "<think>never closed \\boxed{Paris}"]
    out = reward(texts, answer=["Paris", "Paris", "12", "Paris"],
                 answer_type=["text", "text", "number", "text"], float_round=[0] * 4,
                 question=["Capital of France?", "Capital of France?", "6+6?", "Capital?"])
    assert out == [1.0, 0.0, 1.0, 0.0]
    assert reward.last_statuses == ["correct", "incorrect", "correct", "no_answer"]
    assert [r.method for r in reward.last_results][:3] == ["judge", "judge", "rule"]
    # only the two answered text rows were asked about, never their reasoning
    assert len(fault_server.requests) == 2
    assert all("London" not in json.dumps(r) for r in fault_server.requests)


def test_a_failing_judge_scores_zero_and_says_so(fault_server, tmp_path):
    from support.servers import Behaviour

    from general365.grading.judge import Judge

    fault_server.set_script(lambda request, n: Behaviour.reply("not json at all"))
    judge = Judge("judge-x", base_url=fault_server.base_url, cache=False, max_reasks=0,
                  backoff_base=0.01)
    reward = AccuracyReward(judge=judge)
    assert reward(["</think>\\boxed{Paris}"], answer=["Paris"], answer_type=["text"],
                  question=["Capital?"]) == [0.0]
    assert reward.last_statuses == ["judge_failed"]


def test_a_judge_must_be_a_judge():
    with pytest.raises(general365.UserError, match="^judge must have a judge_batch"):
        AccuracyReward(judge="gpt-4.1")


@pytest.mark.parametrize("kwargs, message", [
    ({"timeout": 0}, "^timeout must be a positive number of seconds"),
    ({"timeout": float("nan")}, "^timeout must be a positive"),
    ({"workers": 0}, "^workers must be at least 1"),
    ({"workers": 2.5}, "^workers must be at least 1"),
    ({"ungraded_reward": "0"}, "^ungraded_reward must be a number or None"),
])
def test_bad_options_are_refused_when_made_not_scored_zero(kwargs, message):
    # inside a call they could only turn every reward into 0.0 with status `error`
    with pytest.raises(general365.errors.OptionError, match=message):
        AccuracyReward(**kwargs)


# --- format ------------------------------------------------------------------------------


@pytest.mark.parametrize("completion, answer_type, status", [
    ("<think>r</think> \\boxed{4}", "number", "ok"),
    ("r</think> \\boxed{4}", "number", "ok"),                   # <think> in the prompt
    ("\\boxed{4}", "number", "no_reasoning"),
    ("<think>r \\boxed{4}", "number", "unclosed_reasoning"),
    ("<think>r</think> I think it is 4", "number", "no_answer"),
    ("<think>r</think> \\boxed{}", "number", "no_answer"),
    ("<think>r</think> Final answer: 4", "number", "no_box"),
    ("<think>r</think> Answer: C", "single_choice", "ok"),
    ("<think>r</think> \\boxed{B, D}", "multiple_choice", "ok"),
    ("<think>r</think> \\boxed{Paris}", "single_choice", "no_option_letter"),
    ("<think>r</think> Answer: C", None, "ok"),
    ("<think>r</think> \\boxed{x}", "not-a-type", "ok"),
    ([{"role": "assistant", "content": "\\boxed{4}", "reasoning_content": "r"}], "number", "ok"),
    (None, "number", "no_reasoning"),
])
def test_format_status(completion, answer_type, status):
    assert format_status(completion, answer_type) == status


def test_format_reward_and_its_opt_in_column():
    from general365.rewards import FormatReward

    columns, none = {}, {}
    batch = ["<think>r</think>\\boxed{4}", "\\boxed{4}", chat("<think>r</think> C")]
    kinds = ["number", "number", "single_choice"]
    out = FormatReward(column=True)(batch, answer_type=kinds, answer=["4", "4", "C"],
                                    log_extra=lambda k, v: columns.setdefault(k, []).extend(v))
    assert out == [1.0, 0.0, 0.0]
    # not general365_format: TRL's table already has the reward's own column by that name
    assert columns["general365_format_status"] == ["ok", "no_reasoning", "no_answer"]
    assert format_reward(batch, answer_type=kinds,
                         log_extra=lambda k, v: none.setdefault(k, []).extend(v)) == out
    assert none == {}   # the default adds no column
    assert format_reward(["<think>r</think>\\boxed{4}"]) == [1.0]  # answer_type optional


def test_completion_parts():
    assert completion_parts(b"\xffa") == ("\ufffda", False)
    assert completion_parts([{"role": "assistant", "content": None}]) == ("", False)
    assert completion_parts([{"content": "x", "thinking": "y"}]) == ("x", True)
