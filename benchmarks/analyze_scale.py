"""`general365 analyze` at the paper's scale: 1,460 + 6,511 + 4,520 generated questions (the
sizes of General365, BBH and BBEH in Figure 6), timed step by step on this machine.

Printed side by side, from the same run:
- skeletons (names and numbers masked); embedding: TF-IDF, and the packaged
  all-MiniLM-L6-v2 when installed on raw (all distinct) texts, first run then again from
  the embedding cache;
- nearest neighbours (exact, blockwise) per set;
- t-SNE per set with openTSNE and with scikit-learn on the same 50-d input (the ratio is
  what `--tsne auto` rests on), with each one's KL divergence where it reports one.

    .venv/bin/python benchmarks/analyze_scale.py [--no-minilm] [--sizes 1460,6511,4520]

The generated sets: a "diverse" one (sentences drawn from a large grammar, no template) for
General365's size, and templated ones (tests/support/templated.py) for BBH's and BBEH's.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import numpy as np  # noqa: E402

from general365.analysis import tsne as T  # noqa: E402
from general365.analysis.cache import EmbeddingCache  # noqa: E402
from general365.analysis.embed import embed_texts, make_embedder  # noqa: E402
from general365.analysis.neighbours import nearest_neighbours  # noqa: E402
from general365.analysis.skeleton import skeletons  # noqa: E402
from support.templated import templated_rows  # noqa: E402

SUBJECTS = ("a farmer", "the librarian", "a courier", "two sisters", "the committee",
            "a chess club", "the baker", "an engineer", "three hikers", "the museum guard",
            "a ferry captain", "the class", "a tailor", "the orchestra", "a gardener")
VERBS = ("divides", "arranges", "schedules", "paints", "weighs", "counts", "exchanges",
         "labels", "stacks", "delivers", "measures", "ranks", "shuffles", "assigns", "pairs")
OBJECTS = ("crates of pears", "rooms on four floors", "shifts over a week", "tiles in a row",
           "coins of three kinds", "tickets for two trains", "cards numbered from one",
           "boats along a river", "seats around a table", "keys on a ring", "paths in a maze",
           "bottles of juice", "lamps in a corridor", "books on shelves", "stones in piles")
RULES = ("no two adjacent ones may match", "each must differ from the previous one",
         "the total must stay below a limit", "every pair is used exactly once",
         "the order is reversed every third step", "ties are broken by age",
         "the cheapest option is always tried first", "half of them are hidden",
         "one of the statements is false", "the process stops at the first repeat")
ASKS = ("How many arrangements are possible?", "What is the smallest possible total?",
        "Which option is chosen last?", "What is the probability that the rule holds?",
        "On which day does the task finish?", "How many steps are needed at least?")


def diverse_questions(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(3, 6)):
            parts.append(f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} "
                         f"{rng.randint(2, 99)} {rng.choice(OBJECTS)}, and "
                         f"{rng.choice(RULES)}.")
        parts.append(rng.choice(ASKS))
        out.append(" ".join(parts))
    return out


def templated_questions(n: int, seed: int) -> list[str]:
    families = -(-n // 4)
    return [r["question"] for r in templated_rows(families, 3, seed=seed)][:n]


def timed(fn, *args, **kw):
    t0 = time.perf_counter()
    value = fn(*args, **kw)
    return time.perf_counter() - t0, value


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1460,6511,4520")
    ap.add_argument("--no-minilm", action="store_true", help="TF-IDF only")
    ap.add_argument("--no-sklearn", action="store_true", help="openTSNE only")
    ap.add_argument("--minilm-sample", type=int, default=500,
                    help="time MiniLM on this many texts of each set (0: all of them)")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    names = ["general365-like", "bbh-like", "bbeh-like"][:len(sizes)]
    sets = {names[0]: diverse_questions(sizes[0])}
    for k, (name, n) in enumerate(zip(names[1:], sizes[1:]), start=1):
        sets[name] = templated_questions(n, seed=k)
    print(f"analyze at scale: {', '.join(f'{k} {len(v):,}' for k, v in sets.items())} "
          f"questions; {len(os.sched_getaffinity(0))} cores")
    print("\nskeletons and embedding (seconds)")
    for k, texts in sets.items():
        s, _ = timed(skeletons, texts)
        print(f"  skeletons {k:<16} {s:8.2f}")
    # The raw texts from here on: every one distinct, as in a real benchmark (the masked
    # templated sets collapse to 4 texts, which would make every later step trivial).
    vectors = {}
    tfidf = make_embedder("tfidf")
    embed_texts(tfidf, ["warm up", "the imports"])   # scikit-learn's import is not timed
    for k, texts in sets.items():
        s, e = timed(embed_texts, tfidf, texts)
        vectors[k] = e.vectors
        print(f"  tfidf     {k:<16} {s:8.2f}  ({len(texts) / s:,.0f} texts/s)")
    minilm = {}
    if not a.no_minilm:
        # The raw texts: every one distinct (the masked templated sets have 4), so this is
        # the cost of a set of that many different questions. Timed on the first
        # --minilm-sample texts of each set; the full set is embedded only for the neighbour
        # and t-SNE steps below when --minilm-sample is 0.
        emb = make_embedder("all-MiniLM-L6-v2")
        with tempfile.TemporaryDirectory() as tmp:
            cache = EmbeddingCache(Path(tmp) / "emb.sqlite")
            s, _ = timed(emb._load)
            print(f"  minilm    (load model)       {s:8.2f}")
            for k, texts in sets.items():
                part = texts[:a.minilm_sample] if a.minilm_sample else texts
                s, e = timed(embed_texts, emb, part, cache=cache)
                s2, _ = timed(embed_texts, emb, part, cache=cache)
                est = "" if len(part) == len(texts) else \
                    f"; {len(texts):,} texts at that rate: {len(texts) * s / len(part):,.0f} s"
                print(f"  minilm    {k:<16} {s:8.2f}  ({len(part) / s:,.1f} texts/s on "
                      f"{len(part):,} raw texts{est}); again from the cache {s2:.2f}")
                if len(part) == len(texts):
                    minilm[k] = e.vectors
            cache.close()

    print("\nnearest neighbours, k=10, exact (seconds)")
    for label, vecs in (("tfidf", vectors), ("minilm", minilm)):
        for k, x in vecs.items():
            s, _ = timed(nearest_neighbours, x, 10)
            print(f"  {label:<9} {k:<16} {s:8.2f}")

    print("\nt-SNE per set, same 50-d input (seconds; ratio = scikit-learn / openTSNE)")
    source = minilm if len(minilm) == len(vectors) else vectors
    for k, x in source.items():
        reduced = T.reduce(x).astype(np.float64)
        p = T.perplexity_for(len(reduced))
        s_open, _ = timed(T.run_opentsne, reduced, p, 0)
        line = f"  {k:<16} openTSNE {s_open:8.2f}"
        if not a.no_sklearn:
            s_sk, _ = timed(T.run_sklearn, reduced, p, 0)
            line += f"   scikit-learn {s_sk:8.2f}   ratio {s_sk / s_open:5.2f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
