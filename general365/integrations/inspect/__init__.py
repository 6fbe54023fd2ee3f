"""General365 as inspect_ai tasks, `general365` (the public split) and `general365_sample`
(offline), found through the entry point in setup.cfg (docs/harnesses.md):

    inspect eval general365/general365_sample --model openai-api/vllm/MODEL

- tasks.py  the tasks, their scorer and metrics
"""

from .tasks import general365, general365_sample  # noqa: F401
