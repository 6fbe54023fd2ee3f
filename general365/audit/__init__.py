"""The grading-accuracy audit: how often are the grader's verdicts right?

    from general365 import audit
    s = audit.sample(["runs/a/graded.jsonl"], n=200, seed=0)   # stratified + disagreements
    audit.write_sample(s, "audit/")        # review.jsonl, review.html, sample.json
    # ... a person marks each verdict right or wrong on audit/review.html and exports ...
    a = audit.score(["labels.jsonl"])      # accuracy (Wilson 95%), P, R, F1, FP, FN
    audit.write_score(a, "audit/score/")   # score.md, score.csv, score.json

See docs/audit.md. The command line is `general365 audit sample|score` (general365/cli/audit.py).

- rows.py      graded rows as a reviewer sees them; where the rule and the judge disagree
- sampling.py  `sample`: a stratified, seeded sample of graded rows to review
- page.py      the review page (review.html) on which a person marks each verdict
- labels.py    labels files read back: the page's export or lines written by hand
- metrics.py   accuracy, precision, recall, F1 from labelled rows (Wilson intervals)
- scoring.py   `score`: grading accuracy overall and per method, answer type and model
- write.py     an audit's files, built in memory and written together
"""

from __future__ import annotations

from .labels import Label, read_labels
from .metrics import Scores, wilson
from .rows import ReviewRow, disagree, rule_side
from .sampling import AuditSample, sample, write_sample
from .scoring import AuditScore, score, write_score

__all__ = ["AuditSample", "AuditScore", "Label", "ReviewRow", "Scores", "disagree",
           "read_labels", "rule_side", "sample", "score", "wilson", "write_sample",
           "write_score"]
