"""General365 inside the evaluation harnesses people already run.

- `general365.integrations.lm_eval`: lm-evaluation-harness tasks (`general365`,
  `general365_sample`); give `TASK_DIR` to `lm_eval --include_path`.
- `general365.integrations.inspect`: inspect_ai tasks, found by `inspect eval
  general365/general365_sample` through inspect's entry point.

Both grade with this project's grader (`harness.grade_one`), so a harness's accuracy is
`general365 grade`'s on the same outputs. lighteval has no task here: docs/harnesses.md
says why.
"""
