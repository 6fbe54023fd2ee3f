"""`general365 analyze DATASET... --out DIR` and `general365 analyze difficulty GRADED...
--out DIR` (the difficulty filter alone: the graded files' solve rates): wiring only; the
work is general365.analysis.analyze and write_analysis."""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import UserError
from ..extras import require
from ..terminal import shown, shown_lines
from . import flags
from ..analysis.core import Analysis, analyze
from ..analysis.embed import DEFAULT_API_KEY_ENV, DEFAULT_MODEL
from ..analysis.write import check_out, write_analysis
from ..analysis.tsne import METHODS, PERPLEXITY


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("datasets", nargs="*", metavar="DATASET",
                   help="SOURCE or NAME=SOURCE: sample, a built folder, a Hub id, or a file "
                        "(General365 format, or any .jsonl/.json/.csv/.parquet with a "
                        "question column); or the word difficulty, then graded files "
                        "(GRADED.jsonl or BENCHMARK=GRADED.jsonl), for the difficulty "
                        "filter alone")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the analysis")
    p.add_argument("--embedder", default=DEFAULT_MODEL, metavar="NAME",
                   help="a sentence-transformers model name or folder (default %(default)s, "
                        "the packaged offline copy when installed), tfidf (model-free), or "
                        "with --embedder-base-url the endpoint's model name")
    p.add_argument("--embedder-base-url", metavar="URL",
                   help="an OpenAI-compatible endpoint (…/v1) serving /embeddings")
    p.add_argument("--embedder-api-key-env", default=DEFAULT_API_KEY_ENV, metavar="VAR",
                   help="environment variable holding the endpoint's API key (default "
                        "%(default)s; none is sent when it is unset)")
    p.add_argument("--embedder-truncate", type=int, metavar="TOKENS",
                   help="send vLLM's truncate_prompt_tokens: cut each text to its first "
                        "TOKENS tokens (-1: the model's limit); vLLM refuses longer texts "
                        "without it")
    p.add_argument("--no-mask", dest="mask", action="store_false",
                   help="embed the raw questions (default: numbers and names masked, so "
                        "that swapped names and numbers do not count as diversity)")
    p.add_argument("--question-field", metavar="FIELD",
                   help="the question column of a non-General365 set (default: the first "
                        "of question, input, prompt, problem, query)")
    p.add_argument("--split", default="public", choices=("public", "test"),
                   help="the split of General365-format sources (default %(default)s)")
    p.add_argument("--near-duplicate", type=float, metavar="COSINE",
                   help="the near-duplicate threshold (default: 0.90 for tfidf, 0.95 for "
                        "model embeddings)")
    p.add_argument("--perplexity", type=float, default=PERPLEXITY,
                   help="t-SNE perplexity (default %(default)s; lowered for small sets)")
    p.add_argument("--tsne", dest="tsne_method", default="auto", choices=METHODS,
                   help="t-SNE implementation (default %(default)s: openTSNE when installed; off: "
                        "no map)")
    p.add_argument("--seed", type=int, default=0, help="random seed of t-SNE (default 0)")
    p.add_argument("--graded", action="append", default=[], metavar="BENCHMARK=GRADED.jsonl",
                   help="graded file of a model on a benchmark, for Figures 8 and 9 "
                        "(repeat for each model and benchmark)")
    p.add_argument("--too-easy", type=float, default=1.0, metavar="RATE",
                   help="difficulty filter: a problem is too easy when every model solves "
                        "at least this share of its runs (default 1.0: all of them)")
    p.add_argument("--family-spread", type=float, default=0.5, metavar="SHARE",
                   help="difficulty filter: flag seed families whose members' solve rates "
                        "differ by this much or more (default 0.5)")
    cache = p.add_mutually_exclusive_group()
    cache.add_argument("--embed-cache", metavar="PATH",
                       help="embedding cache file (default: ~/.cache/general365/"
                            "embeddings.sqlite, or $GENERAL365_CACHE_DIR)")
    cache.add_argument("--no-embed-cache", action="store_true", help="no embedding cache")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    flags.add_judge(p, "LLM judge: reasoning similarity (Figure 7), each item against its "
                       "nearest neighbour, scored 0-5")
    p.add_argument("--similarity-sample", type=int, metavar="N",
                   help="score a random sample of N items per set (seeded by --seed) instead "
                        "of every item")


def _pct(x: float | None) -> str:
    return "     -" if x is None else f"{100 * x:5.1f}%"


def summary_lines(a: Analysis, out: str) -> list[str]:
    s = a.settings
    lines = []
    if a.datasets:
        mask = " (names and numbers masked)" if s["mask"] else ""
        lines.append(f"general365 analyze: {len(a.datasets)} set(s); embedder "
                     f"{s['embedder']['identity']}{mask}; near-duplicate >= "
                     f"{s['near_duplicate_threshold']:g}")
        lines.append(f"  {'set':<24} {'items':>6} {'seeds':>6} {'NN sim':>7} {'near-dup':>8} "
                     f"{'collapse':>8} {'near-copy':>9}  t-SNE")
        for d in a.datasets:
            dv = d.diversity.to_dict()
            t = d.tsne
            tsne = (f"perplexity {t.perplexity:.3g} ({t.method})" if t.perplexity
                    else "off" if s["tsne"]["method"] == "off" else "skipped")
            lines.append(f"  {shown(d.name):<24.24} {d.stats.n:>6} {d.stats.seeds:>6} "
                         f"{dv['nn_similarity_mean']:>7.3f} {_pct(dv['near_duplicate_share']):>8} "
                         f"{dv['local_collapse']:>8.3f} {_pct(dv['near_copy_share']):>9}  {tsne}")
        lines += [f"  note: {shown(d.name)}: {shown(n)}" for d in a.datasets for n in d.notes]
    else:
        lines.append("general365 analyze: no question sets")
    if a.similarity is not None:
        lines += similarity_lines(a)
    if a.difficulty:
        diff = a.difficulty
        lines.append(f"  difficulty: {len(diff.benchmarks)} benchmark(s) x "
                     f"{len(diff.models)} model(s)")
        for c in diff.cells:
            tok = f"{c.avg_output_tokens:,.0f} tokens" if c.avg_output_tokens is not None else "-"
            lines.append(f"    {shown(c.benchmark):<16.16} {shown(c.model):<28.28} "
                         f"{_pct(c.accuracy)}  {tok}")
        lines += solve_rate_lines(diff.solve_rates)
    lines.append(f"  page:    {os.path.join(out, 'index.html')}")
    lines.append(f"  numbers: {os.path.join(out, 'analysis.json')} (+ tsne.csv, tables/*.csv)")
    lines.append(f"  figures: {os.path.join(out, 'figures')}/")
    return lines


def solve_rate_lines(sr) -> list[str]:
    if sr is None:
        return []
    easy, gold = sr.flagged("too_easy"), sr.flagged("check_gold")
    lines = [f"  difficulty filter: {len(sr.problems)} problem(s) with a solve rate; too easy "
             f"(every model solves it) {len(easy)}; no model solves it (check the gold) "
             f"{len(gold)}; families with a spread >= {sr.family_spread:g}: "
             f"{len(sr.spread_families)} of {len(sr.families)}"]
    lines += [_first_eight(name, [shown(p.id) for p in rows])
              for name, rows in (("too easy", easy), ("check the gold", gold)) if rows]
    if sr.spread_families:
        lines.append(_first_eight("spread families", [
            f"{shown(f.seed_id)} ({100 * f.lowest:.0f}-{100 * f.highest:.0f}%)"
            for f in sr.spread_families]))
    return lines


def _first_eight(name: str, texts: list[str]) -> str:
    more = f" (+{len(texts) - 8} more)" if len(texts) > 8 else ""
    return f"    {name}: " + ", ".join(texts[:8]) + more


def difficulty_specs(words: list[str]) -> list[str]:
    """`analyze difficulty GRADED...`: each GRADED is a path (benchmark General365) or
    BENCHMARK=PATH."""
    if not words:
        raise UserError("analyze difficulty: expected one or more graded files "
                        "(GRADED.jsonl or BENCHMARK=GRADED.jsonl)")
    return [w if "=" in w and not os.path.exists(w) else f"General365={w}" for w in words]


def similarity_lines(a: Analysis) -> list[str]:
    sim = a.similarity
    j = sim.judge
    cached = f", {j['cache_hits']} from the cache" if j.get("cache_hits") else ""
    lines = [f"  reasoning similarity (0-5; judge {j['model']}, {j['votes']} vote(s); "
             f"{j.get('requests', 0)} request(s){cached}):",
             f"    {'set':<24} {'scored':>6} {'failed':>6} {'mean':>5} {'1-2':>6} {'5':>6}"]
    for s in sim.sets:
        mean = "    -" if s.mean is None else f"{s.mean:5.2f}"
        lines.append(f"    {shown(s.name):<24.24} {len(s.scores):>6} {s.failed:>6} {mean} "
                     f"{_pct(s.share_1_2):>6} {_pct(s.share_5):>6}")
    for p in sim.published:
        lines.append(f"    {p.benchmark + ' (paper)':<24.24} {'':>6} {'':>6} {p.mean:5.2f} "
                     f"{_pct(p.share_1_2):>6} {_pct(p.share_5):>6}")
    return lines


def main(args: argparse.Namespace) -> int:
    require("analyze", ["analysis"])
    if args.datasets[:1] == ["difficulty"] and not os.path.exists("difficulty"):
        args.graded = list(args.graded) + difficulty_specs(args.datasets[1:])
        args.datasets = []
    out = check_out(args.out)
    cache = False if args.no_embed_cache else (args.embed_cache or True)
    flags.check_model_given(args)
    judge = flags.make_judge("analyze", args)
    a = analyze(**flags.keywords(analyze, args), cache=cache, judge=judge,
                progress=not args.no_progress)
    write_analysis(a, out)
    print(shown_lines("\n".join(summary_lines(a, out))))
    if a.similarity is not None and a.similarity.failed:
        print(f"general365 analyze: {a.similarity.failed} pair(s) could not be scored by the "
              "judge (left out of the numbers); rerun the same command to ask again "
              "(scored pairs are cached)", file=sys.stderr)
        return 1
    return 0
