"""Two real `general365 generate` processes on one fresh --out (issue 13, item 4).

The attack: the second command starts while the first is still getting ready. Before the
fix both computed what was pending before taking the folder's lock, so both wrote every
record (8 lines, 4 unique, both exiting 0 with "written 4").

To make the interleaving that loses data happen every time, not by luck of timing, the
processes talk to a small OpenAI-compatible server that holds each process's model-listing
request (the first thing the API runner does while it gets ready) until the test lets it go:
a real server cannot be paused on demand. The processes themselves are the real command.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from general365.runners.store import iter_records


class GateServer:
    """GET /v1/models: the k-th request waits for gates[k]; POST /v1/chat/completions
    answers at once, naming the request's seed."""

    def __init__(self, gates: int):
        self.gates = [threading.Event() for _ in range(gates)]
        self.arrived = threading.Semaphore(0)
        self.listings = 0
        self.chats = 0
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _json(self, obj):
                body = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                with owner._lock:
                    k = owner.listings
                    owner.listings += 1
                owner.arrived.release()
                if k < len(owner.gates):
                    owner.gates[k].wait(120)
                self._json({"object": "list", "data": [
                    {"id": "gate-model", "object": "model", "created": 0, "owned_by": "t"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with owner._lock:
                    owner.chats += 1
                self._json({"id": "c", "object": "chat.completion", "created": 0,
                            "model": "gate-model", "choices": [{
                                "index": 0, "finish_reason": "stop", "logprobs": None,
                                "message": {"role": "assistant",
                                            "content": f"seed={body.get('seed')}"}}],
                            "usage": {"prompt_tokens": 5, "completion_tokens": 1,
                                      "total_tokens": 6}})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        for g in self.gates:
            g.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def gate_server():
    s = GateServer(gates=2)
    yield s
    s.close()


def generate_cmd(base_url: str, out: Path) -> list[str]:
    exe = Path(sys.executable).with_name("general365")
    head = [str(exe)] if exe.exists() else [sys.executable, "-m", "general365.cli"]
    return [*head, "generate", "--backend", "openai", "--model", "gate-model",
            "--base-url", base_url, "--dataset", "sample", "--limit", "2", "--runs", "2",
            "--max-tokens", "16", "--concurrency", "2", "--out", str(out)]


def start(cmd: list[str]) -> subprocess.Popen:
    env = {**os.environ, "OPENAI_API_KEY": "test-key"}
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def test_second_generate_on_a_fresh_out_is_refused_and_nothing_is_written_twice(
        gate_server, tmp_path):
    out = tmp_path / "run"
    cmd = generate_cmd(gate_server.base_url, out)
    first = start(cmd)
    try:
        # The first process is getting ready (its model listing is held): it has decided
        # what to generate, and holds the folder from then on.
        assert gate_server.arrived.acquire(timeout=120), first.communicate()[1][-2000:]
        second = start(cmd)
        try:
            # The second either is refused at once (the fix) or gets as far as its own
            # model listing (before the fix: it computed its pending set without the lock).
            deadline = time.monotonic() + 120
            while second.poll() is None and gate_server.listings < 2 \
                    and time.monotonic() < deadline:
                time.sleep(0.05)
            gate_server.gates[0].set()          # the first runs to the end
            out1, err1 = first.communicate(timeout=120)
            gate_server.gates[1].set()          # only then the second, if it still runs
            out2, err2 = second.communicate(timeout=120)
        finally:
            if second.poll() is None:
                second.kill()
    finally:
        if first.poll() is None:
            first.kill()

    records = list(iter_records(str(out / "responses.jsonl")))
    keys = collections.Counter((r["id"], r["run"]) for r in records)
    assert len(records) == 4 and set(keys.values()) == {1}, keys   # 2 problems x 2 runs, once
    assert first.returncode == 0, err1[-2000:]
    assert "written 4" in out1
    # The loser says why, in one line, exits 2, and claims nothing.
    assert second.returncode == 2, (out2, err2[-2000:])
    errors = [ln for ln in err2.splitlines() if "error:" in ln]
    assert len(errors) == 1 and "another process is writing to this run folder" in errors[0]
    assert "Traceback" not in err2 and "written" not in out2
    assert gate_server.chats == 4        # nothing was asked of the model twice
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["status"] == "complete" and len(run_json["sessions"]) == 1


def test_a_second_generate_after_the_first_ended_resumes_it(gate_server, tmp_path):
    # The lock is the folder's while a process lives, not for ever: the same command run
    # after the first has ended finds everything done and writes nothing.
    for g in gate_server.gates:
        g.set()
    out = tmp_path / "run"
    cmd = generate_cmd(gate_server.base_url, out)
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "OPENAI_API_KEY": "test-key"})
    assert first.returncode == 0, first.stderr[-2000:]
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "OPENAI_API_KEY": "test-key"})
    assert again.returncode == 0, again.stderr[-2000:]
    assert "written 0, already done 4" in again.stdout
    assert len(list(iter_records(str(out / "responses.jsonl")))) == 4


def test_a_forked_child_does_not_keep_the_run_folder_locked(tmp_path):
    # An engine may fork workers after the lock is taken; a worker that outlives a killed
    # run must not hold the folder's lock (an flock belongs to the open file, which a fork
    # shares): forked children close it.
    from general365.errors import UserError
    from general365.runners.store import RunStore

    store = RunStore(str(tmp_path / "run"))
    store.open()
    read, write = os.pipe()
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: says it is running, then stays alive until the parent says
        os.close(write)
        os.write(ready_w, b"r")   # after os.fork() returned: the at-fork handlers have run
        os.read(read, 1)
        os._exit(0)
    os.close(read)
    os.close(ready_w)
    # Wait for the child to run: checking the lock before it has closed its copy would
    # race with the scheduler (a loaded machine may not run the child for a while).
    assert os.read(ready_r, 1) == b"r"
    os.close(ready_r)
    try:
        with pytest.raises(UserError, match="another process is writing"):
            RunStore(str(tmp_path / "run")).open()    # the parent still holds it
        store.close()
        again = RunStore(str(tmp_path / "run"))
        again.open()                                   # the child lives, and holds nothing
        again.close()
    finally:
        os.write(write, b"x")
        os.close(write)
        os.waitpid(pid, 0)
