"""The hybrid grader: rule grading (math-verify) for number and interval answers, a
deterministic option-letter grader for choice answers, and an LLM judge for choice and
text answers, combined by a policy. The contract, complete, is docs/grading.md.

- engine.py         the one grading loop, and each response paired with its problem (checks)
- hybrid.py         General365's and qa's hook: which grader decides which answer type
- files.py          a responses file graded into a graded file (grade_file)
- extract.py        the final-answer region as a reader sees it, the candidate and its hedges
- rule.py           the rule grader for number and interval answers (steps 3 and 4)
- choice.py         the option-letter grader for single and multiple choice
- pool.py           the grading pool: worker processes with a hard time limit
- pool_server.py    the pool's fork server and its workers
- _warm.py          what the pool's fork server imports once for every worker
- judge.py          the LLM judge client: one batch path for every task, retries, cache
- judge_task.py     the judge's tasks (the verdict among them): prompt, parser, choices
- judge_cache.py    a persistent SQLite cache of judge answers
- summary.py        a batch's grade at a glance: accuracy, counts per status and type
"""
