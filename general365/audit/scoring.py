"""`score`: grading accuracy from labels (CFE-Bench's Table 1: Acc, P, R, F1, FP, FN;
docs/audit.md), overall and per method, answer type and model, as score.md, score.csv and
score.json. Positive = graded correct; a figure is None where its denominator is 0. The
whole-input estimate is post-stratified, its Wilson interval on Kish's effective n."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .. import __version__
from ..reporting.tables import md_cell
from ..terminal import shown
from .labels import Label, read_labels
from .sampling import write_files

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval for a proportion (successes may be fractional for an
    effective sample size); None for n = 0."""
    if n <= 0:
        return None
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # At p = 0 or 1 the bound is exactly 0 or 1 (rounding would leave 0.9999999999999999).
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Scores:
    """The figures for one group of labelled rows."""

    n: int
    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def right(self) -> int:
        return self.tp + self.tn

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.right, self.n)

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.right, self.n)

    @property
    def precision(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float | None:
        return _ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    def to_dict(self) -> dict:
        low, high = self.interval or (None, None)
        return {"n": self.n, "accuracy": self.accuracy, "accuracy_low": low, "accuracy_high": high,
                "precision": self.precision, "recall": self.recall, "f1": self.f1,
                "tp": self.tp, "fp": self.fp, "tn": self.tn, "fn": self.fn}


def scores(labels: Iterable[Label]) -> Scores:
    c = Counter((lab.graded_correct, lab.right) for lab in labels)
    return Scores(c.total(), c[True, True], c[True, False], c[False, True], c[False, False])


@dataclass(frozen=True)
class Estimate:
    """Grading accuracy estimated for the whole input from post-stratified weights."""

    accuracy: float
    low: float
    high: float
    effective_n: float
    rows: int         # labelled rows used
    covered: int      # input rows in the strata with labels
    strata: int       # strata with labels

    def to_dict(self) -> dict:
        return {"accuracy": self.accuracy, "accuracy_low": self.low,
                "accuracy_high": self.high, "effective_n": self.effective_n,
                "rows": self.rows, "covered_rows": self.covered, "strata": self.strata}


def weighted_estimate(labels: Iterable[Label]) -> tuple[Estimate | None, str | None]:
    """(the estimate, None), or (None, why there is none): every row needs its stratum and
    stratum size, all from one sample (rows written by hand may carry neither)."""
    labels = list(labels)
    if any(lab.stratum is None or lab.stratum_size is None for lab in labels):
        return None, "some rows carry no stratum and stratum_size (from audit sample)"
    samples = {lab.sample_id for lab in labels}
    if len(samples) > 1:
        return None, (f"the labels come from {len(samples)} different samples; score each "
                      "sample's labels on its own for a whole-input estimate")
    sizes: dict[str, int] = {}
    for lab in labels:
        if sizes.setdefault(lab.stratum, lab.stratum_size) != lab.stratum_size:
            return None, f"stratum {lab.stratum!r} is given two sizes"
    counts = Counter(lab.stratum for lab in labels)
    w = [sizes[lab.stratum] / counts[lab.stratum] for lab in labels]
    total, total2 = sum(w), sum(x * x for x in w)
    acc = sum(x for x, lab in zip(w, labels) if lab.right) / total
    n_eff = total * total / total2
    low, high = wilson(acc * n_eff, n_eff)
    return Estimate(acc, low, high, n_eff, len(labels), sum(sizes.values()), len(sizes)), None


SCOPES = (("method", "Per method"), ("answer_type", "Per answer type"), ("model", "Per model"))
DEFINITIONS = (
    "Positive = graded correct. TP: graded correct and the reviewer agrees; FP: graded "
    "correct but the answer is not; TN: graded not correct (incorrect, no_answer, timeout, "
    "judge_failed) and the reviewer agrees; FN: graded not correct but the answer is. "
    "Accuracy = (TP+TN)/n with a 95% Wilson score interval; precision = TP/(TP+FP); "
    "recall = TP/(TP+FN); F1 = 2TP/(2TP+FP+FN).")
ESTIMATE_NOTE = (
    "Post-stratified over the strata of audit sample: each labelled row stands for its "
    "stratum's graded rows over the labelled rows of that stratum; 95% Wilson interval on "
    "Kish's effective sample size.")


@dataclass
class AuditScore:
    overall: Scores
    groups: dict[str, dict[str, Scores]]   # scope -> group -> scores
    estimate: Estimate | None
    estimate_missing: str | None           # why there is no estimate
    wrong: list[Label]
    unlabelled: int
    inputs: list[str]
    out: str | None = None
    files: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "general365_version": __version__, "inputs": self.inputs,
            "definitions": DEFINITIONS, "positive": "graded correct",
            "interval": "95% Wilson score interval", "labelled": self.overall.n,
            "unlabelled": self.unlabelled, "overall": self.overall.to_dict(),
            **{scope: {g: s.to_dict() for g, s in self.groups[scope].items()}
               for scope, _ in SCOPES},
            "estimate": self.estimate.to_dict() if self.estimate else None,
            "estimate_method": ESTIMATE_NOTE if self.estimate else None,
            "estimate_missing": self.estimate_missing,
            "marked_wrong": [_wrong_dict(lab) for lab in self.wrong],
        }


UNNAMED = {"method": "none", "answer_type": "unknown", "model": "(no model)"}


def score(paths: Sequence[str]) -> AuditScore:
    """Read labels files (nothing is written; see `write_score`)."""
    labels, unlabelled = read_labels(paths)
    groups: dict[str, dict[str, Scores]] = {}
    for scope, _ in SCOPES:
        members: dict[str, list[Label]] = {}
        for lab in labels:
            members.setdefault(getattr(lab, scope) or UNNAMED[scope], []).append(lab)
        groups[scope] = {g: scores(members[g]) for g in sorted(members)}
    estimate, missing = weighted_estimate(labels)
    return AuditScore(overall=scores(labels), groups=groups, estimate=estimate,
                      estimate_missing=missing,
                      wrong=[lab for lab in labels if not lab.right], unlabelled=unlabelled,
                      inputs=[os.path.abspath(p) for p in paths])


def _wrong_dict(lab: Label) -> dict:
    return {"model": lab.model, "id": lab.id, "run": lab.run, "status": lab.status.value,
            "method": lab.method, "answer_type": lab.answer_type,
            "error": "false positive" if lab.graded_correct else "false negative",
            "note": lab.note, "source": f"{lab.path}:{lab.line}"}


def _pct(x: float | None, digits: int = 1) -> str:
    return "" if x is None else f"{100 * x:.{digits}f}"


HEADERS = ("n", "accuracy (%)", "95% low (%)", "95% high (%)", "precision (%)", "recall (%)",
           "F1 (%)", "TP", "FP", "TN", "FN")


def _cells(s: Scores, digits: int) -> list[str]:
    shares = (s.accuracy, *(s.interval or (None, None)), s.precision, s.recall, s.f1)
    return [str(s.n), *(_pct(x, digits) for x in shares), str(s.tp), str(s.fp), str(s.tn),
            str(s.fn)]


def to_csv(a: AuditScore) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("scope", "group", *HEADERS))
    w.writerow(("overall", "all", *_cells(a.overall, 2)))
    for scope, _ in SCOPES:
        for g, s in a.groups[scope].items():
            w.writerow((scope, g, *_cells(s, 2)))
    return buf.getvalue()


def _md_table(first: str, rows: list[tuple[str, Scores]]) -> list[str]:
    out = ["| " + " | ".join((first, *HEADERS)) + " |",
           "|---|" + "---:|" * len(HEADERS)]
    out += ["| " + " | ".join((md_cell(g), *_cells(s, 1))) + " |" for g, s in rows]
    return out + [""]


def to_markdown(a: AuditScore) -> str:
    out = ["# General365 grading audit", "", DEFINITIONS, "",
           f"{a.overall.n} labelled rows"
           + (f" ({a.unlabelled} rows without a label left out)" if a.unlabelled else "")
           + ".", ""]
    if a.estimate:
        e = a.estimate
        out += [f"Estimated grading accuracy of the whole input: {_pct(e.accuracy)}% "
                f"[{_pct(e.low)}, {_pct(e.high)}] (effective n {e.effective_n:.1f}; "
                f"{e.covered} graded rows in the {e.strata} strata with labels). "
                f"{ESTIMATE_NOTE}", ""]
    elif a.estimate_missing:
        out += [f"No estimate for the whole input: {a.estimate_missing}.", ""]
    out += ["## Overall", ""] + _md_table("", [("all", a.overall)])
    for scope, title in SCOPES:
        out += [f"## {title}", ""] + _md_table(scope, list(a.groups[scope].items()))
    out += ["## Verdicts marked wrong", ""]
    if not a.wrong:
        out += ["None.", ""]
    else:
        out += ["| error | model | id | run | status | method | answer type | note |",
                "|---|---|---|---:|---|---|---|---|"]
        for lab in a.wrong:
            d = _wrong_dict(lab)
            cells = [d["error"], d["model"], d["id"], str(d["run"]), d["status"],
                     d["method"] or "", d["answer_type"] or "", d["note"]]
            out.append("| " + " | ".join(md_cell(c) for c in cells) + " |")
        out.append("")
    return "\n".join(out)


def write_score(a: AuditScore, out: str) -> AuditScore:
    files = {"score.md": to_markdown(a), "score.csv": to_csv(a),
             "score.json": json.dumps(a.to_dict(), indent=2, ensure_ascii=False) + "\n"}
    a.out, a.files = write_files(out, files)
    return a


def summary_lines(a: AuditScore) -> list[str]:
    """The one-screen summary the CLI prints."""
    def line(name: str, s: Scores) -> str:
        iv = s.interval
        ci = f"[{_pct(iv[0]):>5}, {_pct(iv[1]):>5}]" if iv else ""
        # A group's name (a model's) comes from the labels file: escaped for the terminal.
        return (f"  {shown(name):<28.28} n {s.n:>5}  acc {_pct(s.accuracy):>5}% {ci}  "
                f"P {_pct(s.precision) or '-':>5}  R {_pct(s.recall) or '-':>5}  "
                f"F1 {_pct(s.f1) or '-':>5}  FP {s.fp:>3}  FN {s.fn:>3}")

    out = [f"general365 audit score: {a.overall.n} labelled rows"
           + (f" ({a.unlabelled} without a label left out)" if a.unlabelled else "")
           + "; positive = graded correct; 95% Wilson intervals",
           line("overall", a.overall)]
    for scope, _ in SCOPES:   # one model: its line would repeat the overall one
        if scope != "model" or len(a.groups["model"]) > 1:
            out += [line(f"{scope}={g}", s) for g, s in a.groups[scope].items()]
    if a.estimate:
        e = a.estimate
        out.append(f"  whole input (post-stratified): acc {_pct(e.accuracy)}% [{_pct(e.low)}, "
                   f"{_pct(e.high)}], effective n {e.effective_n:.1f}, {e.covered} graded "
                   f"rows in {e.strata} strata")
    elif a.estimate_missing:
        out.append(f"  no whole-input estimate: {a.estimate_missing}")
    return out
