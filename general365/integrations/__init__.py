"""General365 inside lm-evaluation-harness and inspect_ai, graded by this project's grader
(a harness's accuracy is `general365 grade`'s on the same outputs; docs/harnesses.md).

- lm_eval/    lm-evaluation-harness tasks; give `TASK_DIR` to `lm_eval --include_path`
- inspect/    inspect_ai tasks, found through inspect's entry point
- harness.py  what both share: a row's problem, the judge from the environment, `grade_one`
"""
