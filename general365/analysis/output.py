"""Write an analysis under DIR: analysis.json, tsne.csv, tables/*.csv, figures/*.png|svg and
index.html. Everything is built in a temporary folder beside DIR and moved in at the end,
so a failure leaves nothing half-written; other files already in DIR are left alone."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import tempfile
from typing import TYPE_CHECKING

from ..errors import UserError
from . import figures as figs
from .page import render_page
from .tables import all_tables, to_csv

if TYPE_CHECKING:
    from .core import Analysis


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


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def build_figures(a: "Analysis", out_dir: str) -> list:
    os.makedirs(out_dir, exist_ok=True)
    out = []
    if a.datasets:
        out.append(figs.statistics_figure(a.datasets, out_dir))
        out.append(figs.tsne_figure(a.datasets, out_dir,
                                    a.settings.get("embedder", {}).get("identity", "")))
        out.append(figs.diversity_figure(a.datasets, out_dir))
    if a.similarity is not None:
        from .similarity_figures import similarity_figure

        out.append(similarity_figure(a.similarity, out_dir))
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
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".general365-analysis-", dir=parent)
    written = []
    try:
        tables = all_tables(a)
        os.makedirs(os.path.join(tmp, "tables"))
        for t in tables:
            _write(os.path.join(tmp, "tables", t.key + ".csv"), to_csv(t))
        if a.datasets:
            _write(os.path.join(tmp, "tsne.csv"), tsne_csv(a))
        _write(os.path.join(tmp, "analysis.json"),
               json.dumps(a.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        figures = build_figures(a, os.path.join(tmp, "figures"))
        _write(os.path.join(tmp, "index.html"), render_page(a, tables, figures))
        for root, _dirs, files in os.walk(tmp):
            for name in sorted(files):
                src = os.path.join(root, name)
                dst = os.path.join(out, os.path.relpath(src, tmp))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                os.replace(src, dst)
                written.append(dst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return sorted(written)
