"""General365 as inspect_ai tasks: `general365` (the official public split) and
`general365_sample` (the bundled sample, offline).

    inspect eval general365/general365_sample --model openai-api/vllm/MODEL
    inspect eval general365/general365 --model ... -T judge_model=gpt-4.1

inspect finds them through its entry point (setup.cfg: `inspect_ai = general365 = ...`).
The scorer is the benchmark's grader (`rule` policy; `paper` with the judge that
`-T judge_model=` or GENERAL365_JUDGE_MODEL names). The metrics are accuracy and stderr
over the graded answers (a text answer without a judge is left out) and coverage, the
share graded. See docs/harnesses.md.

- tasks.py  the tasks, their scorer and metrics
"""

from .tasks import general365, general365_sample  # noqa: F401
