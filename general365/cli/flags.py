"""The flags several verbs share: `--benchmark` and the benchmarks' own options (generate,
grade, run), and the LLM judge's flags (grade, run, analyze, expand, cfe) with the Judge
they describe."""

from __future__ import annotations

import argparse
import inspect
from typing import Any, Callable

from ..errors import OptionError, UserError
from ..extras import require
from ..tasks import BENCHMARKS, get_benchmark


def keywords(func: Callable, args: argparse.Namespace, *skip: str) -> dict[str, Any]:
    """The flags that are `func`'s keywords of the same name, with their values."""
    names = set(inspect.signature(func).parameters) & set(vars(args)) - set(skip)
    return {n: getattr(args, n) for n in names}


def add_benchmark(p: Any) -> None:
    p.add_argument("--benchmark", default=None, metavar="|".join(BENCHMARKS),
                   help="which benchmark the dataset is (default general365; qa: any dataset "
                        "with a question and an answer column; cfe: CFE-Bench, from its "
                        "release folder)")
    p.add_argument("--question-field", default="question", metavar="COLUMN",
                   help="qa: the question column (default: question)")
    p.add_argument("--answer-field", default="answer", metavar="COLUMN",
                   help="qa: the gold-answer column (default: answer)")
    p.add_argument("--id-field", metavar="COLUMN",
                   help="qa: the id column (default: the row's line number)")
    p.add_argument("--answer-type", metavar="TYPE",
                   help="qa: every row's answer type (default: an answer_type column, else "
                        "read from each gold)")
    p.add_argument("--tolerance", type=float, metavar="REL",
                   help="cfe (and implies it): the relative tolerance for numbers, 0.01 = 1%% "
                        "(default 0.01; a row's own tolerance wins)")


def benchmark(args: argparse.Namespace) -> Any:
    """The benchmark to pass to the library: a name, or one built with its options."""
    name = getattr(args, "benchmark", None)
    tolerance = getattr(args, "tolerance", None)
    if tolerance is not None:
        if name not in (None, "cfe"):
            raise OptionError("tolerance", "is CFE-Bench's option (--benchmark cfe); "
                                           f"{name} has none")
        return get_benchmark("cfe", tolerance=tolerance)
    if name == "qa":
        return get_benchmark("qa", question_field=args.question_field,
                             answer_field=args.answer_field, id_field=args.id_field,
                             answer_type=args.answer_type)
    return name


def add_judge(p: Any, title: str = "LLM judge (policies paper and cascade)") -> None:
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
    add_judge(ref)
    defaults = vars(ref.parse_args([]))
    given = [f"--{k.replace('_', '-')}" for k, v in defaults.items()
             if k != "judge_model" and getattr(args, k, v) != v]
    if given:
        raise UserError(f"{', '.join(given)} given without --judge-model; expected "
                        "--judge-model MODEL (and --judge-base-url URL for a server other "
                        "than OpenAI's)")
