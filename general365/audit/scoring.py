"""`score`: grading accuracy from labels, overall and per method, answer type and model.

Writes `score.md` (tables and the verdicts marked wrong, with their notes), `score.csv`
(one line per group) and `score.json` (every number, the definitions, the inputs); the CLI
prints a one-screen summary. Definitions: metrics.py.
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass, field
from typing import Sequence

from .. import __version__
from ..reporting.tables import md_cell
from ..terminal import shown
from .labels import Label, read_labels
from .metrics import Estimate, Scores, scores, weighted_estimate
from .write import write_files

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


def _group_key(lab: Label, scope: str) -> str:
    if scope == "method":
        return lab.method or "none"
    if scope == "answer_type":
        return lab.answer_type or "unknown"
    return lab.model or "(no model)"


def score(paths: Sequence[str]) -> AuditScore:
    """Read labels files (nothing is written; see `write_score`)."""
    labels, unlabelled = read_labels(paths)
    groups: dict[str, dict[str, Scores]] = {}
    for scope, _ in SCOPES:
        members: dict[str, list[Label]] = {}
        for lab in labels:
            members.setdefault(_group_key(lab, scope), []).append(lab)
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
    iv = s.interval
    return [str(s.n), _pct(s.accuracy, digits), _pct(iv[0] if iv else None, digits),
            _pct(iv[1] if iv else None, digits), _pct(s.precision, digits),
            _pct(s.recall, digits), _pct(s.f1, digits), str(s.tp), str(s.fp), str(s.tn),
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
    for scope, _ in SCOPES[:2]:
        for g, s in a.groups[scope].items():
            out.append(line(f"{scope}={g}", s))
    if len(a.groups["model"]) > 1:
        out += [line(f"model={g}", s) for g, s in a.groups["model"].items()]
    if a.estimate:
        e = a.estimate
        out.append(f"  whole input (post-stratified): acc {_pct(e.accuracy)}% [{_pct(e.low)}, "
                   f"{_pct(e.high)}], effective n {e.effective_n:.1f}, {e.covered} graded "
                   f"rows in {e.strata} strata")
    elif a.estimate_missing:
        out.append(f"  no whole-input estimate: {a.estimate_missing}")
    return out
