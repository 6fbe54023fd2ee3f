"""Reports: the paper's tables and figures for any set of graded runs, and a leaderboard
page. Reads graded files only (and a run folder's run.json for provenance); never grades.

    from general365.report import build_report, write_report
    report = build_report(["runs/a/graded.jsonl"], published="full")
    report.table("table1_categories").cell("my-model", "Overall")
    write_report(report, "report/")
"""

from .commands import Report, build_report, write_report  # noqa: F401
from .summary import REPORT_SCHEMA, REPORT_VERSION  # noqa: F401

__all__ = ["REPORT_SCHEMA", "REPORT_VERSION", "Report", "build_report", "write_report"]
