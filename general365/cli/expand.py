"""`general365 expand SEEDS ...`, `expand review DIR` and `expand select DIR ...`
(general365.expand; wiring only). The first word after the verb picks the parser. Exit codes:
0 done; 1 some requests failed for good (rerun the same command to retry them); 2 a user
error."""

from __future__ import annotations

import argparse
import os
import sys

from ..runners.options import DEFAULT_SEED
from ..runners.registry import BACKENDS
from ..terminal import shown, shown_lines
from . import flags

# option -> flag, where the flag is not the option's name spelled with dashes
FLAGS = {"ids_file": "--ids", "judge": "--judge-model"}

USAGE = ("general365 expand SEEDS --model M --backend B --out DIR [options]\n"
         "       general365 expand review DIR [--out FILE]\n"
         "       general365 expand select DIR --decisions FILE --out FILE [options]")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.usage = USAGE
    p.description = ("Propose variants of seed problems with a model, check them, review them "
                     "on a page, and select the final set (docs/expand.md). "
                     "`general365 expand SEEDS --help`, `... review --help` and "
                     "`... select --help` list each form's options.")
    p.add_argument("words", nargs=argparse.REMAINDER, metavar="SEEDS|review|select ...")


def expansion_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="general365 expand", usage=USAGE.splitlines()[0].strip(),
                                description="Ask a model for candidate variants of each seed "
                                            "into DIR (resumable), then check them into "
                                            "DIR/candidates.jsonl.")
    p.add_argument("seeds", metavar="SEEDS",
                   help="a General365-format source whose seeds carry reasoning ('sample', "
                        "a file, a folder, a Hub id)")
    g = p.add_argument_group("what to run")
    g.add_argument("--model", required=True, help="the model that writes the candidates")
    g.add_argument("--backend", required=True, metavar="|".join(BACKENDS))
    g.add_argument("--out", required=True, metavar="DIR",
                   help="the expansion folder (responses.jsonl, run.json, candidates.jsonl; "
                        "resumed if it exists)")
    g.add_argument("--candidates", type=int, default=10,
                   help="candidates per seed, one request each (default 10, as the paper)")
    g.add_argument("--split", default="public", help="the split of SEEDS (default public)")
    g.add_argument("--ids", metavar="FILE", dest="ids_file",
                   help="only the seeds listed in FILE, one id a line")
    g.add_argument("--limit", type=int, help="only the first N seeds")
    g.add_argument("--structured", default="auto", choices=("auto", "json_schema", "off"),
                   help="structured output (openai backend: response_format json_schema); "
                        "auto falls back to the prompt alone where the server refuses it")
    g.add_argument("--near-duplicate", type=float, default=0.90, metavar="COSINE",
                   help="near-duplicate threshold of the checks (TF-IDF on skeletons, as "
                        "`general365 analyze`; default 0.90)")
    g = p.add_argument_group("sampling")
    g.add_argument("--preset", default="reasoning", help="reasoning (T=1.0) or chat (T=0.7)")
    _plain(g, ("--temperature", float, None), ("--top-p", float, None), ("--top-k", int, None))
    g.add_argument("--max-tokens", type=int,
                   help="output limit of each candidate (default: the context left)")
    g.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help="base seed; candidate k uses run_seed(seed, k)")
    g.add_argument("--chat-template-kwargs", metavar="JSON")
    g.add_argument("--enable-thinking", action="store_true")
    g.add_argument("--revision")
    g = p.add_argument_group("OpenAI-compatible API (--backend openai)")
    g.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR")
    _plain(g, ("--base-url", str, None), ("--concurrency", int, 16),
           ("--request-timeout", float, 600.0), ("--max-attempts", int, 6))
    g = p.add_argument_group("local models (--backend vllm | transformers)")
    g.add_argument("--enforce-eager", action="store_true")
    _plain(g, ("--tensor-parallel-size", int, 1), ("--data-parallel-size", int, 1),
           ("--max-model-len", int, None), ("--gpu-memory-utilization", float, 0.9),
           ("--dtype", str, "auto"), ("--device", str, "cpu"), ("--batch-size", int, 8))
    g = p.add_argument_group("solver check (optional)")
    g.add_argument("--solver-model", help="answer each candidate with this model and grade "
                                          "it against the candidate's own gold")
    g.add_argument("--solver-backend", metavar="|".join(BACKENDS),
                   help="the solver's backend (default: --backend)")
    g.add_argument("--solver-base-url", help="the solver's server (default: --base-url)")
    g.add_argument("--solver-k", type=int, default=4, help="answers per candidate (default 4)")
    _plain(g, ("--solver-max-tokens", int, None), ("--solver-preset", str, "reasoning"))
    flags.add_judge(p)
    p.add_argument("--no-progress", action="store_true")
    return p


def _plain(group, *specs: tuple[str, type, object]) -> None:
    """Flags with a type and a default and nothing else (generate's help describes them)."""
    for flag, kind, default in specs:
        group.add_argument(flag, type=kind, default=default)


def _folder_parser(action: str, description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"general365 expand {action}", description=description)
    p.add_argument("folder", metavar="DIR")
    return p


def review_parser() -> argparse.ArgumentParser:
    p = _folder_parser("review", "Write the review page of an expansion folder: each seed "
                                 "beside its candidates; accept, reject or edit; export a "
                                 "decisions file.")
    p.add_argument("--out", metavar="FILE", help="the page (default DIR/review.html)")
    return p


def select_parser() -> argparse.ArgumentParser:
    p = _folder_parser("select", "Keep the accepted candidates, prefer the diverse and the "
                                 "hard, and write rows `general365 dataset build` takes (the "
                                 "seeds and their new variants).")
    p.add_argument("--decisions", required=True, metavar="FILE",
                   help="decisions (JSON Lines), exported from the review page or written "
                        "by hand")
    p.add_argument("--per-seed", type=int, default=3, help="variants per seed (default 3)")
    p.add_argument("--out", required=True, metavar="FILE", help="the rows (.jsonl) to write")
    p.add_argument("--embedder", default="tfidf",
                   help="similarity for diversity: tfidf (default, offline) or a "
                        "sentence-transformers model name or folder")
    p.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    return p


def main(args: argparse.Namespace) -> int:
    words = list(args.words)
    if words and words[0] in ACTIONS and not os.path.exists(words[0]):
        parser, action = ACTIONS[words[0]]
        return action(parser().parse_args(words[1:]))
    return _expand(expansion_parser().parse_args(words))


def _expand(a: argparse.Namespace) -> int:
    from ..expand import expand

    def stage(name: str, path: str) -> None:
        print(f"general365 expand: {name} -> {path}", file=sys.stderr)

    judge = flags.make_judge("expand", a)
    # Every flag of the expansion parser is expand()'s keyword of the same name.
    r = expand(**flags.keywords(expand, a), judge=judge, progress=not a.no_progress,
               on_stage=stage)
    for note in r.notes:
        print(f"general365 expand: note: {shown(note)}", file=sys.stderr)
    print(shown_lines("\n".join(summary_lines(r, a))))
    return 0 if r.ok else 1


def summary_lines(r, a: argparse.Namespace) -> list[str]:
    g = r.generation
    lines = [f"general365 expand: {r.seeds} seed(s) x {a.candidates} candidate(s) with "
             f"{a.model} ({a.backend}) -> {r.path}",
             f"  requested {g.requested}: written {g.written}, already done {g.already_done}, "
             f"failed {g.failed}; structured output: {r.structured}"]
    lines += [f"  failed: {shown(e)}" for e in g.errors]   # the server's words
    if r.candidates:
        clean = sum(1 for c in r.candidates if not c.flags)
        counts = ", ".join(f"{k} {v}" for k, v in sorted(r.flag_counts().items()))
        lines.append(f"  candidates {len(r.candidates)}: {clean} without flags"
                     + (f"; flagged: {counts}" if counts else ""))
    if r.solver is not None:
        rates = [c.solver.rate for c in r.candidates if c.solver and c.solver.rate is not None]
        lines.append(f"  solver {a.solver_model} (k={a.solver_k}): {len(rates)} candidate(s) "
                     f"graded; 0/k (check the gold, or very hard) {rates.count(0)}; k/k (easy) "
                     f"{rates.count(1)}; not asked (blocking flags) {r.solver.skipped}")
    if g.failed:
        lines.append(f"  {g.failed} request(s) failed; rerun the same command to retry them")
    lines.append(f"  next: general365 expand review {a.out}")
    return lines


def _review(a: argparse.Namespace) -> int:
    from ..expand import write_review

    path, n = write_review(a.folder, out=a.out)
    print(f"general365 expand review: {n} candidate(s) -> {path}")
    return 0


def _select(a: argparse.Namespace) -> int:
    from ..expand import select

    s = select(a.folder, decisions=a.decisions, per_seed=a.per_seed, out=a.out,
               embedder=a.embedder, overwrite=a.overwrite)
    print(shown_lines("\n".join(s.summary_lines())))
    return 0


ACTIONS = {"review": (review_parser, _review), "select": (select_parser, _select)}
