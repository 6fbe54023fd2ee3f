"""The Benchmark seam: what makes one benchmark itself, behind one small protocol. The
runners, the run store, the judge client, the grading loop (grading/engine.py), the command
line and the report machinery are shared; a benchmark supplies the members below.

A problem is any object with a string `id`; General365's is `schema.Problem`. Response and
graded rows of a benchmark other than General365 carry `"benchmark": NAME` (through
`inline`), so a graded file says what it was graded for; General365's rows carry no such
field, and its outputs are what they always were.
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
        """A grader (a grading.engine.Grader with the benchmark's hook):
        `.pairing.pair(response, path=, line=)` checks and pairs one response (every check
        before grading; grading/pairing.py), `.grade(responses, path=, checked=, progress=)`
        yields schema.Graded rows in input order, `.policy` names the policy, `.close()`
        ends it; `.uses_judge` (optional, True if absent) False when it asks no judge:
        grade_file then checks and grades the file in one read instead of checking it all
        first."""
        ...
