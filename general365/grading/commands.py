"""`general365 grade RESPONSES.jsonl --out GRADED.jsonl`: wiring only.

The responses file is read twice, line by line and never whole: a first pass checks every
line (JSON, fields, a problem for each id, each gold parses), so a bad line stops the
command before any judge call is paid for; the second pass grades in chunks and writes the
graded rows as they come, to a temporary file renamed at the end.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Iterator

from ..errors import DataError, UserError
from ..extras import require
from ..fsutil import hold_lock, release, sweep
from ..jsonl import FileChanged, Fingerprint, iter_jsonl, iter_same_lines
from ..schema import Response, Status, graded_record
from .pool import DEFAULT_TIMEOUT
from .summary import GradeSummary


def add_arguments(p) -> None:
    from .hybrid import POLICIES

    p.add_argument("responses", help="responses.jsonl (one response a line)")
    p.add_argument("--out", required=True, help="where to write graded.jsonl")
    p.add_argument("--dataset", help="the problems: 'sample', a Hub id, a file or a folder "
                                     "(without it, responses must carry their gold inline)")
    p.add_argument("--split", default="public", help="dataset split (default: public)")
    p.add_argument("--policy", choices=POLICIES, default=None,
                   help="paper: rule + judge as in the paper; cascade: rule, then the judge "
                        "where the rule says not correct; rule: no judge, text answers left ungraded (default: paper with --judge-model, rule without)")
    g = p.add_argument_group("LLM judge (policies paper and cascade)")
    g.add_argument("--judge-model", help="judge model name, e.g. gpt-4.1")
    g.add_argument("--judge-base-url", help="OpenAI-compatible base URL")
    g.add_argument("--judge-api-key-env", default="OPENAI_API_KEY",
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
                   help="seconds per judge request before it is retried (default 60)")
    p.add_argument("--workers", type=int, default=None,
                   help="rule-grading processes (default: CPU count)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                   help=f"hard time limit per rule-graded answer, seconds (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def read_responses(path: str, fingerprint: Fingerprint | None = None
                   ) -> Iterator[tuple[int, Response]]:
    """(line number, Response) for each non-blank line; one DataError for a bad line."""
    for n, d in iter_jsonl(path, fingerprint=fingerprint):
        yield n, Response.from_dict(d, path=path, line=n)


def _make_judge(args):
    if not args.judge_model:
        return None
    from .judge import Judge

    cache = True
    if args.judge_cache:
        cache = False if args.judge_cache.lower() == "none" else args.judge_cache
    if getattr(args, "no_judge_cache", False):
        cache = False
    if not getattr(args, "judge_timeout", 60.0) > 0:
        raise UserError(f"--judge-timeout must be a positive number of seconds "
                        f"(got {args.judge_timeout})")
    return Judge(args.judge_model, base_url=args.judge_base_url,
                 api_key_env=args.judge_api_key_env, concurrency=args.judge_concurrency,
                 votes=args.judge_votes, cache=cache,
                 timeout=getattr(args, "judge_timeout", 60.0),
                 structured=getattr(args, "judge_structured", None),
                 max_tokens=getattr(args, "judge_max_tokens", None))


def check_args(args) -> None:
    """Every option checked before any work: `general365 run` calls this before it
    generates, so a typo in a grading option never costs a generation."""
    from urllib.parse import urlparse

    from .hybrid import default_policy

    args.policy = default_policy(args.policy, args.judge_model)
    if args.workers is not None and args.workers < 1:
        raise UserError(f"--workers must be at least 1 (got {args.workers})")
    if not args.timeout > 0:
        raise UserError(f"--timeout must be a positive number of seconds (got {args.timeout})")
    if args.policy != "rule" and not args.judge_model:
        raise UserError(f"--policy {args.policy} needs an LLM judge: give --judge-model "
                        "(and --judge-base-url for a server other than OpenAI's), or use "
                        "--policy rule")
    if args.judge_model:
        if args.judge_votes < 1 or args.judge_votes % 2 == 0:
            raise UserError(f"--judge-votes must be an odd number >= 1 (got {args.judge_votes}); "
                            "an even number of votes can tie")
        if args.judge_max_tokens is not None and args.judge_max_tokens < 1:
            raise UserError(f"--judge-max-tokens must be at least 1 (got {args.judge_max_tokens})")
        if args.judge_concurrency < 1:
            raise UserError(f"--judge-concurrency must be at least 1 (got {args.judge_concurrency})")
        if args.judge_base_url:
            url = urlparse(args.judge_base_url)
            if url.scheme not in ("http", "https") or not url.netloc:
                raise UserError(f"--judge-base-url {args.judge_base_url!r} is not a URL; "
                                "expected e.g. http://127.0.0.1:8000/v1")
    if os.path.isdir(args.out):
        raise UserError(f"--out {args.out} is a folder; expected the path of the graded "
                        ".jsonl file to write")


def _check_inline_agrees(resp: Response, prob, path: str, line: int) -> None:
    """A response that carries its gold inline and is graded against a dataset must carry
    the dataset's gold: otherwise the graded row would show one gold and be graded on another."""
    theirs = prob.to_dict()
    for key in ("answer", "answer_type", "float_round"):
        if key in resp.inline and str(resp.inline[key]).strip() != str(theirs[key]).strip():
            raise DataError(f"the response carries {key} {resp.inline[key]!r}, the dataset "
                            f"has {theirs[key]!r}", path=path, line=line, row_id=resp.id,
                            field=key, expected="the same gold as --dataset, or no inline gold")


def main(args) -> int:
    require("grade", ["judge"] if args.judge_model else [])
    from .hybrid import GoldCache, problem_lookup, check_policy, grade_iter

    check_args(args)
    if not os.path.isfile(args.responses):
        raise UserError(f"{args.responses}: no such file")
    problems = None
    if args.dataset:
        from ..data.load import load_problems

        problems = problem_lookup(load_problems(source=args.dataset, split=args.split))

    # Pass 1: every line checked before anything is graded or written.
    golds = GoldCache()
    count = 0
    seen: dict[tuple[str, int], int] = {}
    # Each line's CRC is kept (4 bytes a line): pass 2 rereads exactly these lines and
    # checks each against it before use, so the graded file is the grade of what this pass
    # checked, even if the file is written to meanwhile (see jsonl.iter_same_lines).
    fingerprint = Fingerprint()
    for n, resp in read_responses(args.responses, fingerprint):
        count += 1
        first = seen.setdefault((resp.id, resp.run), n)
        if first != n:
            raise DataError(f"a second response for this id and run (the first is on line "
                            f"{first})", path=args.responses, line=n, row_id=resp.id,
                            field="run", value=resp.run,
                            expected="one response per (id, run); number repeats 0, 1, ...")
        if problems is not None:
            prob = problems.get(resp.id)
            if prob is None:
                raise DataError("no problem with this id in the dataset", path=args.responses,
                                line=n, row_id=resp.id, field="id",
                                expected=f"an id of dataset {args.dataset!r}")
            _check_inline_agrees(resp, prob, args.responses, n)
        else:
            prob = resp.inline_problem(path=args.responses, line=n)
            if prob is None:
                raise DataError("no gold answer in the response and no --dataset given",
                                path=args.responses, line=n, row_id=resp.id, field="answer",
                                expected="inline 'answer' and 'answer_type', or --dataset")
        if prob.answer_type.is_rule_graded:
            try:
                golds.rule(prob)
            except DataError as exc:
                raise DataError(exc.detail, path=args.responses, line=n, row_id=resp.id,
                                field="answer", value=prob.answer, expected=exc.expected) from None
    if count == 0:
        raise UserError(f"{args.responses}: no responses in the file")

    judge = _make_judge(args)
    check_policy(args.policy, judge)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # What a killed grade of this --out left (its process gone): removed before writing.
    sweep(str(out.parent), _tmp_pattern(out.name))
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    summary = GradeSummary()
    writer = None
    try:
        writer = _TmpWriter(tmp, out)
        stream = (Response.from_dict(d, path=args.responses, line=n)
                  for n, d in iter_same_lines(args.responses, fingerprint))
        for g in grade_iter(_Sized(stream, count), problems, policy=args.policy, judge=judge,
                            workers=args.workers, timeout=args.timeout,
                            progress=not args.no_progress, path=args.responses,
                            golds=golds):   # the golds pass 1 parsed: not parsed again
            writer.write(json.dumps(graded_record(g.response, g.verdict, g.problem),
                                    ensure_ascii=False) + "\n")
            summary.add(g.verdict, g.problem)
        writer.finish()
        os.replace(tmp, out)
    except FileChanged as exc:
        raise UserError(f"{exc}; nothing was written: rerun once nothing rewrites it") from None
    finally:
        if writer is not None:
            writer.close()
        if tmp.exists():
            tmp.unlink()
        if judge is not None and hasattr(judge, "close"):
            judge.close()
    if fingerprint.grew:
        print(f"general365 grade: {args.responses} grew while it was graded; the {count} "
              "responses it held when grading began are graded (rerun to grade the rest)",
              file=sys.stderr)
    print(f"graded {count} responses -> {out}  (policy {args.policy})")
    print(summary.render())
    sys.stdout.flush()
    failed = summary.counts.get(Status.JUDGE_FAILED.value, 0)
    if failed:
        print(f"general365 grade: {failed} row(s) are judge_failed (the judge gave no usable "
              "verdict); rerun the same command to retry them: verdicts already given are "
              "cached", file=sys.stderr)
        return 1
    return 0


def _tmp_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(name)}\.(?P<pid>\d+)\.tmp")


class _TmpWriter:
    """The temporary graded file, locked while this process writes it (so no other grade
    takes it for a killed run's leftover). A failed write (a full disk, a quota) names the
    file it was for: the OS error of a write carries no path."""

    def __init__(self, tmp: Path, out: Path):
        self.out = out
        try:
            self.f = open(tmp, "wb")
        except OSError as exc:
            raise self._error(exc) from None
        self.lock = hold_lock(str(tmp))

    def _error(self, exc: OSError) -> UserError:
        return UserError(f"{self.out}: cannot write the graded file ({exc.strerror or exc}); "
                         "nothing was written")

    def write(self, text: str) -> None:
        try:
            self.f.write(text.encode("utf-8"))
        except OSError as exc:
            raise self._error(exc) from None

    def finish(self) -> None:
        """Everything on disk before the rename: a crash after it never leaves a graded file
        that is empty or short."""
        try:
            self.f.flush()
            os.fsync(self.f.fileno())
        except OSError as exc:
            raise self._error(exc) from None

    def close(self) -> None:
        try:
            self.f.close()
        except OSError:
            pass   # the write's own error is the one reported; the file is removed
        release(self.lock)


class _Sized:
    """An iterator that knows its length (for the progress bar), read lazily."""

    def __init__(self, it, n: int):
        self._it, self._n = it, n

    def __iter__(self):
        return self._it

    def __len__(self) -> int:
        return self._n
