"""`general365 analyze DATASET... --out DIR`: wiring only; the work is
general365.analysis.analyze and write_analysis."""

from __future__ import annotations

import argparse
import os

from ..extras import require
from ..analysis.core import Analysis, analyze
from ..analysis.embed import DEFAULT_API_KEY_ENV, DEFAULT_MODEL
from ..analysis.output import check_out, write_analysis
from ..analysis.tsne import METHODS, PERPLEXITY


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("datasets", nargs="*", metavar="DATASET",
                   help="SOURCE or NAME=SOURCE: sample, a built folder, a Hub id, or a file "
                        "(General365 format, or any .jsonl/.json/.csv/.parquet with a "
                        "question column)")
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
    p.add_argument("--tsne", default="auto", choices=METHODS,
                   help="t-SNE implementation (default %(default)s: openTSNE when installed; off: "
                        "no map)")
    p.add_argument("--seed", type=int, default=0, help="random seed of t-SNE (default 0)")
    p.add_argument("--graded", action="append", default=[], metavar="BENCHMARK=GRADED.jsonl",
                   help="graded file of a model on a benchmark, for Figures 8 and 9 "
                        "(repeat for each model and benchmark)")
    cache = p.add_mutually_exclusive_group()
    cache.add_argument("--embed-cache", metavar="PATH",
                       help="embedding cache file (default: ~/.cache/general365/"
                            "embeddings.sqlite, or $GENERAL365_CACHE_DIR)")
    cache.add_argument("--no-embed-cache", action="store_true", help="no embedding cache")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


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
            lines.append(f"  {d.name:<24.24} {d.stats.n:>6} {d.stats.seeds:>6} "
                         f"{dv['nn_similarity_mean']:>7.3f} {_pct(dv['near_duplicate_share']):>8} "
                         f"{dv['local_collapse']:>8.3f} {_pct(dv['near_copy_share']):>9}  {tsne}")
        for d in a.datasets:
            for n in d.notes:
                lines.append(f"  note: {d.name}: {n}")
    else:
        lines.append("general365 analyze: no question sets")
    if a.difficulty:
        diff = a.difficulty
        lines.append(f"  difficulty: {len(diff.benchmarks)} benchmark(s) x "
                     f"{len(diff.models)} model(s)")
        for c in diff.cells:
            tok = f"{c.avg_output_tokens:,.0f} tokens" if c.avg_output_tokens is not None else "-"
            lines.append(f"    {c.benchmark:<16.16} {c.model:<28.28} {_pct(c.accuracy)}  {tok}")
    lines.append(f"  page:    {os.path.join(out, 'index.html')}")
    lines.append(f"  numbers: {os.path.join(out, 'analysis.json')} (+ tsne.csv, tables/*.csv)")
    lines.append(f"  figures: {os.path.join(out, 'figures')}/")
    return lines


def main(args: argparse.Namespace) -> int:
    require("analyze", ["analysis"])
    out = check_out(args.out)
    cache = False if args.no_embed_cache else (args.embed_cache or True)
    a = analyze(args.datasets, embedder=args.embedder, embedder_base_url=args.embedder_base_url,
                embedder_api_key_env=args.embedder_api_key_env,
                embedder_truncate=args.embedder_truncate,
                question_field=args.question_field, split=args.split,
                near_duplicate=args.near_duplicate, mask=args.mask,
                perplexity=args.perplexity, tsne_method=args.tsne, seed=args.seed,
                graded=args.graded, cache=cache, progress=not args.no_progress)
    write_analysis(a, out)
    print("\n".join(summary_lines(a, out)))
    return 0
