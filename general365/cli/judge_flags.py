"""The LLM judge's flags (grade, run and analyze) and the Judge they describe."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UserError
from ..extras import require


def add(p: Any, title: str = "LLM judge (policies paper and cascade)") -> None:
    g = p.add_argument_group(title)
    g.add_argument("--judge-model", help="judge model name, e.g. gpt-4.1")
    g.add_argument("--judge-base-url", help="the judge's OpenAI-compatible base URL")
    g.add_argument("--judge-api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                   help="environment variable holding the API key (default: OPENAI_API_KEY)")
    g.add_argument("--judge-concurrency", type=int, default=16)
    g.add_argument("--judge-votes", type=int, default=1, help="odd number of votes (majority)")
    g.add_argument("--judge-cache", help="judge cache file (SQLite; default "
                                         "~/.cache/general365/judge.sqlite); 'none' = no cache")
    g.add_argument("--no-judge-cache", action="store_true",
                   help="ask the judge again even where a verdict is cached")
    g.add_argument("--judge-structured", choices=("json_schema", "vllm"),
                   help="constrain the judge's reply: json_schema (OpenAI response_format) or "
                        "vllm (a vLLM server's structured outputs); default: the paper's "
                        "plain prompt")
    g.add_argument("--judge-max-tokens", type=int,
                   help="output limit of each judge reply (default: the server's)")
    g.add_argument("--judge-timeout", type=float, default=60.0,
                   help="seconds a whole judge request may take before it is retried "
                        "(default 60)")


def make_judge(verb: str, args: argparse.Namespace):
    """The Judge the flags name (it checks its own options), or None without --judge-model."""
    if not args.judge_model:
        return None
    require(verb, ["judge"])
    from ..grading.judge import Judge

    cache: Any = True
    if args.judge_cache:
        cache = False if args.judge_cache.lower() == "none" else args.judge_cache
    if args.no_judge_cache:
        cache = False
    return Judge(args.judge_model, base_url=args.judge_base_url,
                 api_key_env=args.judge_api_key_env, concurrency=args.judge_concurrency,
                 votes=args.judge_votes, cache=cache, timeout=args.judge_timeout,
                 structured=args.judge_structured, max_tokens=args.judge_max_tokens)


def check_model_given(args: argparse.Namespace) -> None:
    """Refuse judge flags given without --judge-model: they would be silently ignored."""
    if args.judge_model:
        return
    ref = argparse.ArgumentParser(add_help=False)
    add(ref)
    defaults = vars(ref.parse_args([]))
    given = [f"--{k.replace('_', '-')}" for k, v in defaults.items()
             if k != "judge_model" and getattr(args, k, v) != v]
    if given:
        raise UserError(f"{', '.join(given)} given without --judge-model; expected "
                        "--judge-model MODEL (and --judge-base-url URL for a server other "
                        "than OpenAI's)")
