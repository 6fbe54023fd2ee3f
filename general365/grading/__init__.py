"""The hybrid grader: rule grading (math-verify) for number and interval answers, a
deterministic option-letter grader for choice answers, and an LLM judge for choice and
text answers, combined by a policy. The contract, complete, is docs/grading.md.

- hybrid.py         batch grading under a policy (paper, cascade, rule)
- files.py          a responses file graded into a graded file (grade_file)
- pairing.py        each response paired with its problem, every check before grading
- extract.py        the final-answer region and the candidate answer (steps 1 and 2)
- shown.py          the final-answer region as a reader sees it (hidden text removed)
- hedges.py         hedges and retractions around a stated answer
- rule.py           the rule grader for number and interval answers (steps 3 and 4)
- choice.py         the option-letter grader for single and multiple choice
- gold_cache.py     per-grader memory of parsed golds and verdicts
- pool.py           the grading pool: worker processes with a hard time limit
- pool_server.py    the pool's fork server and its workers
- _warm.py          what the pool's fork server imports once for every worker
- judge.py          the LLM judge client (any OpenAI-compatible API)
- judge_ask.py      a batch of a JudgeTask's items through the judge client
- judge_task.py     a question for the judge other than the verdict, as a typed value
- judge_cache.py    a persistent SQLite cache of judge answers
- judge_prompt.py   the official judge prompt, its version, the strict reply parser
- summary.py        a batch's grade at a glance: accuracy, counts per status and type
"""
