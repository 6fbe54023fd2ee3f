"""kill -9 a real `general365 generate` at seeded random points, resume, and check the final
responses file: exactly one record per (id, run), none lost, none duplicated, each record
the answer to its own request, and a torn last line recovered.

The backend is the OpenAI runner against the fault server with injected latency, so that a
run lasts long enough for every kill to land mid-run (a CPU model would spend most of the
time loading)."""

from __future__ import annotations

import collections
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from general365.runners.store import iter_records
from support.servers import Behaviour

RUNS = 6
SEED = 20261129
KILLS = 6


def count_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def generate_cmd(base_url: str, model: str, out: Path) -> list[str]:
    # The installed console script, i.e. the very command a user types.
    exe = Path(sys.executable).with_name("general365")
    head = [str(exe)] if exe.exists() else [sys.executable, "-m", "general365.cli"]
    return [*head, "generate", "--backend", "openai", "--model", model,
            "--base-url", base_url, "--dataset", "sample", "--limit", "12", "--runs", str(RUNS),
            "--max-tokens", "64", "--concurrency", "4", "--max-attempts", "3",
            "--out", str(out)]


def test_kill_minus_nine_then_resume(fault_server, tmp_path):
    rng = random.Random(SEED)
    latency = random.Random(SEED + 1)

    def script(request, n):
        # The reply names its own request (seed and question), so a record filed under the
        # wrong (id, run) would show; latency spreads completions over time.
        question = request["messages"][-1]["content"]
        return Behaviour.reply(f"seed={request['seed']} q={len(question)}",
                               delay=latency.uniform(0.02, 0.12))

    fault_server.set_script(script)
    out = tmp_path / "run"
    responses = out / "responses.jsonl"
    env = {**os.environ, "OPENAI_API_KEY": "test-key"}
    cmd = generate_cmd(fault_server.base_url, fault_server.model, out)

    landed = 0
    torn_injected = False
    for attempt in range(KILLS * 3):
        if landed >= KILLS:
            break
        before = count_lines(responses)
        target = before + rng.randint(1, 8)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        deadline = time.monotonic() + 60
        while proc.poll() is None and count_lines(responses) < target \
                and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.08))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            assert proc.returncode == -signal.SIGKILL
            landed += 1
        else:
            proc.communicate()
        proc.stdout.close()
        proc.stderr.close()
        if landed == 3 and not torn_injected:
            # What a kill in the middle of a write leaves behind: half a line, no newline.
            with open(responses, "ab") as f:
                f.write(b'{"id": "g365s-torn", "run": 0, "response": "half a li')
            torn_injected = True
    assert landed >= 5, f"only {landed} kills landed mid-run"
    assert torn_injected
    partial = count_lines(responses)

    final = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert final.returncode == 0, final.stderr[-2000:]

    records = list(iter_records(str(responses)))
    assert responses.read_bytes().endswith(b"\n")
    keys = collections.Counter((r["id"], r["run"]) for r in records)
    problems = {r["id"] for r in records}
    assert len(problems) == 12                        # --limit 12 of the bundled sample
    assert "g365s-torn" not in problems
    assert all(c == 1 for c in keys.values()), [k for k, c in keys.items() if c > 1]
    assert set(keys) == {(p, r) for p in problems for r in range(RUNS)}
    for r in records:
        assert r["response"].startswith(f"seed={r['sampling']['seed']} ")
    assert len({r["sampling"]["seed"] for r in records}) == RUNS

    summary = final.stdout
    assert f"already done {partial}" in summary or partial == 0
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["status"] == "complete"
    assert run_json["counts"]["records_in_file"] == len(problems) * RUNS
    assert len(run_json["sessions"]) >= 2


def test_torn_line_recovery_is_reported_by_the_command(fault_server, tmp_path):
    fault_server.set_script(lambda r, n: Behaviour.reply(f"seed={r['seed']}"))
    out = tmp_path / "run"
    env = {**os.environ, "OPENAI_API_KEY": "test-key"}
    cmd = generate_cmd(fault_server.base_url, fault_server.model, out)
    cmd[cmd.index("--runs") + 1] = "1"
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    responses = out / "responses.jsonl"
    lines = responses.read_bytes().split(b"\n")[:-1]
    # Drop the last record and leave half of it, as a kill mid-write would.
    responses.write_bytes(b"\n".join(lines[:-1]) + b"\n" + lines[-1][: len(lines[-1]) // 2])
    second = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert second.returncode == 0, second.stderr
    # Said once: the store used to log a warning as well as the command printing it.
    assert second.stderr.count("torn last line") == 1, second.stderr
    assert "written 1, already done" in second.stdout
    assert responses.read_bytes().split(b"\n")[:-1] [:-1] == lines[:-1]
    assert len(list(iter_records(str(responses)))) == len(lines)


def _as_from_a_terminal() -> None:
    # Ctrl-C in a terminal reaches a process whose SIGINT is at its default; a test run in
    # the background has it ignored, and the child would inherit that.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_generate_at_once_keeps_every_answer_and_the_rerun_asks_the_rest(
        fault_server, tmp_path):
    # 12 problems x 6 runs = 72 requests. The first ANSWERED are answered at once; the rest
    # hang for ten minutes (the request timeout is longer), so the Ctrl-C lands with exactly
    # ANSWERED answers received and CONCURRENCY requests in flight.
    answered, concurrency, total = 20, 4, 12 * RUNS
    fault_server.set_script(lambda req, n: Behaviour.reply(f"seed={req['seed']}")
                            if n < answered else Behaviour.slow(600, content="late"))
    out = tmp_path / "run"
    responses = out / "responses.jsonl"
    env = {**os.environ, "OPENAI_API_KEY": "test-key"}
    cmd = generate_cmd(fault_server.base_url, fault_server.model, out)
    cmd[cmd.index("--max-attempts") + 1] = "1"
    cmd += ["--request-timeout", "900"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, preexec_fn=_as_from_a_terminal)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and not (
                count_lines(responses) >= answered
                and len(fault_server.requests) >= answered + concurrency):
            assert time.monotonic() < deadline, "the answered requests never all landed"
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        # At once: the hanging requests are 10 minutes from their timeout.
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    assert [ln for ln in err.splitlines() if "interrupted" in ln] == [
        "general365 generate: interrupted"], err[-2000:]
    kept = list(iter_records(str(responses)))
    assert len(kept) == answered and all(r["response"].startswith("seed=") for r in kept)

    fault_server.reset()
    fault_server.set_script(lambda req, n: Behaviour.reply(f"seed={req['seed']}"))
    final = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert final.returncode == 0, final.stderr[-2000:]
    assert len(fault_server.requests) == total - answered      # only what was missing
    records = list(iter_records(str(responses)))
    keys = collections.Counter((r["id"], r["run"]) for r in records)
    assert len(keys) == total and set(keys.values()) == {1}
