"""The persistent rule-grading pool: a hard per-item limit, killed and replaced workers,
order kept, no threads around math-verify."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from general365.grading.pool import RulePool, RuleTask
from general365.answers.gold import parse_gold
from general365.schema import AnswerType, Status

GOLD = parse_gold("12", AnswerType.NUMBER, 0)
INTERVAL = parse_gold("[2,5)", AnswerType.INTERVAL, 0)
SLOW = "9^{9^{9^{9}}}"          # math-verify takes far longer than any limit here
NESTED = "(" * 400 + "1" + ")" * 400


@pytest.fixture(scope="module")
def pool():
    with RulePool(2) as p:
        yield p


def test_results_in_order_and_correct(pool):
    tasks = [RuleTask(GOLD, r"2^{2}\cdot 3"), RuleTask(GOLD, r"\sqrt{145}"),
             RuleTask(INTERVAL, r"2\le x<5"), RuleTask(INTERVAL, r"2< x\le 5")] * 3
    res = pool.map(tasks, timeout=30)
    assert [r.status for r in res] == [Status.CORRECT, Status.INCORRECT,
                                       Status.CORRECT, Status.INCORRECT] * 3


def test_item_past_its_limit_is_killed_with_its_worker_and_the_batch_goes_on(pool):
    pool.map([RuleTask(GOLD, "12")], timeout=30)  # workers started and warm
    before = set(pool.pids())
    replaced = pool.replaced
    tasks = [RuleTask(GOLD, r"\sqrt{144}"), RuleTask(GOLD, SLOW), RuleTask(GOLD, r"\frac{24}{2}"),
             RuleTask(GOLD, NESTED), RuleTask(GOLD, r"13")]
    res = pool.map(tasks, timeout=1.0)
    assert [r.status for r in res] == [Status.CORRECT, Status.TIMEOUT, Status.CORRECT,
                                       Status.TIMEOUT, Status.INCORRECT]
    assert "limit" in res[1].detail
    assert pool.replaced == replaced + 2
    after = set(pool.pids())
    assert len(after) == 2 and after != before
    for pid in before - after:  # the killed workers are gone, not left running
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    # The replaced workers keep grading.
    assert pool.map([RuleTask(GOLD, r"\sqrt{144}")] * 4, timeout=30)[0].status is Status.CORRECT


def test_a_worker_that_dies_marks_its_item_and_is_replaced(pool):
    pool.map([RuleTask(GOLD, "12")], timeout=30)
    replaced = pool.replaced

    def kill_busy_worker():
        time.sleep(1.0)
        for w in pool._workers:
            if w.index is not None:
                os.kill(w.pid, signal.SIGKILL)

    t = threading.Thread(target=kill_busy_worker)
    t.start()
    res = pool.map([RuleTask(GOLD, SLOW)], timeout=60)
    t.join()
    assert res[0].status is Status.TIMEOUT and "died" in res[0].detail
    assert pool.replaced == replaced + 1
    assert pool.map([RuleTask(GOLD, "12")], timeout=30)[0].status is Status.CORRECT


def test_workers_are_single_threaded_processes(pool):
    # math-verify's SIGALRM timeouts only work in a main thread; ours are switched off and
    # each worker grades in its own process main thread.
    pool.map([RuleTask(GOLD, "12")], timeout=30)
    for pid in pool.pids():
        assert pid != os.getpid()
        with open(f"/proc/{pid}/status") as f:
            threads = int(next(l for l in f if l.startswith("Threads:")).split()[1])
        assert threads == 1


def test_empty_batch_starts_nothing():
    p = RulePool(1)
    assert p.map([]) == [] and p.pids() == []
    p.close()


def test_close_stops_the_workers():
    p = RulePool(1)
    p.map([RuleTask(GOLD, "12")], timeout=30)
    [pid] = p.pids()
    p.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_workers_run_under_an_address_space_limit():
    # A blow-up (`99999^{99999}!` grows by hundreds of MiB a second) must not take the
    # memory of a shared machine before the time limit comes: each worker has a cap.
    with RulePool(1, memory_limit_mb=1536) as p:
        assert p.map([RuleTask(GOLD, "12")], timeout=30)[0].status is Status.CORRECT
        [pid] = p.pids()
        with open(f"/proc/{pid}/limits") as f:
            line = next(l for l in f if l.startswith("Max address space"))
        assert line.split()[3] == str(1536 * 2**20)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie is gone too
    except FileNotFoundError:
        return True


def test_a_killed_server_takes_its_workers_and_the_next_batch_starts_a_new_one():
    with RulePool(2) as p:
        assert p.map([RuleTask(GOLD, r"\sqrt{144}")], timeout=30)[0].status is Status.CORRECT
        server, workers = p.server_pid, p.pids()
        os.kill(server, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not all(_gone(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(_gone(pid) for pid in workers)  # PR_SET_PDEATHSIG: no orphans
        res = p.map([RuleTask(GOLD, r"\sqrt{144}"), RuleTask(GOLD, r"\sqrt{145}")], timeout=30)
        assert [r.status for r in res] == [Status.CORRECT, Status.INCORRECT]
        assert p.server_pid != server and not set(p.pids()) & set(workers)


def test_a_server_that_cannot_import_math_verify_says_why(tmp_path, monkeypatch):
    # The server resolves imports as the caller does (its sys.path), so a broken
    # math_verify first on the caller's path is the one it finds.
    (tmp_path / "math_verify.py").write_text("raise ImportError('this math_verify is broken')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    p = RulePool(1)
    with pytest.raises(RuntimeError, match="could not import") as err:
        p.map([RuleTask(GOLD, r"\sqrt{144}")], timeout=30)
    assert "this math_verify is broken" in str(err.value)
    assert p.server_pid is None
    monkeypatch.undo()
    assert p.map([RuleTask(GOLD, r"\sqrt{144}")], timeout=30)[0].status is Status.CORRECT
    p.close()


def test_a_server_that_dies_as_it_starts_is_one_clear_error(monkeypatch):
    monkeypatch.setattr("sys.executable", "/bin/false")
    p = RulePool(1)
    with pytest.raises(RuntimeError, match=r"exited as it started \(exit code 1\)"):
        p.map([RuleTask(GOLD, r"\sqrt{144}")], timeout=30)
    p.close()


def test_workers_are_children_of_the_pools_own_server_not_of_the_caller(pool):
    pool.map([RuleTask(GOLD, "12")], timeout=30)
    for pid in pool.pids():
        with open(f"/proc/{pid}/stat") as f:
            ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        assert ppid == pool.server_pid
    with open(f"/proc/{pool.server_pid}/cmdline") as f:
        argv = f.read().split("\0")
    assert "general365.grading.pool_server" in argv[2]  # python -c <bootstrap>, no __main__


def test_a_map_cut_short_leaves_no_stale_answer_for_the_next(pool):
    # Ctrl-C (here a signal handler that raises) while a worker grades a hanging item: the
    # next batch must not wait on it or take its answer for one of its own items.
    class Cut(Exception):
        pass

    def cut(*_):
        raise Cut

    pool.map([RuleTask(GOLD, "12")], timeout=30)
    old = signal.signal(signal.SIGALRM, cut)
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        with pytest.raises(Cut):
            pool.map([RuleTask(GOLD, SLOW), RuleTask(GOLD, r"\sqrt{144}")], timeout=600)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    replaced = pool.replaced
    res = pool.map([RuleTask(GOLD, r"\sqrt{145}"), RuleTask(GOLD, r"\sqrt{144}")], timeout=30)
    assert [r.status for r in res] == [Status.INCORRECT, Status.CORRECT]
    assert pool.replaced == replaced + 2


def test_prewarm_starts_the_server_at_once_and_the_first_map_uses_it():
    p = RulePool(1)
    try:
        p.prewarm()
        server = p.server_pid
        assert server is not None and p.pids() == []   # the server only: no worker yet
        p.prewarm()                                      # a second call changes nothing
        assert p.server_pid == server
        assert p.map([RuleTask(GOLD, r"\sqrt{144}")], timeout=60)[0].status is Status.CORRECT
        assert p.server_pid == server and len(p.pids()) == 1
    finally:
        p.close()
    assert _gone(server)


def test_a_prewarmed_server_never_used_is_killed_not_waited_for():
    # It reads "stop" only once its imports are done: closing kills it instead, so a grade
    # that needed no math-verify does not wait for them at exit.
    p = RulePool(1)
    p.prewarm()
    link = p._server
    p.close()
    assert p.server_pid is None and link.proc.returncode == -signal.SIGKILL


def test_the_file_grader_prewarms_the_pool_at_its_first_number_or_interval_problem():
    from general365.grading.hybrid import HybridGrader
    from general365.grading.pool import shared_pool
    from general365.schema import Response

    grader = HybridGrader(None, policy="rule", workers=5)
    pool = shared_pool(5)
    try:
        grader.pairing.pair(Response("t", 0, "Paris", inline={"answer": "Paris",
                                                              "answer_type": "text"}))
        grader.pairing.pair(Response("c", 0, "B", inline={"answer": "B",
                                                          "answer_type": "single_choice"}))
        assert pool.server_pid is None   # nothing math-verify could be asked about
        grader.pairing.pair(Response("n", 0, r"\boxed{3}", inline={"answer": "3",
                                                                   "answer_type": "number"}))
        assert pool.server_pid is not None
    finally:
        pool.close()


def test_interval_machinery_is_warmed_on_the_first_interval_item_and_only_then():
    # The server warms what number answers need as it starts; sympy's set machinery only
    # once an interval item comes, and the workers forked before that are swapped for
    # warm ones (not counted as replaced: nothing failed).
    with RulePool(2) as p:
        assert p.map([RuleTask(GOLD, r"\sqrt{144}")], timeout=60)[0].status is Status.CORRECT
        assert p._server.warmed == set()
        numbers_only = set(p.pids())
        res = p.map([RuleTask(INTERVAL, r"2\le x<5"), RuleTask(INTERVAL, r"2< x\le 5"),
                     RuleTask(GOLD, r"\sqrt{145}")], timeout=60)
        assert [r.status for r in res] == [Status.CORRECT, Status.INCORRECT, Status.INCORRECT]
        assert p._server.warmed == {"interval"} and p.replaced == 0
        warm = set(p.pids())
        assert len(warm) == 2 and not warm & numbers_only
        for pid in numbers_only:
            assert _gone(pid)
        p.map([RuleTask(INTERVAL, r"[2,5)")], timeout=60)
        assert set(p.pids()) == warm             # warm once: no more swaps
        # A server started again (the old one killed) is warmed before its first fork.
        server = p.server_pid
        os.kill(server, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not all(_gone(pid) for pid in warm) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert p.map([RuleTask(GOLD, r"\sqrt{144}")], timeout=60)[0].status is Status.CORRECT
        assert p.server_pid != server and p._server.warmed == {"interval"}
