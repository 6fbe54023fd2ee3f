"""Reports: the paper's tables and figures for any set of graded runs, and a leaderboard
page. Reads graded files only (and a run folder's run.json for provenance); never grades.

    import general365
    report = general365.report(["runs/a/graded.jsonl"], "report/", published="full")
    report.table("table1_categories").cell("my-model", "Overall")

(general365.reporting.build has the parts: build_report computes, write_report writes.) The
names below are imported on first use: `import general365` stays cheap.
"""

from __future__ import annotations

_LAZY = {"Report": "build", "build_report": "build", "write_report": "build",
         "REPORT_SCHEMA": "summary", "REPORT_VERSION": "summary"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_LAZY)
