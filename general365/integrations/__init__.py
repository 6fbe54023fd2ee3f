"""General365 inside the evaluation harnesses people already run.

- lm_eval/    lm-evaluation-harness tasks (`general365`, `general365_sample`); give
              `TASK_DIR` to `lm_eval --include_path`
- inspect/    inspect_ai tasks, found by `inspect eval general365/general365_sample`
              through inspect's entry point
- harness.py  what both share: a harness row's problem, the judge from the environment,
              one response graded by this project's grader (`grade_one`)

Both grade with this project's grader, so a harness's accuracy is `general365 grade`'s on
the same outputs. lighteval has no task here: docs/harnesses.md says why.
"""
