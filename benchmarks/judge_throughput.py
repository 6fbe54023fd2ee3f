"""Judge pipeline throughput against a server of fixed latency.

The fault-injecting server (tests/support/servers.py), in its own process as a real judge
server would be, answers every judge request after `--latency` seconds. With concurrency C,
N items ideally take ceil(N/C) * L seconds, i.e. C/L items per second; the figure that
matters is achieved / ideal (target >= 0.8). Printed beside it, in the same run: the
sequential baseline (C=1, a few items) and a rerun served from the cache (0 requests).

    .venv/bin/python benchmarks/judge_throughput.py [--items 500 --concurrency 32 --latency 0.2]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from general365.grading.judge import Judge, JudgeItem  # noqa: E402
from general365.schema import Status  # noqa: E402
from served import report_against_server  # noqa: E402
from support.servers import Behaviour  # noqa: E402


def _script(latency: float):
    def script(req, n):
        pred = req["messages"][1]["content"].rsplit("Prediction: ", 1)[1]
        verdict = "true" if pred.endswith("B") else "false"
        return Behaviour.slow(latency, content=f'{{"accuracy": {verdict}}}')
    return script


def timed(judge: Judge, items: list[JudgeItem]) -> tuple[float, list]:
    t0 = time.perf_counter()
    results = judge.judge_batch(items)
    return time.perf_counter() - t0, results


def measure(a, base_url: str, cache: Path) -> list[str]:
    items = [JudgeItem(f"Question {i}: which option?", "B",
                       f"I pick option {'B' if i % 3 else 'C'}") for i in range(a.items)]
    expected = [Status.CORRECT if i % 3 else Status.INCORRECT for i in range(a.items)]
    # Warm-up outside the timing: the SDK imports its types lazily (~0.7 s on first use).
    Judge("bench-judge", base_url=base_url, cache=False).judge_batch(items[:1])

    ideal_time = math.ceil(a.items / a.concurrency) * a.latency
    ideal_rate = a.items / ideal_time
    rows = [("ideal: ceil(N/C) * L", ideal_time, ideal_rate)]
    rates = []
    for rep in range(a.repeats):
        judge = Judge("bench-judge", base_url=base_url, concurrency=a.concurrency,
                      cache=cache if rep == 0 else False)
        elapsed, results = timed(judge, items)
        assert [r.status for r in results] == expected, "wrong verdicts"
        assert judge.stats.requests == a.items, "retries or re-asks happened"
        judge.close()
        rates.append(a.items / elapsed)
        rows.append((f"judge, C={a.concurrency}, repeat {rep + 1}", elapsed, a.items / elapsed))

    seq = Judge("bench-judge", base_url=base_url, concurrency=1, cache=False)
    seq_elapsed, _ = timed(seq, items[: a.baseline_items])
    seq_rate = a.baseline_items / seq_elapsed
    rows.append((f"baseline: C=1 ({a.baseline_items} items)", seq_elapsed, seq_rate))

    rerun = Judge("bench-judge", base_url=base_url, concurrency=a.concurrency, cache=cache)
    cache_elapsed, cached = timed(rerun, items)
    assert rerun.stats.requests == 0 and all(r.cached for r in cached)
    rerun.close()
    rows.append(("rerun from the cache (0 requests)", cache_elapsed, a.items / cache_elapsed))

    med = statistics.median(rates)
    lines = [f"judge throughput: {a.items} items, server latency {a.latency * 1000:.0f} ms, "
             f"concurrency {a.concurrency}",
             f"  {'run':<38}{'seconds':>9}{'items/s':>10}{'/ ideal':>9}"]
    lines += [f"  {name:<38}{sec:>9.2f}{rate:>10.1f}{rate / ideal_rate:>9.2f}"
              for name, sec, rate in rows]
    lines.append(f"  median achieved/ideal = {med / ideal_rate:.2f} (target >= 0.80); "
                 f"speed-up over sequential {med / seq_rate:.1f}x (ideal {a.concurrency}x)")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=500)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--baseline-items", type=int, default=10)
    a = ap.parse_args()

    return report_against_server(_script(a.latency),
                                 lambda url, cache: measure(a, url, cache))


if __name__ == "__main__":
    sys.exit(main())
