"""The grading-accuracy audit: how often are the grader's verdicts right? See docs/audit.md;
the command line is `general365 audit sample|score` (general365/cli/audit.py).

    from general365 import audit
    s = audit.sample(["runs/a/graded.jsonl"], n=200, seed=0)   # stratified + disagreements
    audit.write_sample(s, "audit/")        # review.jsonl, review.html, sample.json
    a = audit.score(["labels.jsonl"])      # the labels a person exported from review.html
    audit.write_score(a, "audit/score/")   # score.md, score.csv, score.json

- rows.py      graded rows as a reviewer sees them; where the rule and the judge disagree
- sampling.py  `sample`: a stratified, seeded sample of graded rows to review, written together
- page.py      the review page (review.html) on which a person marks each verdict
- labels.py    labels files read back: the page's export or lines written by hand
- scoring.py   `score`: accuracy (Wilson 95%), P, R, F1 overall and per method, type and model
"""

from __future__ import annotations

from .labels import Label, read_labels
from .rows import ReviewRow, disagree, rule_side
from .sampling import AuditSample, sample, write_sample
from .scoring import AuditScore, Scores, score, wilson, write_score

__all__ = ["AuditSample", "AuditScore", "Label", "ReviewRow", "Scores", "disagree",
           "read_labels", "rule_side", "sample", "score", "wilson", "write_sample",
           "write_score"]
