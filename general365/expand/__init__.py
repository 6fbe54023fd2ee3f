"""Building General365-style problem sets (the paper's section 2.2): LLM-proposed variants
of seed problems, automatic checks, human review and selection. See docs/expand.md.

    from general365.expand import expand, write_review, select
    r = expand("sample", model="m", backend="openai", base_url=URL, out="exp/")
    write_review("exp/")                       # exp/review.html
    select("exp/", decisions="decisions.jsonl", per_seed=3, out="variants.jsonl")
"""

from __future__ import annotations

from .candidates import ExpansionCandidate, Flag, Solver
from .checks import BLOCKING, FLAGS
from .propose import ExpandResult, expand

__all__ = ["BLOCKING", "ExpandResult", "ExpansionCandidate", "FLAGS", "Flag", "Solver",
           "expand"]
