"""What the harness costs on top of vLLM: `general365 generate` against a bare `LLM.chat`.

Both sides use the SAME engine (one `LLM`, started once, its start excluded from both):

    bare     llm.chat(all conversations, one SamplingParams per request) -- nothing else;
    harness  the `generate` command's main (dataset load, requests, prompt rendering and
             counting, the up-front refusal check, the runner's streamed engine loop,
             reasoning split, the append-only store, run.json), with its runner factory
             handed the already started runner.

Same prompts (the bundled sample's questions), same settings (preset reasoning: T=1.0,
top-p 1.0, top-k off; explicit max_tokens; seed per run), so the generated texts must be
identical too, and are compared. The sides alternate over several rounds after a warm-up
round (vLLM's prefix cache then serves both equally). On a shared machine one side's time
swings several-fold with the load of others, so the ratio is taken of the best time of
each (the least disturbed), and the median of the per-round ratios is shown beside it.

    .venv/bin/python benchmarks/generate_overhead.py [--runs 4] [--max-tokens 128] [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")  # vLLM logs to stdout, amid the figures


def bare_chat(llm, conversations, params_factory):
    start = time.perf_counter()
    outs = llm.chat(conversations, params_factory(), use_tqdm=False)
    return time.perf_counter() - start, [o.outputs[0].text for o in outs]


def harness(runner, model_dir: str, runs: int, max_tokens: int, out: str):
    """general365.generate end to end (requests, run store, run.json), on an engine already
    started (the library builds its runner through api.make_runner)."""
    import general365.api as api

    original = api.make_runner
    api.make_runner = lambda backend, model, **opts: runner
    close, runner.close = runner.close, lambda: None  # the engine outlives each round
    try:
        start = time.perf_counter()
        result = api.generate(model_dir, backend="vllm", dataset="sample", runs=runs,
                              max_tokens=max_tokens, preset="reasoning", out=out,
                              progress=False)
        seconds = time.perf_counter() - start
    finally:
        api.make_runner = original
        runner.close = close
    if not result.ok:
        raise SystemExit(f"generate failed: {result.errors}")
    rows = [json.loads(line) for line in Path(out, "responses.jsonl").read_text().splitlines()]
    return seconds, {(r["id"], r["run"]): r["response"] for r in rows}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=4)
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--model-dir", default=os.path.join(tempfile.gettempdir(), "general365-tiny-model"))
    opts = p.parse_args()

    import general365
    from general365.prompts import build_messages
    from general365.runners.base import preset, run_seed
    from general365.runners.options import DEFAULT_SEED
    from general365.runners.vllm import VLLMRunner
    from general365.tiny_model import build_tiny_model
    from vllm import SamplingParams

    model_dir = str(build_tiny_model(opts.model_dir))
    problems = general365.load_problems(source="sample")
    settings = preset("reasoning", max_tokens=opts.max_tokens)
    order = [(p, run) for run in range(opts.runs) for p in problems]
    conversations = [list(build_messages(p)) for p, _ in order]

    def params():
        return [SamplingParams(n=1, temperature=settings.temperature, top_p=settings.top_p,
                               top_k=settings.top_k, max_tokens=opts.max_tokens,
                               seed=run_seed(DEFAULT_SEED, run)) for _, run in order]

    t0 = time.perf_counter()
    runner = VLLMRunner(model_dir, max_model_len=2048, dtype="float32", enforce_eager=True)
    start_s = time.perf_counter() - t0
    llm = runner._engine.llm
    print(f"engine start (excluded from both): {start_s:.1f}s; {len(order)} requests "
          f"({len(problems)} problems x {opts.runs} runs), max_tokens {opts.max_tokens}",
          file=sys.stderr)

    bare_times, harness_times = [], []
    same = None
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(opts.rounds + 1):  # round 0 warms both up and is not counted
            sides = ["bare", "harness"] if round_ % 2 == 0 else ["harness", "bare"]
            for side in sides:  # alternating who goes first spreads drifts in load evenly
                if side == "bare":
                    b_s, b_texts = bare_chat(llm, conversations, params)
                else:
                    h_s, h_texts = harness(runner, model_dir, opts.runs, opts.max_tokens,
                                           os.path.join(tmp, f"run{round_}"))
            if round_ == 0:
                same = sum(h_texts.get((p.id, run)) == t for (p, run), t in zip(order, b_texts))
                continue
            bare_times.append(b_s)
            harness_times.append(h_s)
            print(f"round {round_}: bare {b_s:.3f}s, harness {h_s:.3f}s", file=sys.stderr)
    runner.close()

    def show(times):
        return (f"best {min(times):7.3f}s  median {statistics.median(times):7.3f}s  ("
                + ", ".join(f"{t:.2f}" for t in times) + ")")

    bare, full = min(bare_times), min(harness_times)
    paired = statistics.median(h / b for h, b in zip(harness_times, bare_times))
    print(f"requests                 {len(order)} ({len(problems)} problems x {opts.runs} runs, "
          f"max_tokens {opts.max_tokens}), {opts.rounds} rounds after a warm-up")
    print(f"identical texts          {same}/{len(order)}")
    print(f"bare LLM.chat            {show(bare_times)}")
    print(f"general365 generate      {show(harness_times)}")
    print(f"overhead (best vs best)  {full / bare - 1:+.1%}  (target < +10%)")
    print(f"overhead (median of per-round ratios)  {paired - 1:+.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
