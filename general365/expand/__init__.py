"""Seed expansion (the paper's section 2.2): LLM-proposed variants of seed problems,
automatic checks, human review and selection. See docs/expand.md.

    from general365.expand import expand, write_review, select
    r = expand("sample", model="m", backend="openai", base_url=URL, out="exp/")
    write_review("exp/")                       # exp/review.html
    select("exp/", decisions="decisions.jsonl", per_seed=3, out="variants.jsonl")

- propose.py        `expand()`: candidates asked of a model as one resumable session
- prompt.py         the expansion prompt, its reply's JSON schema, the reply read (or why not)
- candidates.py     the candidate record; candidates.jsonl, rebuilt from the replies each run
- checks.py         the automatic checks: named flags, three of them blocking
- solver.py         the optional solver check: k answers per candidate, graded
- review.py         the review page (review.html), its style and script: accept, reject, edit
- selection.py      `select()`: the final variants of each seed, diverse and hard first
"""

from __future__ import annotations

from .candidates import ExpansionCandidate, Flag, Solver
from .checks import BLOCKING, FLAGS
from .propose import ExpandResult, expand
from .review import write_review
from .selection import Selection, select

__all__ = ["BLOCKING", "ExpandResult", "ExpansionCandidate", "FLAGS", "Flag", "Selection",
           "Solver", "expand", "select", "write_review"]
