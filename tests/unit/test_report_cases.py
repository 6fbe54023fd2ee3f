"""Graded files with known contents for the report tests (no tests here: builders only).

The small case, worked by hand in test_report_tables.py:

problems  s1 (seed, number, CC+BE)   s1-v1 (variant of s1, number, CC+BE)
          s2 (seed, text, ST)        s2-v1 (variant of s2, text, ST)
          s3 (seed, single_choice, PU; a family of one)

alpha (preset reasoning, 2 runs, alpha.jsonl)
  run 0: s1 correct, s1-v1 correct, s2 incorrect, s2-v1 no_answer, s3 correct
  run 1: s1 correct, s1-v1 incorrect, s2 timeout, s2-v1 incorrect, s3 ungraded
beta (preset chat, 1 run) and gamma (no preset, 1 run), both in mixed.jsonl
  beta:  s1 incorrect, s1-v1 incorrect, s2 correct, s2-v1 judge_failed, s3 correct
  gamma: s1 correct, s3 correct
"""

from __future__ import annotations

import json
import os

CC, BE, ST, PU = ("Complex Constraints", "Branching & Enumeration", "Spatial & Temporal",
                  "Probability & Uncertainty")
PROBLEMS = {
    "s1": ("s1", 0, "number", [CC, BE]),
    "s1-v1": ("s1", 1, "number", [CC, BE]),
    "s2": ("s2", 0, "text", [ST]),
    "s2-v1": ("s2", 1, "text", [ST]),
    "s3": ("s3", 0, "single_choice", [PU]),
}
ORDER = ["s1", "s1-v1", "s2", "s2-v1", "s3"]

ALPHA = {
    0: ["correct", "correct", "incorrect", "no_answer", "correct"],
    1: ["correct", "incorrect", "timeout", "incorrect", "ungraded"],
}
ALPHA_TOKENS = {0: [100, 200, 300, 400, 500], 1: [600, 700, 800, 900, None]}
ALPHA_FINISH = {0: ["stop", "stop", "stop", "length", "stop"],
                1: ["stop", "stop", "length", "stop", None]}
BETA = ["incorrect", "incorrect", "correct", "judge_failed", "correct"]


def row(pid: str, run: int, status: str, *, model: str | None, preset: str | None = None,
        **extra) -> dict:
    seed_id, variant, answer_type, cats = PROBLEMS[pid]
    d = {"id": pid, "run": run, "response": f"answer of {pid}", "answer": "1",
         "answer_type": answer_type, "float_round": 0, "categories": cats,
         "seed_id": seed_id, "variant": variant, "status": status,
         "correct": status == "correct", "method": "rule", "extracted": "1"}
    if model is not None:
        d["model"] = model
    if preset is not None:
        d["sampling"] = {"preset": preset, "temperature": 1.0 if preset == "reasoning" else 0.7,
                         "top_p": 1.0, "seed": 1000 + run}
    d.update({k: v for k, v in extra.items() if v is not None})
    return d


def write_jsonl(path: str, rows: list[dict]) -> str:
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return path


def alpha_rows() -> list[dict]:
    out = []
    for run, statuses in ALPHA.items():
        for i, (pid, st) in enumerate(zip(ORDER, statuses)):
            out.append(row(pid, run, st, model="alpha", preset="reasoning",
                           output_tokens=ALPHA_TOKENS[run][i],
                           reasoning_tokens={"s1": 50 + 100 * run}.get(pid),
                           finish_reason=ALPHA_FINISH[run][i]))
    return out


def mixed_rows() -> list[dict]:
    out = [row(pid, 0, st, model="beta", preset="chat") for pid, st in zip(ORDER, BETA)]
    out += [row("s1", 0, "correct", model="gamma"), row("s3", 0, "correct", model="gamma")]
    return out


def small_case(folder: str) -> list[str]:
    os.makedirs(folder, exist_ok=True)
    return [write_jsonl(os.path.join(folder, "alpha.jsonl"), alpha_rows()),
            write_jsonl(os.path.join(folder, "mixed.jsonl"), mixed_rows())]


def family_rows(n_families: int, *, model: str = "m", variants: int = 3,
                counts=(4, 0, 2, 1, 3)) -> list[dict]:
    """n seed families of 1 + `variants` problems; family f has counts[f % len(counts)]
    correct members, so accuracy stays fixed (when n is a multiple of len(counts)) while
    the number of families grows."""
    out = []
    for f in range(n_families):
        k = counts[f % len(counts)]
        for v in range(variants + 1):
            pid = f"f{f}" if v == 0 else f"f{f}-v{v}"
            ok = v < k
            out.append({"id": pid, "run": 0, "response": "x", "model": model,
                        "answer_type": "number", "categories": [CC], "seed_id": f"f{f}",
                        "variant": v, "status": "correct" if ok else "incorrect",
                        "correct": ok, "method": "rule", "extracted": "1"})
    return out
