"""Throughput of the OpenAI-compatible runner, store writes included.

Against the local fault server with a fixed latency per request, the best any client can do
with C requests in flight is C / latency requests per second. This prints, side by side in
the same run:

- ideal:     concurrency / latency
- baseline:  a bare AsyncOpenAI client, a semaphore and asyncio.gather (no retries, no store)
- runner:    OpenAIRunner.generate streamed into a RunStore (records built and appended,
             fsync every 64 records), i.e. what `general365 generate --backend openai` does

and each as a fraction of the ideal (target for the runner: >= 0.8).

    .venv/bin/python benchmarks/api_throughput.py [--requests 500] [--concurrency 32]
                                                   [--latency 0.2]
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


def with_runner(server: SimpleNamespace, requests: list[GenerationRequest],
                concurrency: int) -> tuple[float, int]:
    runner = OpenAIRunner(server.model, base_url=server.base_url, concurrency=concurrency,
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
    return elapsed, written


def _serve(conn, latency: float, text: str) -> None:
    # A separate process: the server's threads must not share the client's interpreter lock,
    # or the benchmark measures the fake server's CPU rather than the client's.
    import signal

    with FaultServer(script=lambda _r, _n: Behaviour.reply(text, delay=latency)) as server:
        conn.send((server.base_url, server.model))
        signal.sigwait({signal.SIGTERM})


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
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.2, help="seconds per request")
    a = ap.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "benchmark")
    import openai  # noqa: F401  (imported before the clocks start, for both contenders)
    text = "The answer is \\boxed{42}. " * 20

    parent, child = mp.Pipe()
    proc = mp.Process(target=_serve, args=(child, a.latency, text), daemon=True)
    proc.start()
    try:
        base_url, model = parent.recv()
        server = SimpleNamespace(base_url=base_url, model=model)
        requests = make_requests(a.requests)
        ideal = a.concurrency / a.latency
        c0, s0 = time.process_time(), _cpu(proc.pid)
        t_base = baseline(server, requests, a.concurrency)
        c1, s1 = time.process_time(), _cpu(proc.pid)
        t_run, written = with_runner(server, requests, a.concurrency)
        c2, s2 = time.process_time(), _cpu(proc.pid)
    finally:
        proc.terminate()
        proc.join(10)
    assert written == a.requests, f"store holds {written} of {a.requests}"
    rate_base, rate_run = a.requests / t_base, a.requests / t_run
    print(f"{a.requests} requests, concurrency {a.concurrency}, latency {a.latency * 1000:.0f} ms "
          f"per request; {os.cpu_count()} CPUs")
    print(f"{'':10s} {'seconds':>8s} {'req/s':>8s} {'of ideal':>9s}")
    print(f"{'ideal':10s} {a.requests / ideal:8.2f} {ideal:8.1f} {1.0:9.2f}")
    print(f"{'baseline':10s} {t_base:8.2f} {rate_base:8.1f} {rate_base / ideal:9.2f}   "
          f"bare AsyncOpenAI + gather, no store")
    print(f"{'runner':10s} {t_run:8.2f} {rate_run:8.1f} {rate_run / ideal:9.2f}   "
          f"OpenAIRunner -> RunStore ({written} records)")
    per = 1000 / a.requests
    print(f"CPU per request (ms): baseline client {(c1 - c0) * per:.2f}, runner client "
          f"{(c2 - c1) * per:.2f}; fake server {(s1 - s0) * per:.2f} / {(s2 - s1) * per:.2f}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"runner / baseline: {rate_run / rate_base:.2f}; target runner / ideal >= 0.80: "
          f"{'met' if rate_run / ideal >= 0.8 else 'NOT met'}")


if __name__ == "__main__":
    main()
