"""`general365 demo`: the whole pipeline offline, on the bundled sample (general365.demo)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..demo import DEMO_BACKENDS, REAL_MODEL_LINE
from . import run as run_cli


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="general365-demo", metavar="DIR",
                   help="run folder (default: ./general365-demo; rerunning resumes it)")
    p.add_argument("--runs", type=int, default=2, help="samples per problem (default 2)")
    p.add_argument("--limit", type=int, help="only the first N sample problems")
    p.add_argument("--max-tokens", type=int, default=192,
                   help="output tokens per answer (default 192: the model is random)")
    p.add_argument("--model-dir", help="where the tiny model lives (default: the user cache)")
    p.add_argument("--backend", choices=DEMO_BACKENDS, default="transformers",
                   help="runner for the tiny model (default transformers; vllm needs vllm)")


def main(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    def building(folder: Path) -> None:
        print(f"general365 demo: building a tiny random model in {folder} ...", file=sys.stderr)

    result = run_demo(args.out, runs=args.runs, limit=args.limit, max_tokens=args.max_tokens,
                      model_dir=args.model_dir, backend=args.backend, on_stage=run_cli.print_stage,
                      on_build=building)
    code = run_cli.print_result(result, args.out)
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
