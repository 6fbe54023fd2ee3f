"""`general365 demo`: the whole pipeline offline, on the bundled sample.

It builds (or reuses) a tiny random Llama model, generates answers for the sample with a real
runner (transformers on the CPU), grades them with the judge-free `rule` policy and writes the
report. A tiny random model's scores mean nothing: the point is to see every stage work.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import pipeline
from .extras import backend_extra, require

REAL_MODEL_LINE = (
    "general365 run --backend vllm --model Qwen/Qwen3-8B --enable-thinking --runs 4 "
    "--preset reasoning --out runs/qwen3-8b --judge-model gpt-4.1"
)


DEMO_NAME = "tiny-random-llama (demo)"


def default_cache() -> Path:
    root = os.environ.get("GENERAL365_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "general365")
    return Path(root)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="general365-demo", metavar="DIR",
                   help="run folder (default: ./general365-demo; rerunning resumes it)")
    p.add_argument("--runs", type=int, default=2, help="samples per problem (default 2)")
    p.add_argument("--limit", type=int, help="only the first N sample problems")
    p.add_argument("--max-tokens", type=int, default=192,
                   help="output tokens per answer (default 192: the model is random)")
    p.add_argument("--model-dir", help="where the tiny model lives (default: the user cache)")
    p.add_argument("--backend", choices=("transformers", "vllm"), default="transformers",
                   help="runner for the tiny model (default transformers; vllm needs vllm)")


def main(args: argparse.Namespace) -> int:
    # The tiny model is built with transformers whatever runs it; the report draws figures.
    require("demo", ["transformers", *backend_extra(args.backend), "plots"])
    from .tiny_model import build_tiny_model, is_built

    model_dir = Path(args.model_dir) if args.model_dir else default_cache() / "tiny-model"
    if not is_built(model_dir):
        print(f"general365 demo: building a tiny random model in {model_dir} ...", file=sys.stderr)
    build_tiny_model(model_dir)

    argv = ["--model", str(model_dir), "--backend", args.backend, "--dataset", "sample",
            "--runs", str(args.runs), "--max-tokens", str(args.max_tokens),
            "--preset", "reasoning", "--out", args.out, "--policy", "rule",
            "--name", DEMO_NAME]
    if args.limit:
        argv += ["--limit", str(args.limit)]
    if args.backend == "transformers":
        argv += ["--batch-size", "32"]
    if args.backend == "vllm":
        argv += ["--dtype", "float32", "--enforce-eager", "--max-model-len", "2048"]
    run_args = pipeline.stage_args(pipeline, argv)
    code = pipeline.main(run_args)
    if code:
        return code
    report = Path(args.out) / "report"
    print("\n".join([
        "",
        "general365 demo: done. Every stage ran for real: data -> prompts -> runner -> grader -> report.",
        "  The model is a tiny RANDOM network built on this machine: its scores mean nothing.",
        f"  Responses: {Path(args.out) / 'responses.jsonl'}",
        f"  Graded:    {Path(args.out) / 'graded.jsonl'}",
        f"  Report:    {report / 'index.html'} (open it in a browser), {report / 'report.md'}",
        "  To evaluate a real model on the official public split (GPU, vLLM; judge for choice/text):",
        f"    {REAL_MODEL_LINE}",
        "  or any OpenAI-compatible API: --backend openai --model NAME --base-url URL",
    ]))
    return 0
