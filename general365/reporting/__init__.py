"""Reports: the paper's tables and figures for any set of graded runs, and a leaderboard
page (`general365.report`). Reads graded files only; never grades. The names below are
imported on first use, so that `import general365` stays cheap.

- build.py       a report from graded files: computed, then written aside and swapped in
- load.py        graded files read into typed rows, grouped by model
- hub_folder.py  a results dataset folder (the Hub layout) read back as graded rows
- kinds.py       what a report shows that depends on the benchmark
- stats.py       accuracy, the seed-family bootstrap, run stability, avg@N / pass@N
- summary.py     one summary per model, and the report's JSON form (report.json)
- published.py   the paper's own numbers, bundled as CSV
- tables.py      the report's tables as typed values; Markdown and CSV
- plots.py       the paper's figures for any set of models
- html.py        the leaderboard page: one self-contained index.html
"""

from __future__ import annotations

import importlib

_LAZY = {"Report": "build", "build_report": "build", "write_report": "build",
         "REPORT_SCHEMA": "summary", "REPORT_VERSION": "summary"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_LAZY)
