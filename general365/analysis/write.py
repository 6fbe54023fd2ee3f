"""Write an analysis under DIR: analysis.json, tsne.csv, tables/*.csv, figures/*.png|svg and
index.html. Everything is built in a temporary folder beside DIR and swapped in whole at
the end (folders.write_folder), so a failure or a kill leaves the old analysis or the new
one, never a mix, and the next run removes what a killed one left; other files already in
DIR are kept."""

from __future__ import annotations

import csv
import io
import json
import os
from typing import TYPE_CHECKING

from ..errors import UserError
from ..folders import write_folder
from ..fsutil import write_text
from . import figures as figs
from .page import render_page
from ..reporting.tables import to_csv
from .tables import all_tables

if TYPE_CHECKING:
    from .core import Analysis

TMP_BASE = "general365-analysis"


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
