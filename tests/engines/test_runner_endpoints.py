"""Several --base-url values: requests spread over the endpoints with a limit on each, an
endpoint that dies has its requests retried on the others without costing them tries, and
the accounting per endpoint. Edge cases against fault-injecting servers; the real thing
against two `vllm serve` processes, one killed (SIGKILL) mid-run."""

from __future__ import annotations

import collections
import gc
import json
import os
import signal
import socket
import threading
import time
import urllib.request

import pytest

from general365.errors import OptionError, UserError
from general365.runners.base import GenerationRequest, preset
from general365.runners.endpoints import HealthPolicy
from general365.runners.openai_api import OpenAIRunner, RetryPolicy
from support.servers import Behaviour, FaultServer

FAST = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.05)
QUICK_PROBES = HealthPolicy(down_after=2, probe_first=0.1, probe_max=0.4)


def req(pid="p", run=0, *, seed=None, max_tokens=16, content="Say hi."):
    s = preset("reasoning", max_tokens=max_tokens, seed=run if seed is None else seed)
    return GenerationRequest(pid, run, ({"role": "user", "content": content},), s)


def many(n):
    return [req(f"p{i}", seed=i) for i in range(n)]


def runner_on(*servers_or_urls, **kw) -> OpenAIRunner:
    urls = [getattr(s, "base_url", s) for s in servers_or_urls]
    kw.setdefault("retry", FAST)
    kw.setdefault("health", QUICK_PROBES)
    return OpenAIRunner("fault-model", base_url=urls, jitter_seed=0, **kw)


def closed_url() -> str:
    """The URL of a port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def by_url(runner):
    return {e["url"]: e for e in runner.provenance()["endpoints"]}


def chats(server) -> int:
    return sum(c.path.endswith("/chat/completions") for c in server.calls)


class Peak:
    """A script wrapper counting a server's requests in flight."""

    def __init__(self, behaviour, seconds):
        self.lock, self.now, self.peak = threading.Lock(), 0, 0
        self.behaviour, self.seconds = behaviour, seconds

    def __call__(self, r, n):
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        time.sleep(self.seconds)
        with self.lock:
            self.now -= 1
        return self.behaviour


@pytest.fixture
def pair():
    with FaultServer() as a, FaultServer() as b:
        yield a, b


# --- spreading ------------------------------------------------------------------------


def test_requests_are_spread_with_a_limit_on_each_endpoint(pair):
    a, b = pair
    peaks = Peak(Behaviour.reply("a"), 0.15), Peak(Behaviour.reply("b"), 0.15)
    a.set_script(peaks[0])
    b.set_script(peaks[1])
    runner = runner_on(a, b, concurrency=3)
    out = list(runner.generate(many(24)))
    assert sorted(g.problem_id for g in out) == sorted(f"p{i}" for i in range(24))
    assert all(g.error is None for g in out)
    assert [p.peak for p in peaks] == [3, 3]         # 3 on each, 6 in all
    ends = by_url(runner)
    assert ends[a.base_url]["served"] == chats(a) > 0
    assert ends[b.base_url]["served"] == chats(b) > 0
    assert ends[a.base_url]["served"] + ends[b.base_url]["served"] == 24
    prov = runner.provenance()
    assert prov["base_url"] == [a.base_url, b.base_url] and prov["concurrency"] == 3


def test_a_retry_after_an_http_error_goes_to_another_endpoint(pair):
    a, b = pair
    a.set_script(lambda r, n: Behaviour.error(500, message="replica broken"))
    healthy = Peak(Behaviour.reply("fine"), 0.1)
    b.set_script(healthy)
    runner = runner_on(a, b, concurrency=2, retry=RetryPolicy(max_attempts=2, base_delay=0.01))
    out = list(runner.generate(many(10)))
    assert all(g.error is None and g.response == "fine" for g in out)
    # every retry lands on b, and still at most --concurrency at a time there (when both
    # are busy the total of workers is the bound; here only the per-endpoint limit is)
    assert healthy.peak == 2
    # a 500 is the server answering: charged to the request, not a reason to mark it down
    assert by_url(runner)[a.base_url]["state"] == "up"
    assert by_url(runner)[b.base_url]["served"] == 10


# --- an endpoint that dies --------------------------------------------------------------


def test_a_dead_endpoint_costs_its_requests_no_tries(pair):
    a, b = pair
    survivor = Peak(Behaviour.reply("ok"), 0.05)
    a.set_script(survivor)
    b.set_script(lambda r, n: Behaviour.drop())      # accepts, then hangs up: dead behind
    # one try per request: any try charged for b's failures would fail a request
    runner = runner_on(a, b, concurrency=2, retry=RetryPolicy(max_attempts=1))
    out = list(runner.generate(many(20)))
    assert [g.error for g in out if g.error] == []
    assert survivor.peak == 2          # the dead one's slots are not handed to the survivor
    ends = by_url(runner)
    assert ends[a.base_url]["served"] == 20 and ends[b.base_url]["served"] == 0
    dead = ends[b.base_url]
    assert dead["marked_down"] >= 1 and dead["connection_failures"] == dead["tries"] == chats(b)
    assert "Server disconnected" in dead["last_error"]
    stats = runner.provenance()["stats"]
    assert stats["rerouted"] == chats(b) and stats["failed"] == 0
    assert stats["requests"] == 20 + chats(b)


def test_an_endpoint_unreachable_at_the_start_is_left_out_and_said_once(fault_server, capsys):
    dead = closed_url()
    runner = runner_on(dead, fault_server, concurrency=2, retry=RetryPolicy(max_attempts=1))
    out = list(runner.generate(many(8)))
    assert all(g.error is None for g in out)
    err = capsys.readouterr().err
    assert err.count("general365: note:") == 1
    assert f"{dead}: cannot reach the server" in err and "left out" in err
    ends = by_url(runner)
    assert ends[dead]["state"] == "down" and ends[dead]["served"] == 0
    assert ends[fault_server.base_url]["served"] == 8
    lines = runner.summary_lines()
    assert lines[0] == "endpoints: 2, at most 2 requests in flight on each"
    assert f"{dead}: served 0; went down once" in lines[1] and "never came back" in lines[1]
    assert "DOWN since" in lines[1]
    assert lines[2] == f"  {fault_server.base_url}: served 8"


def test_a_down_endpoint_is_probed_and_comes_back(pair):
    a, b = pair
    dead = threading.Event()
    dead.set()
    a.set_script(lambda r, n: Behaviour.reply("a", delay=0.1))
    b.set_script(lambda r, n: Behaviour.drop() if dead.is_set() else Behaviour.reply("b"))
    runner = runner_on(a, b, concurrency=1, retry=RetryPolicy(max_attempts=1))
    stream = runner.generate(many(30))
    got = [next(stream) for _ in range(3)]
    assert by_url(runner)[b.base_url]["state"] == "down"
    dead.clear()                                     # the replica is back
    got += list(stream)
    assert all(g.error is None for g in got) and len(got) == 30
    back = by_url(runner)[b.base_url]
    assert back["state"] == "up" and back["came_back"] >= 1 and back["served"] > 0
    probes = [c for c in b.calls if c.method == "GET" and c.path.rstrip("/") == "/v1/models"]
    assert len(probes) >= 2                          # prepare's listing, then a probe
    assert "came back" in runner.summary_lines()[2]


def test_when_every_endpoint_is_dead_requests_fail_within_their_tries(pair):
    a, b = pair
    for s in pair:
        s.set_script(lambda r, n: Behaviour.drop())
    runner = runner_on(a, b, concurrency=2)
    out = list(runner.generate(many(4)))
    for g in out:
        assert g.error.startswith("gave up after 3 tries: connection error")
    # max_attempts counted tries, plus at most one uncounted failure per endpoint
    assert chats(a) + chats(b) <= 4 * (3 + 2)
    assert runner.provenance()["stats"]["failed"] == 4


def test_a_request_that_breaks_every_connection_does_not_loop(pair):
    a, b = pair
    for s in pair:   # seed 7 kills its connection wherever it goes; the rest are fine
        s.set_script(lambda r, n: Behaviour.drop() if r["seed"] == 7 else
                     Behaviour.reply("ok", delay=0.02))
    runner = runner_on(a, b, concurrency=2)
    out: dict = {}
    # The failure guarded against is a request rerouted for ever. It spins inside the event
    # loop, where pytest-timeout's alarm lands in a task and is swallowed with it; so the run
    # goes in a thread of its own, and a loop fails here rather than hanging the suite.
    worker = threading.Thread(target=lambda: out.update(
        (g.problem_id, g) for g in runner.generate(many(12))), daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "a request is still being rerouted after 60 s"
    assert out["p7"].error.startswith("gave up after 3 tries: connection error")
    assert all(g.error is None for pid, g in out.items() if pid != "p7")
    poisoned = [r for s in pair for r in s.requests if r.get("seed") == 7]
    assert 3 <= len(poisoned) <= 3 + 2


def test_single_url_keeps_its_behaviour_when_the_server_dies(fault_server):
    fault_server.set_script(lambda r, n: Behaviour.drop())
    runner = runner_on(fault_server, concurrency=2)
    [g] = runner.generate([req()])
    assert g.error.startswith("gave up after 3 tries: connection error")
    assert " at http" not in g.error                 # one URL: no need to name it
    assert chats(fault_server) == 3 and runner.stats["rerouted"] == 0


# --- before the run: the servers must agree -----------------------------------------


def test_servers_disagreeing_on_the_context_length_are_refused():
    with FaultServer(max_model_len=1024) as a, FaultServer(max_model_len=2048) as b:
        with pytest.raises(UserError) as err:
            runner_on(a, b).prepare([req(max_tokens=None)])
        assert str(err.value) == (
            f"base_url: the servers disagree on max_model_len ({a.base_url} 1024, "
            f"{b.base_url} 2048); they should be replicas of one model with the same settings")
        assert chats(a) == chats(b) == 0


def test_a_server_not_serving_the_model_is_refused(fault_server):
    with FaultServer(model="another-model") as other:
        with pytest.raises(UserError, match=rf"^{other.base_url} does not serve model "
                                            rf"'fault-model'; it serves: another-model$"):
            runner_on(fault_server, other).prepare([req()])


def test_no_server_reachable_is_one_error():
    urls = [closed_url(), closed_url()]
    with pytest.raises(UserError) as err:
        runner_on(*urls).prepare([req()])
    text = str(err.value)
    assert text.startswith("base_url: none of the 2 servers can be reached: ")
    assert all(f"{u}: cannot reach the server" in text for u in urls) and "\n" not in text


def test_context_length_and_prompt_counts_come_from_a_server_that_answers(capsys):
    counted = []

    def tokenize(body):
        counted.append(body)
        return 200, {"count": 9}

    with FaultServer(max_model_len=512, tokenize=tokenize) as live:
        dead = closed_url()
        runner = runner_on(dead, live)
        [g] = runner.generate([req(max_tokens=None)])
        assert g.error is None and live.requests[0]["max_tokens"] == 512 - 9
        assert len(counted) == 1 and runner.max_model_len == 512
        assert by_url(runner)[live.base_url]["max_model_len"] == 512


@pytest.mark.parametrize("urls, message", [
    (["http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/"],
     "base_url http://127.0.0.1:8000/v1 is given twice; give each server once (concurrency "
     "is per server)"),
    (["http://127.0.0.1:8000/v1", "127.0.0.1:8001"], "base_url '127.0.0.1:8001' is not a URL"),
    (["ftp://host/v1"], "base_url 'ftp://host/v1' is not a URL"),
])
def test_bad_url_lists_are_refused_before_any_request(urls, message):
    with pytest.raises(OptionError) as err:
        OpenAIRunner("m", base_url=urls)
    assert str(err.value).startswith(message)


# --- the command line -----------------------------------------------------------------


def problems_file(tmp_path, n):
    path = tmp_path / "problems.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "question": f"What is {i}+1?",
                                        "answer": str(i + 1), "answer_type": "number"}) + "\n"
                            for i in range(n)))
    return path


def test_generate_with_two_base_urls_summary_and_run_json(pair, tmp_path, capsys):
    from general365.cli import main

    a, b = pair
    a.set_script(lambda r, n: Behaviour.reply("\\boxed{1}", delay=0.02))
    b.set_script(lambda r, n: Behaviour.drop())
    out = tmp_path / "run"
    code = main(["generate", "--backend", "openai", "--model", a.model,
                 "--base-url", a.base_url, "--base-url", b.base_url,
                 "--dataset", str(problems_file(tmp_path, 6)), "--runs", "2",
                 "--max-tokens", "16", "--max-attempts", "1", "--concurrency", "2",
                 "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "written 12, already done 0, failed 0" in printed
    assert "  endpoints: 2, at most 2 requests in flight on each" in printed
    assert f"    {a.base_url}: served 12\n" in printed
    assert f"    {b.base_url}: served 0; went down once" in printed
    runner = json.loads((out / "run.json").read_text())["runner"]
    assert runner["base_url"] == [a.base_url, b.base_url]
    assert [(e["url"], e["served"], e["state"]) for e in runner["endpoints"]] == [
        (a.base_url, 12, "up"), (b.base_url, 0, "down")]
    assert len((out / "responses.jsonl").read_text().splitlines()) == 12


def test_generate_refuses_a_url_given_twice_with_one_line(fault_server, tmp_path, capsys):
    from general365.cli import main

    # refused with the other options, before the dataset (missing here) is read
    code = main(["generate", "--backend", "openai", "--model", fault_server.model,
                 "--base-url", fault_server.base_url, "--base-url", fault_server.base_url,
                 "--dataset", str(tmp_path / "missing.jsonl"), "--max-tokens", "8",
                 "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and err == (f"general365 generate: error: --base-url {fault_server.base_url}"
                                 f" is given twice; give each server once (--concurrency is per "
                                 f"server)\n")
    assert not (tmp_path / "run").exists() and fault_server.calls == []


def test_generate_says_which_flag_the_servers_disagree_on(tmp_path, capsys):
    # found only once the servers answer, deep in the session: still one line naming the flag
    from general365.cli import main

    with FaultServer(max_model_len=1024) as a, FaultServer(max_model_len=2048) as b:
        code = main(["generate", "--backend", "openai", "--model", a.model,
                     "--base-url", a.base_url, "--base-url", b.base_url,
                     "--dataset", str(problems_file(tmp_path, 2)), "--out", str(tmp_path / "run")])
        assert chats(a) == chats(b) == 0
    assert code == 2 and capsys.readouterr().err == (
        f"general365 generate: error: --base-url: the servers disagree on max_model_len "
        f"({a.base_url} 1024, {b.base_url} 2048); they should be replicas of one model with "
        f"the same settings\n")
    assert not (tmp_path / "run").exists()


# --- two real `vllm serve`, one killed mid-run ----------------------------------------


def _metric(server, name: str) -> float:
    """The sum of a vLLM /metrics series (e.g. finished requests over every reason)."""
    root = server.base_url[: -len("/v1")]
    with urllib.request.urlopen(root + "/metrics", timeout=5) as reply:
        text = reply.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(name + "{"))


@pytest.mark.slow
def test_two_vllm_serve_one_killed_mid_run_loses_and_duplicates_nothing(
        vllm_server, tiny_model_dir, tmp_path, capsys):
    from general365.cli import main
    from support.models import serve_tiny

    problems = problems_file(tmp_path, 16)
    out = tmp_path / "run"
    with serve_tiny(tiny_model_dir, tmp_path, stats=True) as victim:
        killed = threading.Event()

        def kill_mid_run() -> None:
            # Once the victim has finished requests and holds others in flight: SIGKILL
            # its whole process group, as a lost node would go.
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                try:
                    if (_metric(victim, "vllm:request_success_total") >= 2
                            and _metric(victim, "vllm:num_requests_running") >= 1):
                        os.killpg(victim.process.pid, signal.SIGKILL)
                        killed.set()
                        return
                except OSError:
                    pass
                time.sleep(0.02)

        killer = threading.Thread(target=kill_mid_run, daemon=True)
        killer.start()
        code = main(["generate", "--backend", "openai", "--model", vllm_server.model,
                     "--base-url", vllm_server.base_url, "--base-url", victim.base_url,
                     "--dataset", str(problems), "--runs", "2", "--max-tokens", "24",
                     "--concurrency", "3", "--max-attempts", "2", "--out", str(out)])
        killer.join(timeout=5)
        printed = capsys.readouterr()
    print(printed.out)   # the per-endpoint summary, shown with -s or on failure
    assert killed.is_set(), "the victim was never seen with requests in flight"
    assert code == 0, printed.out + printed.err
    keys = collections.Counter((r["id"], r["run"]) for r in map(
        json.loads, (out / "responses.jsonl").read_text().splitlines()))
    assert set(keys) == {(f"q{i}", run) for i in range(16) for run in range(2)}
    assert set(keys.values()) == {1}                 # no loss, no duplicate
    run_json = json.loads((out / "run.json").read_text())
    survivor, dead = run_json["runner"]["endpoints"]
    assert (survivor["url"], dead["url"]) == (vllm_server.base_url, victim.base_url)
    assert survivor["served"] + dead["served"] == 32 == run_json["counts"]["written"]
    assert dead["served"] >= 1 and dead["state"] == "down" and dead["marked_down"] == 1
    assert dead["connection_failures"] >= 1 and dead["came_back"] == 0
    assert dead["tries"] > dead["served"]            # what it held in flight went elsewhere
    assert survivor["state"] == "up" and survivor["connection_failures"] == 0
    assert survivor["max_model_len"] == dead["max_model_len"] == vllm_server.max_model_len
    assert run_json["runner"]["stats"]["failed"] == 0
    assert f"{victim.base_url}: served {dead['served']}; went down once" in printed.out


def test_a_key_refused_by_one_server_is_one_error_naming_it(caplog):
    # A wrong key on any server is the user's mistake, whatever the others say. The slower
    # listing is waited for, not abandoned mid-reply when the refusal comes: an abandoned one
    # fails later, with no one to hear it, and asyncio prints its traceback after our error.
    with FaultServer(models_delay=0.5) as slow, FaultServer(models_status=401) as refusing:
        with pytest.raises(UserError, match=rf"^{refusing.base_url}: the API key in "
                                            rf"\$OPENAI_API_KEY was refused \(401\)$"):
            runner_on(slow, refusing).prepare([req()])
        gc.collect()   # an abandoned task speaks when it is collected
        assert [c.path for c in slow.calls] == ["/v1/models"]
        assert chats(slow) == chats(refusing) == 0
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []
