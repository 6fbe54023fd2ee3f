"""Throughput of the OpenAI-compatible runner, store writes included.

Against the local fault server with a fixed latency per request, the best any client can do
with C requests in flight is C / latency requests per second. This prints, side by side in
the same run:

- ideal:     concurrency / latency
- baseline:  a bare AsyncOpenAI client, a semaphore and asyncio.gather (no retries, no store)
- runner:    OpenAIRunner.generate streamed into a RunStore (records built and appended,
             fsync every 64 records), i.e. what `general365 generate --backend openai` does

and each as a fraction of the ideal (target for the runner: >= 0.8). With --endpoints N
(default 2) it also runs, in the same session:

- endpoints: the runner over N servers (several --base-url), --concurrency on EACH, so
             the ideal is N times one server's
- one dead:  the same N URLs with one of them dropping every connection (a replica that
             died behind its address): the requests it takes are rerouted, and the ideal is
             that of the N - 1 that answer

    .venv/bin/python benchmarks/api_throughput.py [--requests 500] [--concurrency 32]
                                                   [--latency 0.2] [--endpoints 2]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))   # the fault server lives with the test fixtures

from general365.runners.base import GenerationRequest, preset, run_seed  # noqa: E402
from general365.runners.openai_api import OpenAIRunner, RetryPolicy  # noqa: E402
from general365.runners.store import RecordKey, RunStore, build_record  # noqa: E402
from support.servers import Behaviour, FaultServer  # noqa: E402


def make_requests(n: int) -> list[GenerationRequest]:
    s = preset("reasoning", max_tokens=256)
    return [GenerationRequest(f"p{i:04d}", 0,
                              ({"role": "user", "content": f"Question {i}: what is {i}+{i}?"},),
                              s.with_seed(run_seed(0, i)))
            for i in range(n)]


def baseline(server: SimpleNamespace, requests: list[GenerationRequest], concurrency: int) -> float:
    import openai

    async def go() -> None:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        sem = asyncio.Semaphore(concurrency)

        async def one(r: GenerationRequest) -> None:
            async with sem:
                await client.chat.completions.create(
                    model=server.model, messages=list(r.messages), max_tokens=256,
                    temperature=1.0, seed=r.sampling.seed)

        await asyncio.gather(*(one(r) for r in requests))
        await client.close()

    t = time.perf_counter()
    asyncio.run(go())
    return time.perf_counter() - t


def with_runner(urls: list[str], model: str, requests: list[GenerationRequest],
                concurrency: int) -> tuple[float, int, OpenAIRunner]:
    runner = OpenAIRunner(model, base_url=urls, concurrency=concurrency,
                          retry=RetryPolicy(max_attempts=3))
    with tempfile.TemporaryDirectory() as folder:
        t = time.perf_counter()
        runner.prepare(requests)
        by_key = {(r.problem_id, r.run): r for r in requests}
        with RunStore(folder) as store:
            for g in runner.generate(requests):
                r = by_key[(g.problem_id, g.run)]
                store.append(build_record(g, r, runner.model_id, None),
                             RecordKey.of(r, runner.model_id))
        elapsed = time.perf_counter() - t
        written = len(store)
    return elapsed, written, runner


def _serve(conn, latency: float, text: str, dead: bool = False) -> None:
    # A separate process: the server's threads must not share the client's interpreter lock,
    # or the benchmark measures the fake server's CPU rather than the client's.
    import signal

    behaviour = Behaviour.drop() if dead else Behaviour.reply(text, delay=latency)
    with FaultServer(script=lambda _r, _n: behaviour) as server:
        conn.send((server.base_url, server.model))
        signal.sigwait({signal.SIGTERM})


def _start(latency: float, text: str, dead: bool = False):
    parent, child = mp.Pipe()
    proc = mp.Process(target=_serve, args=(child, latency, text, dead), daemon=True)
    proc.start()
    base_url, model = parent.recv()
    return proc, base_url, model


def _cpu(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=500)
    ap.add_argument("--concurrency", type=int, default=32, help="in flight on each server")
    ap.add_argument("--latency", type=float, default=0.2, help="seconds per request")
    ap.add_argument("--endpoints", type=int, default=2, help="servers for the several-URL rows")
    a = ap.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "benchmark")
    import openai  # noqa: F401  (imported before the clocks start, for both contenders)
    text = "The answer is \\boxed{42}. " * 20

    procs = []
    try:
        live = []
        for _ in range(a.endpoints):
            proc, url, model = _start(a.latency, text)
            procs.append(proc)
            live.append(url)
        proc, dead_url, _ = _start(a.latency, text, dead=True)
        procs.append(proc)
        server = SimpleNamespace(base_url=live[0], model=model)
        requests = make_requests(a.requests)
        ideal = a.concurrency / a.latency
        c0, s0 = time.process_time(), _cpu(procs[0].pid)
        t_base = baseline(server, requests, a.concurrency)
        c1, s1 = time.process_time(), _cpu(procs[0].pid)
        t_run, written, _ = with_runner(live[:1], model, requests, a.concurrency)
        c2, s2 = time.process_time(), _cpu(procs[0].pid)
        t_many, written_many, many = with_runner(live, model, requests, a.concurrency)
        c3 = time.process_time()
        with_dead = live[:-1] + [dead_url]
        t_dead, written_dead, dead = with_runner(with_dead, model, requests, a.concurrency)
    finally:
        for proc in procs:
            proc.terminate()
            proc.join(10)
    for n, label in ((written, "runner"), (written_many, "endpoints"), (written_dead, "one dead")):
        assert n == a.requests, f"{label}: store holds {n} of {a.requests}"
    rate_base, rate_run = a.requests / t_base, a.requests / t_run
    rate_many, rate_dead = a.requests / t_many, a.requests / t_dead
    ideal_many, ideal_dead = ideal * a.endpoints, ideal * (a.endpoints - 1)
    print(f"{a.requests} requests, concurrency {a.concurrency} per server, latency "
          f"{a.latency * 1000:.0f} ms per request; {os.cpu_count()} CPUs")
    print(f"{'':10s} {'seconds':>8s} {'req/s':>8s} {'ideal':>8s} {'of ideal':>9s}")
    rows = [("baseline", t_base, rate_base, ideal, "bare AsyncOpenAI + gather, no store, 1 server"),
            ("runner", t_run, rate_run, ideal, "OpenAIRunner -> RunStore, 1 server"),
            ("endpoints", t_many, rate_many, ideal_many,
             f"the same over {a.endpoints} servers"),
            ("one dead", t_dead, rate_dead, ideal_dead,
             f"{a.endpoints} URLs, one dropping every connection")]
    for name, seconds, rate, best, what in rows:
        print(f"{name:10s} {seconds:8.2f} {rate:8.1f} {best:8.1f} {rate / best:9.2f}   {what}")
    per = 1000 / a.requests
    print(f"CPU per request (ms): baseline client {(c1 - c0) * per:.2f}, runner client "
          f"{(c2 - c1) * per:.2f} (1 server), {(c3 - c2) * per:.2f} ({a.endpoints} servers); "
          f"fake server {(s1 - s0) * per:.2f} / {(s2 - s1) * per:.2f}; load average "
          f"{os.getloadavg()[0]:.2f}")
    served = [e["served"] for e in many.provenance()["endpoints"]]
    gone = dead.provenance()["endpoints"][-1]
    print(f"served per server ({a.endpoints} servers): {served}; one dead: its "
          f"{gone['tries']} tries rerouted ({dead.stats['rerouted']}), marked down "
          f"{gone['marked_down']}x")
    print(f"runner / baseline: {rate_run / rate_base:.2f}; {a.endpoints} servers / 1: "
          f"{rate_many / rate_run:.2f} (ideal {a.endpoints:.2f}); target runner / ideal >= "
          f"0.80: {'met' if rate_run / ideal >= 0.8 else 'NOT met'}")


if __name__ == "__main__":
    main()
