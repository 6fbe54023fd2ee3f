"""The OpenAI-compatible runner: against the fault-injecting server for the retry paths and
reasoning_content, and against a real `vllm serve` for usage, finish reasons, seeds and
max_tokens derived from the server's context length."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest

from general365.errors import UserError
from general365.runners.base import GenerationRequest, preset, run_seed
from general365.runners.openai_api import OpenAIRunner, RetryPolicy
from support.interrupt import ctrl_c_off_the_main_thread
from support.servers import Behaviour, sequence

FAST = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05)


def req(pid="p1", run=0, *, max_tokens=16, seed=11, top_k=-1, content="Say hi.",
        temperature=1.0):
    s = preset("reasoning", max_tokens=max_tokens, seed=seed, top_k=top_k,
               temperature=temperature)
    return GenerationRequest(pid, run, ({"role": "user", "content": content},), s)


def runner_for(server, **kw) -> OpenAIRunner:
    kw.setdefault("retry", FAST)
    return OpenAIRunner(server.model, base_url=server.base_url, jitter_seed=0, **kw)


def run_all(runner, requests):
    return {(g.problem_id, g.run): g for g in runner.generate(requests)}


# --- request shape --------------------------------------------------------------------


def test_request_carries_sampling_seed_and_explicit_max_tokens(fault_server):
    fault_server.set_script(lambda r, n: Behaviour.reply("the answer is \\boxed{2}",
                                                        completion_tokens=7, prompt_tokens=3))
    runner = runner_for(fault_server)
    [g] = runner.generate([req(seed=123, max_tokens=50)])
    [body] = fault_server.requests
    assert body["seed"] == 123 and body["max_tokens"] == 50
    assert body["temperature"] == 1.0 and body["top_p"] == 1.0
    assert "top_k" not in body              # -1 = off: not sent at all
    assert body["messages"] == [{"role": "user", "content": "Say hi."}]
    assert g.error is None and g.response == "the answer is \\boxed{2}"
    assert (g.output_tokens, g.prompt_tokens, g.finish_reason) == (7, 3, "stop")
    assert g.sampling["seed"] == 123 and g.sampling["max_tokens"] == 50


def test_top_k_and_template_kwargs_go_in_extra_body(fault_server):
    runner = runner_for(fault_server, chat_template_kwargs={"enable_thinking": True})
    list(runner.generate([req(top_k=20)]))
    [body] = fault_server.requests
    assert body["top_k"] == 20
    assert body["chat_template_kwargs"] == {"enable_thinking": True}


def test_api_key_comes_from_the_named_variable_and_is_never_recorded(fault_server,
                                                                    monkeypatch):
    monkeypatch.setenv("MY_SECRET_KEY_VAR", "sk-very-secret-123")
    runner = runner_for(fault_server, api_key_env="MY_SECRET_KEY_VAR")
    list(runner.generate([req()]))
    chat = [c for c in fault_server.calls if c.path.endswith("/chat/completions")][0]
    headers = {k.lower(): v for k, v in chat.headers.items()}
    assert headers["authorization"] == "Bearer sk-very-secret-123"
    assert "sk-very-secret" not in repr(runner.provenance())
    assert runner.provenance()["api_key_env"] == "MY_SECRET_KEY_VAR"


def test_missing_key_variable_is_a_user_error(fault_server, monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR_G365", raising=False)
    with pytest.raises(UserError, match="NO_SUCH_KEY_VAR_G365.*is not set"):
        runner_for(fault_server, api_key_env="NO_SUCH_KEY_VAR_G365")


def test_unknown_model_is_refused_before_generating(fault_server):
    runner = OpenAIRunner("not-served", base_url=fault_server.base_url)
    with pytest.raises(UserError, match="does not serve model 'not-served'"):
        runner.prepare([req()])
    assert fault_server.requests == []


def test_without_context_length_max_tokens_is_required(fault_server):
    runner = runner_for(fault_server)
    with pytest.raises(UserError, match="pass --max-tokens"):
        runner.prepare([req(max_tokens=None)])
    assert fault_server.requests == []


def test_unreachable_server_is_a_user_error():
    runner = OpenAIRunner("m", base_url="http://127.0.0.1:9/v1", retry=FAST)
    with pytest.raises(UserError, match="cannot reach the server"):
        runner.prepare([req()])


# --- reasoning kept apart -------------------------------------------------------------


def test_reasoning_content_kept_apart(fault_server):
    fault_server.set_script(sequence(Behaviour.reply("\\boxed{4}", reasoning_content="2+2=4")))
    [g] = runner_for(fault_server).generate([req()])
    assert g.response == "\\boxed{4}" and g.reasoning == "2+2=4"


def test_inline_think_block_is_split_but_response_kept_whole(fault_server):
    fault_server.set_script(sequence(Behaviour.reply("<think>hmm</think>\\boxed{4}")))
    [g] = runner_for(fault_server).generate([req()])
    assert g.response == "<think>hmm</think>\\boxed{4}" and g.reasoning == "hmm"


def test_empty_reply_is_a_response_not_a_failure(fault_server):
    fault_server.set_script(sequence(Behaviour.empty(completion_tokens=0)))
    [g] = runner_for(fault_server).generate([req()])
    assert g.error is None and g.response == "" and g.output_tokens == 0
    assert len(fault_server.requests) == 1


# --- retries --------------------------------------------------------------------------


def test_429_honours_retry_after(fault_server):
    fault_server.set_script(sequence(Behaviour.error(429, retry_after=0.6), Behaviour.reply("ok")))
    runner = runner_for(fault_server)
    [g] = runner.generate([req()])
    assert g.error is None and g.response == "ok"
    chats = [c for c in fault_server.calls if c.path.endswith("/chat/completions")]
    assert len(chats) == 2
    # Our own backoff would have waited ~0.01 s; the server asked for 0.6 s.
    assert chats[1].at - chats[0].at >= 0.55
    assert runner.stats["retries"] == 1


def test_500_then_success(fault_server):
    fault_server.set_script(sequence(Behaviour.error(500), Behaviour.error(503),
                                     Behaviour.reply("fine")))
    [g] = runner_for(fault_server).generate([req()])
    assert g.error is None and g.response == "fine" and len(fault_server.requests) == 3


def test_timeout_is_retried(fault_server):
    fault_server.set_script(sequence(Behaviour.slow(5), Behaviour.reply("late but ok")))
    [g] = runner_for(fault_server, request_timeout=0.5).generate([req()])
    assert g.error is None and g.response == "late but ok" and len(fault_server.requests) == 2


def test_malformed_json_and_dropped_connection_are_retried(fault_server):
    fault_server.set_script(sequence(Behaviour.malformed(), Behaviour.drop(),
                                     Behaviour.reply("ok")))
    [g] = runner_for(fault_server).generate([req()])
    assert g.error is None and g.response == "ok" and len(fault_server.requests) == 3


@pytest.mark.parametrize("body", [b'"a string"', b"{}", b"[]", b'{"choices": []}',
                                  b'{"choices": [{"message": null}]}', b'{"choices": "x"}'])
def test_wrong_shaped_json_is_retried(fault_server, body):
    fault_server.set_script(sequence(Behaviour.malformed(body=body), Behaviour.reply("ok")))
    [g] = runner_for(fault_server).generate([req()])
    assert g.error is None and g.response == "ok" and len(fault_server.requests) == 2


def test_gives_up_after_bounded_tries_and_reports(fault_server):
    fault_server.set_script(lambda r, n: Behaviour.error(500, message="kaput"))
    runner = runner_for(fault_server)
    [g] = runner.generate([req()])
    assert g.error is not None and "gave up after 4 tries" in g.error and "500" in g.error
    assert len(fault_server.requests) == FAST.max_attempts
    assert runner.stats["failed"] == 1


def test_client_error_is_not_retried(fault_server):
    fault_server.set_script(lambda r, n: Behaviour.error(400, message="prompt too long"))
    [g] = runner_for(fault_server).generate([req()])
    assert "HTTP 400" in g.error and "prompt too long" in g.error
    assert len(fault_server.requests) == 1


def test_one_failure_does_not_stop_the_others(fault_server):
    fault_server.set_script(lambda r, n: Behaviour.error(500) if r["seed"] == 2
                            else Behaviour.reply(f"seed {r['seed']}"))
    out = run_all(runner_for(fault_server), [req(f"p{i}", seed=i) for i in range(5)])
    assert sorted(k for k, g in out.items() if g.error) == [("p2", 0)]
    assert out[("p4", 0)].response == "seed 4"


def test_backoff_is_exponential_jittered_and_bounded():
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0, max_retry_after=30)
    rng = random.Random(0)
    for attempt in range(8):
        d = policy.delay(attempt, None, rng)
        step = min(8.0, 2 ** attempt)
        assert step / 2 <= d <= step
    assert policy.delay(0, 12.5, rng) == 12.5
    assert policy.delay(0, 1e6, rng) == 30


def test_concurrency_is_limited_and_results_stream_back(fault_server):
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def script(r, n):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.1 if r["seed"] else 1.5)   # request 0 is slow
        with lock:
            state["now"] -= 1
        return Behaviour.reply(str(r["seed"]))

    fault_server.set_script(script)
    order = [g.problem_id for g in
             runner_for(fault_server, concurrency=3).generate([req(f"p{i}", seed=i)
                                                               for i in range(9)])]
    assert state["peak"] == 3
    assert sorted(order) == sorted(f"p{i}" for i in range(9))
    assert order[-1] == "p0"          # yielded as completed, not in submission order


# --- a real vllm serve ----------------------------------------------------------------


@pytest.mark.slow
def test_real_server_usage_finish_reason_and_derived_max_tokens(vllm_server):
    runner = OpenAIRunner(vllm_server.model, base_url=vllm_server.base_url, retry=FAST)
    short, open_ended = req("short", max_tokens=4), req("open", max_tokens=None)
    runner.prepare([short, open_ended])
    assert runner.max_model_len == vllm_server.max_model_len
    derived = runner.max_tokens_for(open_ended)
    assert 0 < derived < vllm_server.max_model_len
    out = run_all(runner, [short, open_ended])
    g = out[("short", 0)]
    assert g.error is None and g.finish_reason == "length" and g.output_tokens == 4
    assert g.prompt_tokens + derived == vllm_server.max_model_len
    assert out[("open", 0)].sampling["max_tokens"] == derived
    assert runner.provenance()["served_model"] == vllm_server.model


@pytest.mark.slow
def test_real_server_seeds_reproduce_and_runs_differ(vllm_server):
    runner = OpenAIRunner(vllm_server.model, base_url=vllm_server.base_url, retry=FAST)
    requests = [req("p", run, max_tokens=24, seed=run_seed(5, run)) for run in range(4)]
    first = run_all(runner, requests)
    again = run_all(runner, requests)
    assert all(g.error is None for g in first.values())
    assert all(first[k].response == again[k].response for k in first)
    assert len({g.response for g in first.values()}) > 1   # distinct seeds, distinct samples


@pytest.mark.slow
def test_real_server_refuses_prompt_that_cannot_fit(vllm_server):
    runner = OpenAIRunner(vllm_server.model, base_url=vllm_server.base_url, retry=FAST)
    long = req("huge", max_tokens=None, content="word " * 3000)
    with pytest.raises(UserError, match=r"id 'huge' \(run 0\): the prompt has \d+ tokens"):
        runner.prepare([req("ok"), long])
    fit = req("tight", max_tokens=vllm_server.max_model_len)
    with pytest.raises(UserError, match=r"id 'tight' \(run 0\): prompt tokens \d+ \+ "
                                        r"max_tokens 1024 = \d+ exceeds max_model_len 1024"):
        runner.prepare([fit])


# --- a hostile server (issue 13, items 2, 3 and 11) -----------------------------------

# 25 characters, none of which occur in the padding used below
SENTINEL = "sk-Q7ZL9P4M2K8W5R3T6V1N0J"


def key_fragments(text: str, size: int = 4) -> list[str]:
    return [SENTINEL[i:i + size] for i in range(len(SENTINEL) - size + 1)
            if SENTINEL[i:i + size] in text]


def padded(n: int) -> str:
    return "x" * n + SENTINEL + " y" * 40


def test_an_echoed_key_is_masked_in_errors_at_every_position_around_the_cut(fault_server,
                                                                           monkeypatch):
    from general365.runners.openai_api import MESSAGE_CHARS

    monkeypatch.setenv("HOSTILE_KEY", SENTINEL)
    positions = range(MESSAGE_CHARS - 60, MESSAGE_CHARS + 30)
    # 400: not retried; 500 and 429: retried, then given up (the last message is kept)
    statuses = {p: (400, 500, 429)[p % 3] for p in positions}
    fault_server.set_script(lambda r, n: Behaviour.error(
        statuses[r["seed"]], retry_after=0, message=padded(r["seed"])))
    runner = runner_for(fault_server, api_key_env="HOSTILE_KEY", concurrency=8)
    out = run_all(runner, [req(f"p{p}", seed=p) for p in positions])
    assert fault_server.calls[-1].headers["authorization"] == f"Bearer {SENTINEL}"
    for p in positions:
        error = out[(f"p{p}", 0)].error
        assert error and f"HTTP {statuses[p]}" in error
        assert key_fragments(error) == [], (p, error)


def test_generate_summary_run_json_and_responses_never_hold_the_key(fault_server, tmp_path,
                                                                    monkeypatch, capfd):
    from general365.cli import main
    from general365.runners.openai_api import MESSAGE_CHARS

    monkeypatch.setenv("HOSTILE_KEY", SENTINEL)
    problems = tmp_path / "problems.jsonl"
    problems.write_text("".join(json.dumps({
        "id": f"q{i}", "question": f"What is {i}+0?", "answer": str(i),
        "answer_type": "number"}) + "\n" for i in range(8)))

    def script(r, n):
        i = int(r["messages"][-1]["content"].split()[2].split("+")[0])
        if i < 6:   # errors whose message puts the key across the cut
            return Behaviour.error((400, 500, 429)[i % 3], retry_after=0,
                                   message=padded(MESSAGE_CHARS - 12 + 3 * i))
        # 200s that echo the key in the answer, the reasoning and the model id
        return Behaviour.reply(f"\\boxed{{{i}}} {SENTINEL}", model=f"m-{SENTINEL}",
                               reasoning_content=f"think {SENTINEL[:14]}")

    fault_server.set_script(script)
    out = tmp_path / "run"
    code = main(["generate", "--backend", "openai", "--model", fault_server.model,
                 "--base-url", fault_server.base_url, "--api-key-env", "HOSTILE_KEY",
                 "--dataset", str(problems), "--max-tokens", "16", "--max-attempts", "2",
                 "--out", str(out)])
    printed = capfd.readouterr()
    assert code == 1
    assert printed.out.count("  failed: ") == 5 and "***" in printed.out
    responses = (out / "responses.jsonl").read_text()
    assert responses.count("\n") == 2 and "\\\\boxed{6} ***" in responses
    for text in (printed.out, printed.err, (out / "run.json").read_text(), responses):
        assert key_fragments(text) == []


def test_a_trickling_reply_is_cut_at_the_request_timeout(fault_server):
    # One byte every 0.25 s never leaves a read idle for 1 s: only a bound on the whole
    # request stops it. The first 40 bytes (10 s) trickle, then the rest at once.
    fault_server.set_script(lambda r, n: Behaviour.trickle("slow answer", 0.25, count=40))
    runner = runner_for(fault_server, request_timeout=1.0,
                        retry=RetryPolicy(max_attempts=2, base_delay=0.01))
    [g] = runner.generate([req()])
    assert g.error == "gave up after 2 tries: timed out after 1s"
    assert all(sent < 40 for sent, _ in fault_server.wait_trickled(2))


def test_generate_request_timeout_bounds_a_trickling_server(fault_server, tmp_path, capsys):
    from general365.cli import main

    fault_server.set_script(lambda r, n: Behaviour.trickle("slow answer", 0.25, count=40))
    problems = tmp_path / "problems.jsonl"
    problems.write_text(json.dumps({"id": "q", "question": "1+1?", "answer": "2",
                                    "answer_type": "number"}) + "\n")
    code = main(["generate", "--backend", "openai", "--model", fault_server.model,
                 "--base-url", fault_server.base_url, "--dataset", str(problems),
                 "--max-tokens", "16", "--request-timeout", "1", "--max-attempts", "1",
                 "--out", str(tmp_path / "run")])
    out = capsys.readouterr().out
    assert code == 1 and "failed: id 'q' run 0: gave up after 1 tries: timed out after 1s" in out
    assert all(sent < 40 for sent, _ in fault_server.wait_trickled(1))


# /tokenize answers: vLLM's, llama.cpp's (it counts a `content` field we do not send, so
# its list is empty), and other shapes a server or gateway may give.
def tokenize_server(answer, **kw):
    from support.servers import FaultServer

    return FaultServer(max_model_len=4096, tokenize=lambda body: answer, **kw)


def test_vllm_tokenize_counts_prompts_and_derives_max_tokens():
    with tokenize_server((200, {"count": 7, "max_model_len": 4096, "tokens": [1] * 7})) as s:
        runner = OpenAIRunner(s.model, base_url=s.base_url, retry=FAST)
        [g] = runner.generate([req(max_tokens=None)])
        assert g.error is None and s.requests[0]["max_tokens"] == 4096 - 7
        tokenized = [c for c in s.calls if c.path == "/tokenize"]
        assert tokenized[0].body["messages"] == [{"role": "user", "content": "Say hi."}]
        assert runner.provenance()["tokenize"] == "used"


@pytest.mark.parametrize("answer, why", [
    ((200, {"tokens": []}), "answered an object with the fields tokens, not a token count"),
    ((200, {"tokens": [1, 2, 3]}), "answered an object with the fields tokens"),
    ((200, {"count": "12"}), "answered an object with the fields count"),
    ((200, {"count": True}), "answered an object with the fields count"),
    ((200, {"count": 0}), "answered an object with the fields count"),
    ((200, [3]), "answered a JSON list, not a token count"),
    ((200, None), "answered a JSON null"),
    ((200, b"<html>tokenizer</html>"), "answered with a body that is not JSON"),
    ((404, {"error": "no"}), "answered HTTP 404"),
    ((405, {"error": "no"}), "answered HTTP 405"),
    ((400, {"error": {"message": "'content' is required"}}), "answered HTTP 400"),
    ((422, {"detail": "unprocessable"}), "answered HTTP 422"),
])
def test_a_tokenize_of_another_shape_falls_back_and_says_so_once(answer, why, capsys):
    with tokenize_server(answer) as s:
        runner = OpenAIRunner(s.model, base_url=s.base_url, retry=FAST)
        # an explicit max_tokens: generation goes on without counting
        out = run_all(runner, [req(f"p{i}", content=f"prompt {i}") for i in range(4)])
        assert all(g.error is None for g in out.values())
        assert len([c for c in s.calls if c.path == "/tokenize"]) <= runner.concurrency
        err = capsys.readouterr().err
        assert err.count("general365: note:") == 1 and why in err
        assert f"{s.base_url[:-3]}/tokenize" in err
        assert why in runner.provenance()["tokenize"]
        # none given: one clear error naming the fix
        with pytest.raises(UserError, match="pass --max-tokens"):
            OpenAIRunner(s.model, base_url=s.base_url, retry=FAST).prepare(
                [req(max_tokens=None)])


@pytest.mark.parametrize("status", [500, 429])
def test_a_failing_tokenize_is_one_error(status):
    with tokenize_server((status, {"error": {"message": "overloaded"}})) as s:
        with pytest.raises(UserError, match=rf"/tokenize: counting the prompt of id 'p1' "
                                            rf"failed with HTTP {status} \(overloaded\)"):
            OpenAIRunner(s.model, base_url=s.base_url, retry=FAST).prepare(
                [req(max_tokens=None)])


def test_a_gateway_answering_every_post_with_a_chat_completion(tmp_path, capsys):
    # issue 13, item 11: this crashed `generate` with KeyError: 'count'
    from general365.cli import main

    problems = tmp_path / "problems.jsonl"
    problems.write_text("".join(json.dumps({"id": f"q{i}", "question": f"{i}+1?",
                                            "answer": str(i + 1), "answer_type": "number"})
                                + "\n" for i in range(3)))
    with tokenize_server(None, chat_on_any_post=True) as s:
        argv = ["generate", "--backend", "openai", "--model", s.model, "--base-url",
                s.base_url, "--dataset", str(problems), "--out", str(tmp_path / "run")]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "pass --max-tokens" in err and "Traceback" not in err
        assert err.count("general365: note:") == 1
        assert "answered an object with the fields choices, created, id" in err
        assert main(argv + ["--max-tokens", "16"]) == 0
        captured = capsys.readouterr()
        assert captured.err.count("general365: note:") == 1
        assert "written 3, already done 0, failed 0" in captured.out
        run = json.loads((tmp_path / "run" / "run.json").read_text())
        assert "not a token count" in run["runner"]["tokenize"]


def test_a_tokenize_that_hangs_falls_back_once_its_time_is_up(capsys):
    def slow(body):
        time.sleep(3)
        return 200, {"count": 5}

    from support.servers import FaultServer

    with FaultServer(max_model_len=4096, tokenize=slow) as s:
        runner = OpenAIRunner(s.model, base_url=s.base_url, retry=FAST, request_timeout=1.0)
        runner.prepare([req(f"p{i}", content=f"prompt {i}") for i in range(3)])
        assert "could not be reached in time" in capsys.readouterr().err
        assert "could not be reached in time" in runner.provenance()["tokenize"]


@pytest.mark.parametrize("tokens", [SENTINEL, 10 ** 400, -3, 2.5, [1]])
def test_token_counts_that_are_not_counts_are_dropped(fault_server, tokens):
    # the SDK does not validate replies: whatever `usage` holds would reach the record
    fault_server.set_script(lambda r, n: Behaviour.malformed(body=json.dumps({
        "id": "x", "object": "chat.completion", "model": "m", "choices": [{
            "index": 0, "message": {"role": "assistant", "content": "hi"},
            "finish_reason": "stop"}],
        "usage": {"prompt_tokens": tokens, "completion_tokens": tokens,
                  "completion_tokens_details": {"reasoning_tokens": tokens}}}).encode()))
    [g] = runner_for(fault_server).generate([req()])
    assert g.error is None and g.response == "hi"
    assert (g.output_tokens, g.prompt_tokens, g.reasoning_tokens) == (None, None, None)


def test_a_ctrl_c_that_lands_off_the_main_thread_stops_generation_at_once(fault_server):
    # Python runs its SIGINT handler on the main thread only when that thread next executes
    # bytecode: a Ctrl-C caught while the event loop sleeps in epoll, or by another thread
    # (made deterministic here: the signal is sent to a helper thread), left generation
    # waiting for its next timer, the request timeout (10 minutes here). It must wake the
    # loop and stop at once, with KeyboardInterrupt as from a plain Ctrl-C.
    import signal

    fault_server.set_script(lambda r, n: Behaviour.reply("hi") if n < 2
                            else Behaviour.slow(600, content="late"))
    runner = runner_for(fault_server, request_timeout=600, concurrency=2)
    got = []
    # Once two replies are in and the next two requests hang in flight.
    with ctrl_c_off_the_main_thread(lambda: len(fault_server.requests) >= 4
                                    and len(got) >= 2) as rescued:
        with pytest.raises(KeyboardInterrupt):
            for g in runner.generate([req(f"p{i}") for i in range(6)]):
                got.append(g)
    assert not rescued, "the Ctrl-C was not seen until the main thread was signalled"
    assert [g.response for g in got] == ["hi", "hi"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_ctrl_c_while_the_caller_holds_a_result_is_not_swallowed(fault_server):
    # Between results the generator is suspended in its caller's code: a caller that works
    # on each result for long, or stops iterating and keeps the generator (a `break` out of
    # `for g in gen`). The Ctrl-C routing must not outlive the loop's run: routed to a loop
    # that is not running, the signal was queued there and never seen (KeyboardInterrupt
    # only if the generator was resumed, never if it was abandoned).
    import os
    import signal

    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("the test runner has its own SIGINT handler")
    fault_server.set_script(lambda r, n: Behaviour.reply("hi"))
    runner = runner_for(fault_server, concurrency=2)
    gen = runner.generate([req(f"p{i}") for i in range(4)])
    try:
        for g in gen:
            assert g.response == "hi"
            break
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(100):   # the handler runs at the next bytecode boundaries
                time.sleep(0.01)
        # The generator still works after that, and routes the next wait again.
        assert next(gen).response == "hi"
    finally:
        gen.close()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
