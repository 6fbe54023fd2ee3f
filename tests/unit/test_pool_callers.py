"""The rule pool from any caller (issue 14, section 1): each test runs a real caller in its
own process (a guard-less script, `python -c`, stdin, threads, os.fork, a multiprocessing
pool, torchrun, a Jupyter kernel, the evaluate metric) grading answers that need
math-verify, so the pool's workers really start and grade. After the caller ends (normally,
by raising, or by SIGKILL), no process it started is left: every process of a caller is
found by a token in its environment, which the pool's server and workers inherit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

psutil = pytest.importorskip("psutil")

PY = sys.executable
TOKEN_VAR = "GENERAL365_POOL_CALLER_TOKEN"

# Three of these answers need math-verify (not the exact fast path), so the pool grades.
PRELUDE = textwrap.dedent(r'''
    import json, os
    import general365
    from general365.grading.pool import shared_pool

    ROWS = [
        {"id": "a", "response": r"so \boxed{\sqrt{144}}", "answer": "12", "answer_type": "number"},
        {"id": "b", "response": r"so \boxed{2^{2}\cdot 3}", "answer": "12", "answer_type": "number"},
        {"id": "c", "response": r"so \boxed{\sqrt{145}}", "answer": "12", "answer_type": "number"},
        {"id": "d", "response": r"so \boxed{2\le x<5}", "answer": "[2,5)", "answer_type": "interval"},
    ]

    def grade_and_report(tag="main"):
        verdicts = general365.grade(ROWS, workers=2)
        pool = shared_pool(2)
        return {"tag": tag, "statuses": [v.status.value for v in verdicts],
                "graded": pool.graded, "pids": pool.pids(), "server": pool.server_pid,
                "pid": os.getpid()}

    def report(obj):
        print("RESULT " + json.dumps(obj), flush=True)
''')

EXPECTED = ["correct", "correct", "incorrect", "correct"]


def _env(token: str) -> dict:
    return {**os.environ, TOKEN_VAR: token}


def _results(stdout: str) -> list[dict]:
    return [json.loads(line[len("RESULT "):]) for line in stdout.splitlines()
            if line.startswith("RESULT ")]


def _alive_with(token: str) -> list[psutil.Process]:
    found = []
    for p in psutil.process_iter():
        try:
            if p.status() != psutil.STATUS_ZOMBIE and p.environ().get(TOKEN_VAR) == token:
                found.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return found


def assert_nothing_left(token: str, grace: float = 30.0) -> None:
    """Every process the caller started is gone (a bounded wait: the server notices the
    caller's exit as its control socket closes, then kills and reaps its workers)."""
    deadline = time.monotonic() + grace
    while True:
        left = _alive_with(token)
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert not left, [(p.pid, " ".join(p.cmdline())[:120]) for p in left]


def assert_found(token: str, report: dict) -> None:
    """While the caller lives, its server and workers are found by the token (so that
    assert_nothing_left is not vacuous)."""
    found = {p.pid for p in _alive_with(token)}
    assert {report["server"], *report["pids"]} <= found


def run_caller(args: list[str], tmp_path, token: str, input: str | None = None,
               timeout: float = 300) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, input=input, capture_output=True, text=True, cwd=tmp_path,
                          env=_env(token), timeout=timeout)
    return proc


def _check(report: dict) -> None:
    assert report["statuses"] == EXPECTED
    assert report["graded"] >= 3           # they went to the workers, not the fast path
    assert len(report["pids"]) == 2 and report["server"] not in report["pids"]


@pytest.fixture
def token():
    return uuid.uuid4().hex


# --- how the caller is started -----------------------------------------------------------


def test_script_without_main_guard(tmp_path, token):
    script = tmp_path / "train.py"
    script.write_text(PRELUDE + "report(grade_and_report())\nreport(grade_and_report('again'))\n")
    proc = run_caller([PY, str(script)], tmp_path, token)
    assert proc.returncode == 0, proc.stderr
    first, again = _results(proc.stdout)
    _check(first)
    assert again["statuses"] == EXPECTED and again["pids"] == first["pids"]  # kept warm
    assert "bootstrapping" not in proc.stderr and "Traceback" not in proc.stderr
    assert_nothing_left(token)


def test_python_dash_c(tmp_path, token):
    proc = run_caller([PY, "-c", PRELUDE + "report(grade_and_report())"], tmp_path, token)
    assert proc.returncode == 0, proc.stderr
    _check(_results(proc.stdout)[0])
    assert_nothing_left(token)


def test_script_on_stdin(tmp_path, token):
    proc = run_caller([PY, "-"], tmp_path, token, input=PRELUDE + "report(grade_and_report())\n")
    assert proc.returncode == 0, proc.stderr
    _check(_results(proc.stdout)[0])
    assert_nothing_left(token)


def test_the_callers_top_level_code_runs_once(tmp_path, token):
    # multiprocessing's spawn and forkserver re-import the caller's main module in their
    # children, guard or not (the code above the guard runs again: loading a model, say).
    # Our workers never import it.
    script = tmp_path / "train.py"
    script.write_text(PRELUDE + textwrap.dedent('''
        with open("ran.txt", "a") as f:
            f.write(f"{os.getpid()}\\n")
        if __name__ == "__main__":
            report(grade_and_report())
    '''))
    proc = run_caller([PY, str(script)], tmp_path, token)
    assert proc.returncode == 0, proc.stderr
    [r] = _results(proc.stdout)
    _check(r)
    assert (tmp_path / "ran.txt").read_text().split() == [str(r["pid"])]
    assert_nothing_left(token)


# --- threads, forks, multiprocessing ------------------------------------------------------


def test_threads_grade_at_once_through_one_pool(tmp_path, token):
    code = PRELUDE + textwrap.dedent('''
        import threading
        out = []
        ts = [threading.Thread(target=lambda i=i: out.append(grade_and_report(f"t{i}")))
              for i in range(3)]
        for t in ts: t.start()
        for t in ts: t.join()
        for r in out: report(r)
    ''')
    proc = run_caller([PY, "-c", code], tmp_path, token)
    assert proc.returncode == 0, proc.stderr
    reports = _results(proc.stdout)
    assert len(reports) == 3
    for r in reports:
        _check(r)
    assert len({tuple(r["pids"]) for r in reports}) == 1  # one shared pool
    assert_nothing_left(token)


@pytest.mark.parametrize("child_exit", ["sys.exit", "os._exit"])
def test_forked_child_gets_its_own_pool_and_leaves_the_parents_alone(tmp_path, token, child_exit):
    code = PRELUDE + textwrap.dedent(f'''
        import sys
        parent = grade_and_report("parent")
        report(parent)
        pid = os.fork()
        if pid == 0:
            report(grade_and_report("child"))
            {child_exit}(0)   # sys.exit runs the child's atexit: it closes only its own pool
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        report(grade_and_report("parent-after"))
    ''')
    proc = run_caller([PY, "-c", code], tmp_path, token)
    assert proc.returncode == 0, proc.stderr
    reports = {r["tag"]: r for r in _results(proc.stdout)}
    for r in reports.values():
        _check(r)
    parent, child, after = reports["parent"], reports["child"], reports["parent-after"]
    assert child["pid"] != parent["pid"]
    assert child["server"] != parent["server"] and not set(child["pids"]) & set(parent["pids"])
    assert after["pids"] == parent["pids"] and after["server"] == parent["server"]
    assert_nothing_left(token)


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_caller_runs_its_own_multiprocessing_pool(tmp_path, token, method):
    # Pool workers are daemonic: multiprocessing refuses them children of its own, which
    # is what the old forkserver-based pool needed.
    script = tmp_path / "train.py"
    script.write_text(PRELUDE + textwrap.dedent(f'''
        import multiprocessing as mp

        def work(i):
            assert mp.current_process().daemon
            return grade_and_report(f"worker{{i}}")

        if __name__ == "__main__":
            report(grade_and_report("parent"))   # the parent's pool exists before the fork
            with mp.get_context("{method}").Pool(2) as p:
                for r in p.map(work, range(2), chunksize=1):
                    report(r)
            report(grade_and_report("parent-after"))
    '''))
    proc = run_caller([PY, str(script)], tmp_path, token)
    assert proc.returncode == 0, proc.stderr
    reports = _results(proc.stdout)
    assert len(reports) == 4
    for r in reports:
        _check(r)
    parent = reports[0]
    for r in reports[1:3]:
        assert r["pid"] != parent["pid"] and r["server"] != parent["server"]
    assert reports[3]["pids"] == parent["pids"]
    assert_nothing_left(token)


def test_daemonic_multiprocessing_process_in_a_guardless_script(tmp_path, token):
    script = tmp_path / "train.py"
    script.write_text(PRELUDE + textwrap.dedent('''
        import multiprocessing as mp
        q = mp.get_context("fork").Queue()
        p = mp.get_context("fork").Process(target=lambda: q.put(grade_and_report("daemon")),
                                           daemon=True)
        p.start()
        report(q.get(timeout=240))
        p.join()
    '''))
    proc = run_caller([PY, str(script)], tmp_path, token)
    assert proc.returncode == 0, proc.stderr
    _check(_results(proc.stdout)[0])
    assert_nothing_left(token)


def test_idle_workers_killed_behind_the_pools_back_with_sigpipe_at_its_default(tmp_path, token):
    # The general365 CLI restores SIGPIPE's default; writing the next item to a dead
    # worker's socket must then be an error the pool handles, not the end of the caller.
    code = PRELUDE + textwrap.dedent('''
        import signal, time
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        first = grade_and_report("first")
        for pid in first["pids"]:
            os.kill(pid, signal.SIGKILL)
        time.sleep(1)
        report(first)
        report(grade_and_report("after"))
    ''')
    proc = run_caller([PY, "-c", code], tmp_path, token)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    first, after = _results(proc.stdout)
    _check(first)
    _check(after)
    assert not set(first["pids"]) & set(after["pids"])
    assert_nothing_left(token)


# --- launchers and front ends -------------------------------------------------------------


@pytest.mark.timeout(600)
def test_two_processes_under_torchrun(tmp_path, token):
    pytest.importorskip("torch")
    script = tmp_path / "train.py"
    script.write_text(PRELUDE + textwrap.dedent('''
        import torch.distributed as dist
        dist.init_process_group("gloo")
        mine = grade_and_report(f"rank{dist.get_rank()}")
        everyone = [None] * dist.get_world_size()
        dist.all_gather_object(everyone, mine)
        if dist.get_rank() == 0:
            for r in everyone:
                report(r)
        dist.destroy_process_group()
    '''))
    proc = run_caller([PY, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                       str(script)], tmp_path, token, timeout=540)
    assert proc.returncode == 0, proc.stderr[-3000:]
    reports = _results(proc.stdout)
    assert [r["tag"] for r in reports] == ["rank0", "rank1"]
    for r in reports:
        _check(r)
    assert reports[0]["server"] != reports[1]["server"]
    assert_nothing_left(token)


@pytest.mark.timeout(600)
def test_jupyter_kernel(tmp_path, token):
    pytest.importorskip("ipykernel")
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name="python3")
    km.kernel_cmd = [PY, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    km.start_kernel(env=_env(token), cwd=str(tmp_path))
    out = []
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=120)

        def run_cell(code):
            reply = kc.execute_interactive(
                code, timeout=240,
                output_hook=lambda m: out.append(m["content"].get("text", ""))
                if m["msg_type"] == "stream" else None)
            assert reply["content"]["status"] == "ok", reply["content"]

        run_cell(PRELUDE)
        run_cell("report(grade_and_report('cell1'))")
        run_cell("report(grade_and_report('cell2'))")
        assert_found(token, _results("".join(out))[0])
        kc.stop_channels()
    finally:
        km.shutdown_kernel(now=True)
    first, second = _results("".join(out))
    _check(first)
    _check(second)
    assert second["pids"] == first["pids"]  # the kernel keeps its pool between cells
    assert_nothing_left(token)


def test_evaluate_metric_in_a_guardless_script(tmp_path, token):
    pytest.importorskip("evaluate")
    script = tmp_path / "train.py"
    script.write_text(PRELUDE + textwrap.dedent('''
        import evaluate
        metric = evaluate.load(general365.METRIC_PATH)
        out = metric.compute(predictions=[r["response"] for r in ROWS],
                             references=[r["answer"] for r in ROWS],
                             answer_type=[r["answer_type"] for r in ROWS],
                             float_round=[0] * len(ROWS), workers=2)
        pool = shared_pool(2)
        report({"accuracy": out["accuracy"], "correct": out["correct"], "graded": pool.graded,
                "pids": pool.pids()})
    '''))
    proc = run_caller([PY, str(script)], tmp_path, token)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [r] = _results(proc.stdout)
    assert r["correct"] == 3 and r["accuracy"] == pytest.approx(0.75)
    assert r["graded"] >= 3 and len(r["pids"]) == 2
    assert_nothing_left(token)


# --- however the caller ends ---------------------------------------------------------------


def test_nothing_left_when_the_caller_raises(tmp_path, token):
    code = PRELUDE + "report(grade_and_report())\nraise RuntimeError('training diverged')\n"
    proc = run_caller([PY, "-c", code], tmp_path, token)
    assert proc.returncode == 1 and "training diverged" in proc.stderr
    _check(_results(proc.stdout)[0])
    assert_nothing_left(token)


@pytest.mark.parametrize("busy", [False, True])
def test_nothing_left_when_the_caller_is_killed(tmp_path, token, busy):
    # busy: a worker is inside a math-verify call that would run for hours when the caller
    # dies, and the item's own limit is far away.
    code = PRELUDE + textwrap.dedent(f'''
        import threading, time
        from general365.grading.pool import RuleTask
        from general365.answers.gold import parse_gold
        from general365.schema import AnswerType
        report(grade_and_report())
        if {busy}:
            pool = shared_pool(2)
            slow = RuleTask(parse_gold("12", AnswerType.NUMBER, 0), "9^{{9^{{9^{{9}}}}}}")
            threading.Thread(target=pool.map, args=([slow, slow],), kwargs={{"timeout": 3600}},
                             daemon=True).start()
            time.sleep(1)
        print("WAITING", flush=True)
        time.sleep(3600)
    ''')
    proc = subprocess.Popen([PY, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path, env=_env(token))
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("WAITING"):
                break
        [r] = _results("".join(lines))
        _check(r)
        assert_found(token, r)
        started = [psutil.Process(pid) for pid in r["pids"] + [r["server"]]]
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert_nothing_left(token)
    # A process in the middle of exiting no longer shows its environment (so the token
    # search passes it over) yet still runs for a moment on a loaded machine: wait for
    # each, bounded, before asking.
    psutil.wait_procs(started, timeout=30)
    for p in started:
        assert not p.is_running() or p.status() == psutil.STATUS_ZOMBIE
