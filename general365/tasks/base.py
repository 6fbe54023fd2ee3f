"""The Benchmark seam: what makes one benchmark itself; runners, run store, judge, grading
loop, command line and reports are shared. A problem is any object with a string `id`. Rows
of a benchmark other than General365 carry `"benchmark": NAME` (through `inline`), so a
graded file says what it was graded for; General365's rows carry no such field.
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

from ..reporting.kinds import ReportKind

DEFAULT = "general365"


@runtime_checkable
class Benchmark(Protocol):
    name: str            # "general365", "qa", "cfe": recorded in run.json and graded rows
    title: str           # for summaries, reports and pages
    prompt_version: str  # bumped whenever messages() changes what a model is shown
    report: ReportKind

    def load(self, source: str | None, *, split: str, config: str) -> Sequence[Any]:
        """The problems, validated; bad rows raise DataError/DataErrors naming each."""
        ...

    def messages(self, item: Any, *, system_prompt: str | None = None
                 ) -> tuple[dict[str, Any], ...]:
        """The chat messages for one problem (a tuple: hashable, immutable)."""
        ...

    def inline(self, item: Any) -> Mapping[str, Any]:
        """The problem's fields a response row carries (its gold among them)."""
        ...

    def fingerprint(self, items: Sequence[Any]) -> str:
        """A short hash of what a run was asked and is graded against (run.json)."""
        ...

    def grader(self, problems: Sequence[Any] | None, *, policy: str | None, judge: Any,
               workers: int | None, timeout: float, dataset: str | None = None) -> Any:
        """A grading.engine.Grader with the benchmark's hook (`.pairing`, `.grade`,
        `.policy`, `.close()`); `.uses_judge` False (optional) lets grade_file check and
        grade a file in one read instead of checking it all first."""
        ...
