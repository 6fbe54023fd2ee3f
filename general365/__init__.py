"""general365: the reference toolkit for the General365 benchmark.

    import general365
    ds = general365.load_dataset("seed", split="public", source="sample")
    verdicts = general365.grade(responses, problems, policy="rule")        # in memory
    general365.generate("Qwen/Qwen3-8B", backend="vllm", out="runs/q", runs=4)
    general365.grade_file("runs/q/responses.jsonl", "runs/q/graded.jsonl")
    general365.report(["runs/q/graded.jsonl"], "runs/q/report")
    general365.run("Qwen/Qwen3-8B", backend="vllm", out="runs/q")          # all three
    metric = evaluate.load(general365.METRIC_PATH)

The command line (`general365 ...`) calls these same functions (general365/api.py).
docs/architecture.md has the layers; each package's docstring maps its own modules.

- __main__.py       `python -m general365`: the command line
- api.py            the entry points, one per stage: generate, grade_file, report, run
- demo.py           the whole pipeline offline on the bundled sample (`general365 demo`)
- metric.py         the `evaluate` metric's logic and inputs (metric/general365/ wraps it)
- rewards.py        TRL reward functions: one reward per completion
- prompts.py        the query prompt: a General365 problem as chat messages
- errors.py         UserError and its kinds: one line, exit code 2 on the command line
- jsonl.py          the one JSON Lines reader, strict, with file:line in every error
- validators.py     type checks (bool is not an int) and the one strict-JSON decoder
- fsutil.py         the one file writer (atomic_write) and killed writes' temporaries
- folders.py        a folder of outputs written all or nothing (write_folder)
- markers.py        reasoning-block markers, shared by the runners and the grader
- retry.py          the retry arithmetic of every OpenAI-compatible client
- redact.py         API keys kept out of what is written, printed or logged
- terminal.py       text from a file or a server made safe to print
- sqlite_cache.py   what the judge and embedding caches share: path, opening, refusing
- interrupts.py     Ctrl-C that wakes an asyncio event loop at once
- extras.py         the pip extras, checked before a verb does any work
- tiny_model.py     a tiny random Llama model and tokenizer, built locally
- schema/           the records at the seams: Problem, Response, Verdict, Graded
- answers/          the answer reader, for golds and candidates alike
- data/             the dataset: the sample, the importer, the Hub folder, load_dataset
- runners/          generation backends (vLLM, OpenAI-compatible APIs, transformers)
- grading/          the hybrid grader: rule, choice letters, the LLM judge, the pool
- reporting/        the report: tables, figures, the leaderboard page
- tasks/            benchmarks behind one protocol: General365, qa, CFE-Bench
- analysis/         statistics, diversity and difficulty of question sets
- audit/            the grading-accuracy audit: sample verdicts, score labels
- expand/           seed expansion: propose variants, check, review, select
- results/          a report's results sent on: trackers, the Hub results dataset
- integrations/     lm-evaluation-harness and inspect_ai tasks
- cli/              the command line, one module per verb
"""

from __future__ import annotations

import os as _os

__version__ = "0.1.0"

# The evaluate metric folder, named for its script (metric/general365/general365.py):
# shipped inside the package in a wheel (setup.py copies it there at build time), found
# beside the package in a source checkout or an editable install.
_here = _os.path.dirname(_os.path.abspath(__file__))
_shipped_metric = _os.path.join(_here, "_shipped", "metric", "general365")
METRIC_PATH = (_shipped_metric if _os.path.isdir(_shipped_metric)
               else _os.path.join(_os.path.dirname(_here), "metric", "general365"))

from .schema import (AnswerType, Category, Graded, Method, Problem, Response,  # noqa: E402
                     Status, Verdict)
from .errors import DataError, OptionError, UserError  # noqa: E402


def load_dataset(config: str = "all", split: str = "public", source: str | None = None, **kwargs):
    """The General365 dataset as a `datasets.Dataset` (see general365.data.load)."""
    from .data.load import load_dataset as _load

    return _load(config=config, split=split, source=source, **kwargs)


def load_problems(source: str | None = None, split: str = "public", config: str = "all"):
    """The dataset as a list of `Problem` records."""
    from .data.load import load_problems as _load

    return _load(source=source, split=split, config=config)


def grade(responses, problems=None, policy: str | None = None, judge=None, **kwargs):
    """Grade responses in memory against problems; a list of `Verdict` (grading.hybrid).
    policy: "paper", "cascade" or "rule"; by default "paper" with a judge, "rule" without.
    The same checks as `grade_file`: one response per (id, run), a problem for each, an
    inline gold that agrees with the dataset's."""
    from .grading.hybrid import grade as _grade

    return _grade(responses, problems, policy=policy, judge=judge, **kwargs)


def __getattr__(name: str):
    # The stage entry points live in general365.api, which imports every stage: loaded on
    # first use, and the real functions (typed signatures and all) are what is returned.
    if name in ("generate", "grade_file", "report", "run"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AnswerType", "Category", "DataError", "Graded", "METRIC_PATH", "Method", "OptionError",
    "Problem", "Response", "Status", "UserError", "Verdict", "__version__", "generate", "grade",
    "grade_file", "load_dataset", "load_problems", "report", "run",
]
