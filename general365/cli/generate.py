"""`general365 generate`: wiring only, the flags are general365.generate's keyword arguments.
Exit codes: 0 all done; 1 some requests failed for good (rerun to retry them); 2 a user
error (one line, nothing written).
"""

from __future__ import annotations

import argparse
import sys

from ..runners.options import DEFAULT_SEED
from ..runners.registry import BACKENDS
from ..terminal import shown, shown_lines
from . import flags


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("what to run")
    g.add_argument("--model", required=True, help="model name or path (as the backend knows it)")
    g.add_argument("--backend", required=True, metavar="|".join(BACKENDS),
                   help="which runner generates")
    g.add_argument("--revision", help="model revision (a Hub commit or tag), recorded in the key")
    g.add_argument("--out", required=True, metavar="RUN_DIR",
                   help="run folder: responses.jsonl and run.json (resumed if it exists)")
    g = p.add_argument_group("data")
    flags.add_benchmark(g)
    g.add_argument("--dataset", metavar="SOURCE",
                   help="'sample' (bundled), a Hub id, a file or a folder; default: the "
                        "official public split")
    g.add_argument("--split", default="public", help="dataset split (default: public)")
    g.add_argument("--config", default="all", help="seed | variant | all (default: all)")
    g.add_argument("--limit", type=int, help="only the first N problems")
    g.add_argument("--ids", metavar="FILE", dest="ids_file",
                   help="only the problem ids listed in FILE, one a line")
    g.add_argument("--system-prompt", metavar="TEXT", help="a system message before each question")
    g = p.add_argument_group("sampling (paper, section 3.1: see --preset)")
    g.add_argument("--runs", type=int, default=1,
                   help="independent samples per problem, each with its own seed (paper, "
                        "Appendix D, uses 4); default 1")
    g.add_argument("--preset", default="reasoning",
                   help="reasoning (T=1.0) or chat (T=0.7); top-p 1.0, top-k off (default: "
                        "reasoning)")
    g.add_argument("--temperature", type=float)
    g.add_argument("--top-p", type=float)
    g.add_argument("--top-k", type=int, help="-1 = off")
    g.add_argument("--max-tokens", type=int,
                   help="output limit; default: the model's context minus the prompt")
    g.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"base seed; run r uses run_seed(seed, r) (default {DEFAULT_SEED})")
    g = p.add_argument_group("OpenAI-compatible API (--backend openai)")
    g.add_argument("--base-url", action="append", metavar="URL",
                   help="e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL or "
                        "api.openai.com); give it again for each replica serving the model: "
                        "requests are spread over them, and a replica that dies has its "
                        "requests retried on the others")
    g.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                   help="environment variable holding the API key (default OPENAI_API_KEY)")
    g.add_argument("--concurrency", type=int, default=16,
                   help="requests in flight on each --base-url (default 16)")
    g.add_argument("--request-timeout", type=float, default=600.0,
                   help="seconds per request before it is retried (default 600)")
    g.add_argument("--max-attempts", type=int, default=6,
                   help="tries per request before it is reported failed (default 6)")
    g = p.add_argument_group("local models (--backend vllm | transformers)")
    g.add_argument("--tensor-parallel-size", type=int, default=1,
                   help="vllm: GPUs one model is sharded over (vLLM's own option)")
    g.add_argument("--pipeline-parallel-size", type=int, default=1,
                   help="vllm: layers split over this many GPU groups, which may sit on "
                        "several nodes with ray (vLLM's own option; default 1)")
    g.add_argument("--distributed-executor-backend", metavar="mp|ray|uni",
                   help="vllm: how the engine runs its GPU workers; ray for a model spread "
                        "over several nodes (a running Ray cluster); default: vLLM's choice")
    g.add_argument("--data-parallel-size", type=int, default=1,
                   help="vllm: engines on this node, each with tensor x pipeline GPUs")
    g.add_argument("--max-model-len", type=int, help="context length (vllm; also caps the API's)")
    g.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    g.add_argument("--dtype", default="auto")
    g.add_argument("--enforce-eager", action="store_true",
                   help="vllm: no CUDA graphs (faster start, slower decoding; the CPU build)")
    g.add_argument("--device", default="cpu", help="transformers: cpu, cuda, cuda:0, ...")
    g.add_argument("--batch-size", type=int, default=8, help="transformers: prompts per batch")
    g.add_argument("--chat-template-kwargs", metavar="JSON",
                   help='e.g. \'{"enable_thinking": true}\' (recorded with the settings)')
    g.add_argument("--enable-thinking", action="store_true",
                   help='shorthand for --chat-template-kwargs \'{"enable_thinking": true}\'')
    g.add_argument("--engine-arg", action="append", metavar="KEY=VALUE", dest="engine_args",
                   help="an engine option with no flag here, given again for each: vllm's "
                        "engine arguments (e.g. max_num_seqs=64, enable_prefix_caching=true), "
                        "transformers' from_pretrained arguments (e.g. "
                        "attn_implementation=sdpa); typed by the engine's own definitions")


def generate_kwargs(args: argparse.Namespace) -> dict:
    """Every flag but --model and the benchmark's own is general365.generate's keyword of
    the same name."""
    from ..api import generate

    return {**flags.keywords(generate, args, "model"), "benchmark": flags.benchmark(args)}


def main(args: argparse.Namespace) -> int:
    from .. import api

    result = api.generate(args.model, **generate_kwargs(args))
    for note in result.notes:
        print(f"general365 generate: {shown(note)}", file=sys.stderr)
    print(shown_lines(result.render(f"{args.out}/responses.jsonl")))
    return 0 if result.ok else 1
