"""Reasoning-similarity judging (Figure 7) against a judge server of fixed latency.

The fault-injecting server (tests/support/servers.py), in its own process as a real judge
server would be, answers every request after `--latency` seconds with a score. The set is
`--items` generated questions with reasoning (the grammar-made "diverse" set of
analyze_scale.py), analysed with TF-IDF; each item is scored against its nearest
neighbour by `general365.analysis.similarity.reasoning_similarity`, the path `analyze`
takes (mutual neighbours make one question, so fewer requests than items). With
concurrency C, Q distinct questions ideally take ceil(Q/C) * L seconds; the figure that
matters is achieved / ideal (target >= 0.8). Printed beside it, in the same run: the
verdict judge (`judge_batch`) on as many items at the same concurrency, and the rerun
served from the cache.

    .venv/bin/python benchmarks/similarity_throughput.py [--items 600 --concurrency 32 --latency 0.2]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from analyze_scale import diverse_questions  # noqa: E402
from general365.analysis import analyze  # noqa: E402
from general365.analysis.datasets import QUESTIONS, AnalysisSet, Item  # noqa: E402
from general365.analysis.similarity import reasoning_similarity  # noqa: E402
from general365.grading.judge import Judge, JudgeItem  # noqa: E402
from served import report_against_server  # noqa: E402
from support.servers import Behaviour  # noqa: E402


def _script(latency: float):
    def script(req, n):
        if req["messages"][0]["content"].startswith("You are an expert evaluator"):
            return Behaviour.slow(latency, content='{"accuracy": true}')
        return Behaviour.slow(latency, content=str(n % 6))
    return script


def measure(a, base_url: str, cache: Path) -> list[str]:
    questions = diverse_questions(a.items)
    items = [Item(id=f"q{i}", question=q, answer=str(i % 17),
                  reasoning=f"Work through the rule step by step for case {i}.")
             for i, q in enumerate(questions)]
    analysed = analyze([AnalysisSet("diverse", "generated", QUESTIONS, items)],
                       embedder="tfidf", tsne_method="off", cache=False).datasets
    # Warm-up outside the timing: the SDK imports its types lazily (~0.7 s on first use).
    Judge("bench-judge", base_url=base_url, cache=False).judge_batch(
        [JudgeItem("Q?", "A", "A")])

    rows, ratios = [], []
    distinct = None
    for rep in range(a.repeats):
        judge = Judge("bench-judge", base_url=base_url, concurrency=a.concurrency,
                      cache=cache if rep == 0 else False)
        t0 = time.perf_counter()
        sim = reasoning_similarity(analysed, judge)
        elapsed = time.perf_counter() - t0
        s = sim.sets[0]
        assert s.failed == 0 and len(s.scores) == a.items, "unscored pairs"
        distinct = judge.stats.requests
        ideal = math.ceil(distinct / a.concurrency) * a.latency
        ratios.append(ideal / elapsed)
        rows.append((f"similarity, C={a.concurrency}, repeat {rep + 1}", distinct, elapsed,
                     ideal / elapsed))

    verdict_items = [JudgeItem(f"Question {i}?", "B", f"pick {i}") for i in range(distinct)]
    judge = Judge("bench-judge", base_url=base_url, concurrency=a.concurrency, cache=False)
    t0 = time.perf_counter()
    judge.judge_batch(verdict_items)
    v_elapsed = time.perf_counter() - t0
    v_ideal = math.ceil(distinct / a.concurrency) * a.latency
    rows.append((f"verdict judge_batch, C={a.concurrency}", distinct, v_elapsed,
                 v_ideal / v_elapsed))

    rerun = Judge("bench-judge", base_url=base_url, concurrency=a.concurrency, cache=cache)
    t0 = time.perf_counter()
    reasoning_similarity(analysed, rerun)
    c_elapsed = time.perf_counter() - t0
    assert rerun.stats.requests == 0, "the rerun asked the server"
    rows.append(("rerun from the cache (0 requests)", 0, c_elapsed, float("nan")))

    lines = [f"similarity throughput: {a.items} items, {distinct} distinct questions, server "
             f"latency {a.latency * 1000:.0f} ms, concurrency {a.concurrency}",
             f"  {'run':<40}{'requests':>9}{'seconds':>9}{'ideal/achieved':>16}"]
    lines += [f"  {name:<40}{n:>9}{sec:>9.2f}{r:>16.2f}" for name, n, sec, r in rows]
    lines.append(f"  median achieved/ideal = {statistics.median(ratios):.2f} (target >= 0.80); "
                 f"verdict path, same run: {v_ideal / v_elapsed:.2f}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=600)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()

    return report_against_server(_script(a.latency),
                                 lambda url, cache: measure(a, url, cache))


if __name__ == "__main__":
    sys.exit(main())
