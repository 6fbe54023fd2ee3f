"""Write an analysis under DIR: analysis.json, tsne.csv, tables/*.csv, figures/*.png|svg and
index.html (one self-contained page in the report's style, every text escaped), built beside
DIR and swapped in whole (folders.write_folder): the old analysis or the new one, never a
mix; other files in DIR are kept."""

from __future__ import annotations

import csv
import io
import json
import os
from typing import TYPE_CHECKING, Sequence

from .. import __version__
from ..errors import UserError
from ..folders import write_folder
from ..fsutil import write_text
from ..reporting.html import _e, dl_html, figure_html, page
from ..reporting.plots import Figure
from ..reporting.tables import to_csv
from . import figures as figs
from .tables import INT, NUM, PCT, SIM, Table, all_tables, fmt

if TYPE_CHECKING:
    from .core import Analysis

TMP_BASE = "general365-analysis"
PAGE_ROWS = 300   # longer tables are cut on the page (the CSV has every row)

MEASURES = (
    ("NN similarity", "each item's cosine similarity to its nearest other item in the set; "
                      "a diverse set has low values"),
    ("Near-duplicate share", "the share of items whose nearest neighbour is at or above the "
                             "near-duplicate threshold"),
    ("Local collapse", "(D - B) / (1 - B): D is the mean similarity of the densest 10% of "
                       "items to their k nearest neighbours, B the mean similarity of all "
                       "pairs. 0: no neighbourhood is tighter than random pairs; 1: the "
                       "densest neighbourhoods are copies"),
    ("Variant-seed similarity", "each variant's cosine similarity to its own seed, and its "
                                "structure score: the ask, the constraints and the "
                                "reasoning compared with names, numbers and content words "
                                "masked; at or above the structure threshold it is flagged "
                                "as a near-copy"),
)
SIMILARITY_MEASURE = (
    "Reasoning similarity", "each item and its nearest neighbour (problem, reasoning, final "
                            "answer) scored 0-5 by an LLM judge: 0 logically independent, 5 "
                            "essentially the same reasoning skeleton; the mean, the share "
                            "scored 1-2 and the share scored 5 per set, beside the paper's "
                            "published figures (Figure 7)")


def table_html(t: Table, *, limit: int = PAGE_ROWS) -> str:
    head = "".join(f'<th data-kind="{_e(c.kind)}" scope="col">{_e(c.name)}'
                   f'{" (%)" if c.kind == PCT else ""}</th>' for c in t.columns)
    body = []
    for row in t.rows[:limit]:
        cells = []
        for v, c in zip(row, t.columns):
            if c.kind in (PCT, NUM, INT, SIM):
                raw = "" if v is None else repr(float(v))
                cells.append(f'<td class="num" data-v="{_e(raw)}">{_e(fmt(v, c.kind))}</td>')
            else:
                cells.append(f"<td>{_e('' if v is None else v)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    notes = [t.note] if t.note else []
    if len(t.rows) > limit:
        notes.append(f"First {limit} of {len(t.rows)} rows; tables/{t.key}.csv has them all.")
    if not t.rows:
        notes.append("No rows.")
    note = "".join(f'<p class="note">{_e(n)}</p>' for n in notes)
    return (f'<h2 id="{_e(t.key)}-title">{_e(t.title)}</h2>{note}<div class="wrap">'
            f'<table id="{_e(t.key)}" class="sortable"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def _notes_html(a: "Analysis") -> str:
    lines = [f"<li><strong>{_e(d.name)}</strong>: {_e(n)}</li>"
             for d in a.datasets for n in d.notes]
    if a.similarity is not None:
        lines += [f"<li>{_e(n)}</li>" for n in a.similarity.notes]
    return f'<h2 id="notes">Notes</h2><ul class="note">{"".join(lines)}</ul>' if lines else ""


def render_page(a: "Analysis", tables: Sequence[Table], figures: Sequence[Figure]) -> str:
    names = ", ".join(d.name for d in a.datasets) or "no question sets"
    emb = a.settings.get("embedder") or {}
    intro = (f"{len(a.datasets)} set(s): {names}. Embedder: {emb.get('identity', '-')}"
             f"{' (names and numbers masked)' if a.settings.get('mask') else ''}; "
             f"near-duplicate threshold {a.settings.get('near_duplicate_threshold')}. "
             f"Generated {a.created} by general365 {__version__}. Click a column header "
             "to sort.")
    shown = MEASURES + ((SIMILARITY_MEASURE,) if a.similarity is not None else ())
    measures = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in shown)
    body = [f'<h1>General365 benchmark analysis</h1><p class="note">{_e(intro)}</p>']
    first, rest = (tables[0], tables[1:]) if tables else (None, [])
    if first is not None:
        body.append(table_html(first))
    body.append(f'<h2 id="measures">Measures</h2><dl>{measures}</dl>')
    body += [figure_html(f) for f in figures]
    body += [table_html(t) for t in rest]
    body.append(_notes_html(a))
    body.append(f'<h2 id="settings">Settings</h2>{dl_html(a.settings.items())}')
    return page("General365 benchmark analysis", "".join(body))


def tsne_csv(a: "Analysis") -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["dataset", "id", "x", "y"])
    for d in a.datasets:
        if d.tsne.coords is None:
            continue
        for item, (x, y) in zip(d.set.items, d.tsne.coords):
            w.writerow([d.name, item.id, f"{x:.6f}", f"{y:.6f}"])
    return buf.getvalue()


def build_figures(a: "Analysis", out_dir: str) -> list:
    os.makedirs(out_dir, exist_ok=True)
    out = []
    if a.datasets:
        out.append(figs.statistics_figure(a.datasets, out_dir))
        out.append(figs.tsne_figure(a.datasets, out_dir,
                                    a.settings.get("embedder", {}).get("identity", "")))
        out.append(figs.diversity_figure(a.datasets, out_dir))
    if a.similarity is not None:
        out.append(figs.similarity_figure(a.similarity, out_dir))
    if a.difficulty:
        out += figs.difficulty_figures(a.difficulty, out_dir)
    return out


def check_out(out: str) -> str:
    """`out` as an absolute path, refused at once when it cannot be the output folder (so
    that a long analysis is not run for nothing)."""
    out = os.path.abspath(out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise UserError(f"--out {out}: exists and is not a folder; expected a folder")
    return out


def write_analysis(a: "Analysis", out: str) -> list[str]:
    """Write under `out` (created if needed); returns the files written."""
    out = check_out(out)

    def build(tmp: str) -> None:
        tables = all_tables(a)
        os.makedirs(os.path.join(tmp, "tables"))
        for t in tables:
            write_text(os.path.join(tmp, "tables", t.key + ".csv"), to_csv(t))
        if a.datasets:
            write_text(os.path.join(tmp, "tsne.csv"), tsne_csv(a))
        write_text(os.path.join(tmp, "analysis.json"),
                   json.dumps(a.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        figures = build_figures(a, os.path.join(tmp, "figures"))
        write_text(os.path.join(tmp, "index.html"), render_page(a, tables, figures))

    _out, written = write_folder(out, build, base=TMP_BASE, what="the analysis",
                                 own=("tables", "figures"))
    return written
