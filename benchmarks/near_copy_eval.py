"""Precision and recall of every near-copy signal against the labelled sample variants.

The labels (tests/data/variant_labels.csv) say, for each variant of the bundled sample and
for each earlier text of a variant that issue 21 rewrote (tests/data/retired_variants.jsonl),
whether a careful reader calls it a near-copy of its seed, with a one-line reason. Each
signal scores every (variant, seed) pair; a pair at or above the signal's threshold is
flagged. Printed: one row per signal with its threshold, TP, FP, FN, precision, recall,
and for the structure signal a two-fold check by family (threshold chosen on the odd
seeds, scored on the even ones, and the other way round).

    python benchmarks/near_copy_eval.py [--minilm] [--judge-model M --judge-base-url URL]

--minilm needs sentence-transformers and the packaged all-MiniLM-L6-v2; the judge, an
OpenAI-compatible server (a random model's scores mean nothing: that run checks the
plumbing only).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from general365.analysis.datasets import Item  # noqa: E402
from general365.analysis.skeleton import skeletons  # noqa: E402
from general365.analysis.structure import SCREEN, THRESHOLD, StructureIndex  # noqa: E402
from general365.data.sample import load_sample  # noqa: E402

LABELS = ROOT / "tests" / "data" / "variant_labels.csv"
RETIRED = ROOT / "tests" / "data" / "retired_variants.jsonl"


def labelled_pairs():
    """[(key, variant Item, seed Item, is_near_copy)] for every labelled text."""
    rows = {p.id: p for p in load_sample()}
    retired = {}
    if RETIRED.exists():
        for line in RETIRED.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            retired[r["id"]] = r

    def item(id_, d):
        return Item(id=id_, question=d["question"], answer=d["answer"],
                    reasoning=d.get("reasoning", ""))

    out = []
    with open(LABELS, encoding="utf-8", newline="") as f:
        for lab in csv.DictReader(f):
            seed = rows[lab["seed_id"]]
            seed_item = Item(seed.id, seed.question, seed.answer, seed.reasoning or "")
            if lab["text"] == "current":
                p = rows[lab["id"]]
                v = Item(p.id, p.question, p.answer, p.reasoning or "")
            else:
                v = item(lab["id"] + "@retired", retired[lab["id"]])
            out.append((v.id, v, seed_item, lab["label"] == "near-copy"))
    return out


def table(pairs, scores, threshold):
    tp = sum(1 for (k, *_, y) in pairs if y and scores[k] >= threshold)
    fp = sum(1 for (k, *_, y) in pairs if not y and scores[k] >= threshold)
    fn = sum(1 for (k, *_, y) in pairs if y and scores[k] < threshold)
    p = tp / (tp + fp) if tp + fp else float("nan")
    r = tp / (tp + fn) if tp + fn else float("nan")
    return tp, fp, fn, p, r


def _vectors_pairwise(pairs, embed):
    """Cosine of each (variant, seed) with vectors fitted/embedded over all texts at once."""
    texts, index = [], {}
    for k, v, s, _ in pairs:
        for it in (v, s):
            if it.id not in index:
                index[it.id] = len(texts)
                texts.append(it.question)
    x = embed(skeletons(texts))
    out = {}
    for k, v, s, _ in pairs:
        a, b = x[index[v.id]], x[index[s.id]]
        out[k] = float(a.multiply(b).sum()) if hasattr(a, "multiply") else float(a @ b)
    return out


def structure_scores(pairs, reasoning=True):
    items, index = [], {}
    for k, v, s, _ in pairs:
        for it in (v, s):
            if it.id not in index:
                index[it.id] = len(items)
                items.append(it)
    idx = StructureIndex([i.question for i in items],
                         [i.reasoning for i in items] if reasoning else None)
    return {k: idx.compare(index[v.id], index[s.id]) for k, v, s, _ in pairs}


def auc(pairs, scores):
    """The chance that a near-copy scores above a new-structure variant (ties count half)."""
    pos = [scores[k] for k, *_, y in pairs if y]
    neg = [scores[k] for k, *_, y in pairs if not y]
    if not pos or not neg:
        return float("nan")
    return sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg) / \
        (len(pos) * len(neg))


def best_threshold(pairs, scores):
    """The threshold with the best F1 on `pairs` (ties: the higher threshold)."""
    best = (-1.0, 1.0)
    for t in sorted({round(scores[k], 4) for k, *_ in pairs}):
        tp, fp, fn, *_ = table(pairs, scores, t)
        f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
        if f1 >= best[0]:
            best = (f1, t)
    return best[1]


def two_fold(pairs, scores):
    odd = [p for p in pairs if int(p[2].id.split("-")[1]) % 2]
    even = [p for p in pairs if not int(p[2].id.split("-")[1]) % 2]
    out = []
    for fit, test in ((odd, even), (even, odd)):
        t = best_threshold(fit, scores)
        out.append((t, table(test, scores, t)))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minilm", action="store_true")
    ap.add_argument("--judge-model")
    ap.add_argument("--judge-base-url")
    args = ap.parse_args(argv)
    pairs = labelled_pairs()
    n_copy = sum(y for *_, y in pairs)
    print(f"{len(pairs)} labelled texts, {n_copy} near-copies")
    rows = []
    from general365.analysis.embed import TfidfEmbedder

    tf = _vectors_pairwise(pairs, TfidfEmbedder().vectors)
    rows.append(("TF-IDF on masked skeletons", 0.90, tf))
    if args.minilm:
        from general365.analysis.embed import embed_texts, make_embedder

        emb = make_embedder("all-MiniLM-L6-v2")
        rows.append(("all-MiniLM-L6-v2 on masked skeletons", 0.95,
                     _vectors_pairwise(pairs, lambda t: embed_texts(emb, t).vectors)))
    st = structure_scores(pairs)
    rows.append(("structure (default flag)", THRESHOLD, {k: s.score for k, s in st.items()}))
    rows.append(("structure (screening point)", SCREEN, {k: s.score for k, s in st.items()}))
    bare = {k: s.score for k, s in structure_scores(pairs, reasoning=False).items()}
    rows.append(("structure, questions only (no reasoning)", THRESHOLD, bare))
    for name, t, scores in rows:
        tp, fp, fn, p, r = table(pairs, scores, t)
        print(f"| {name} | {t:.2f} | {tp} | {fp} | {fn} | {p:.2f} | {r:.2f} | "
              f"{auc(pairs, scores):.2f} |")
    for t, (tp, fp, fn, p, r) in two_fold(pairs, {k: s.score for k, s in st.items()}):
        print(f"  structure, two-fold by family: threshold {t:.2f} -> TP {tp} FP {fp} FN {fn} "
              f"P {p:.2f} R {r:.2f}")
    if args.judge_model:
        from general365.analysis.similarity_prompt import SIMILARITY_TASK, SimilarityPair, Triplet
        from general365.grading.judge import Judge

        judge = Judge(args.judge_model, base_url=args.judge_base_url, cache=False,
                      structured="vllm", max_tokens=2, concurrency=4, timeout=300)
        plan = [SimilarityPair(Triplet(s.question, s.reasoning, s.answer),
                               Triplet(v.question, v.reasoning, v.answer))
                for _, v, s, _ in pairs]
        answers = judge.ask(SIMILARITY_TASK, plan)
        js = {k: (a.value if a.value is not None else -1) for (k, *_), a in zip(pairs, answers)}
        for t in (4, 5):
            tp, fp, fn, p, r = table(pairs, js, t)
            print(f"| LLM judge {args.judge_model} (score >= {t}) | {t} | {tp} | {fp} | {fn} | "
                  f"{p:.2f} | {r:.2f} |")
        comb = {k: 1.0 if js[k] == 5 or (js[k] >= 4 and st[k].score >= THRESHOLD) else 0.0
                for k in js}
        tp, fp, fn, p, r = table(pairs, comb, 1.0)
        print(f"| judge combined with structure | - | {tp} | {fp} | {fn} | {p:.2f} | {r:.2f} |")
        print("scores:", dict(sorted(__import__("collections").Counter(js.values()).items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
