"""General365 itself behind the Benchmark seam: the default benchmark."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .. import prompts
from ..data.load import load_problems
from ..grading import hybrid
from ..reporting.kinds import GENERAL365
from ..runners.provenance import dataset_fingerprint
from ..schema import INLINE_PROBLEM_FIELDS, Problem


class General365:
    name = "general365"
    title = "General365"
    prompt_version = prompts.PROMPT_VERSION
    report = GENERAL365

    def load(self, source: str | None, *, split: str = "public",
             config: str = "all") -> list[Problem]:
        return load_problems(source=source, split=split, config=config)

    def messages(self, item: Problem, *, system_prompt: str | None = None
                 ) -> tuple[dict[str, Any], ...]:
        return prompts.build_messages(item, system_prompt=system_prompt)

    def inline(self, item: Problem) -> Mapping[str, Any]:
        full = item.to_dict()
        return {k: full[k] for k in INLINE_PROBLEM_FIELDS}

    def fingerprint(self, items: Sequence[Problem]) -> str:
        return dataset_fingerprint(items)

    grader = staticmethod(hybrid.HybridGrader)   # Benchmark.grader
