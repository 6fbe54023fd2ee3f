"""The review page (`review.html`, docs/expand.md, section 4): one self-contained page, each
seed beside its candidates; a reviewer's decisions are exported as JSON Lines for
`general365 expand select`. The rows travel as JSON inside the page and reach the screen
through `textContent` only, so nothing a model wrote becomes markup.
"""

from __future__ import annotations

import datetime as _dt
import os
from html import escape
from typing import Any, Sequence

from ..audit.page import _json_for_script
from ..errors import UserError
from ..fsutil import check_target, write_text
from ..reporting.html import page
from ..schema import AnswerType, Category, Problem
from .candidates import ExpansionCandidate
from .checks import BLOCKING, FLAGS
from .collect import read_candidates, read_seeds
from .review_script import SCRIPT, STYLE

REVIEW = "review.html"
EDITABLE = ("question", "reasoning", "answer", "answer_type", "float_round", "categories")


def page_data(folder: str, seeds: Sequence[Problem], cands: Sequence[ExpansionCandidate]
              ) -> dict[str, Any]:
    by_seed: dict[str, list[dict[str, Any]]] = {}
    for c in cands:
        by_seed.setdefault(c.seed_id, []).append(c.to_dict())
    rows = [{"seed": s.to_dict(), "candidates": by_seed[s.id]} for s in seeds
            if s.id in by_seed]
    stray = sorted(set(by_seed) - {s.id for s in seeds})
    if stray:
        raise UserError(f"{os.path.join(folder, 'candidates.jsonl')}: candidates of seed "
                        f"{stray[0]!r}, which is not in {os.path.join(folder, 'seeds.jsonl')}")
    return {"manifest": {"folder": os.path.abspath(folder),
                         "created": _dt.datetime.now(_dt.timezone.utc)
                         .isoformat(timespec="seconds"),
                         "candidates": len(cands), "seeds": len(rows), "flags": FLAGS,
                         "blocking": list(BLOCKING), "answer_types": AnswerType.values(),
                         "categories": Category.values(), "editable": list(EDITABLE)},
            "families": rows}


def render_review(data: dict[str, Any]) -> str:
    m = data["manifest"]
    flagged = sum(1 for f in data["families"] for c in f["candidates"] if c["flags"])
    intro = (f"{m['candidates']} candidate(s) of {m['seeds']} seed(s); {flagged} flagged by "
             f"the automatic checks. Folder: {m['folder']}.")
    how = ("Accept or reject each candidate; Edit changes its fields (an edit accepts it "
           "unless you reject it). Decisions are kept in this browser as you go. Export writes "
           "them as a decisions file for: general365 expand select DIR --decisions FILE "
           "--per-seed 3 --out variants.jsonl")
    legend = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}"
                     f"{' (blocking: edit it before accepting)' if k in BLOCKING else ''}</dd>"
                     for k, v in FLAGS.items())
    body = ("<h1>General365 variant review</h1>"
            f'<p class="note">{escape(intro)}</p><p class="note">{escape(how)}</p>'
            f'<details class="note"><summary>Flags</summary><dl>{legend}</dl></details>'
            '<div id="bar"><span id="progress"></span>'
            '<label>Show <select id="filter"><option value="all">all</option>'
            '<option value="undecided">undecided</option><option value="flagged">flagged'
            '</option><option value="clean">no flags</option><option value="accept">accepted'
            '</option><option value="reject">rejected</option></select></label>'
            '<button type="button" id="export">Export decisions (JSONL)</button>'
            '<label>Import decisions <input type="file" id="import" accept=".jsonl,.json,.txt">'
            '</label><span id="status" class="note"></span><a id="download" hidden></a></div>'
            '<textarea id="exported" readonly hidden aria-label="exported decisions"></textarea>'
            '<main id="families"></main>'
            f'<script type="application/json" id="review-data">{_json_for_script(data)}</script>')
    return page("General365 variant review", body, style=STYLE, script=SCRIPT)


def write_review(folder: str, *, out: str | None = None) -> tuple[str, int]:
    """Write the review page of an expansion folder (default `folder/review.html`); the
    page's path and the number of candidates on it."""
    cands = read_candidates(folder)
    seeds = read_seeds(folder, required=True)
    path = out or os.path.join(folder, REVIEW)
    if os.path.isdir(path):
        raise UserError(f"--out {path}: is a folder; expected the page's file name")
    check_target(path)
    write_text(path, render_review(page_data(folder, seeds, cands)))
    return path, len(cands)
