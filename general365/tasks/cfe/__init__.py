"""CFE-Bench (Classroom Final Exam) through general365: loading and validating the release,
prompts (multimodal rows carry their figures), per-variable grading (rule path, then an LLM
judge with CFE's own prompt), Variable and Question Accuracy, reasoning-flow diagnostics.
Modules in the order data flows (docs/cfe-bench.md):

- data.py          CFEProblem, Variable, FlowStep; the release checked and loaded
- prompts.py       chat messages (figures as data: URL image content parts)
- stated.py        plain text from LaTeX dressing; each variable's stated value (lines, boxes)
- quantity.py      numbers with units and scientific notation, compared with a tolerance
- rule.py          the rule path for one variable (formulas in the pool); a response's reading
- grade.py         per-variable verdicts under a policy, the judge prompt; the graded row
- benchmark.py     the Benchmark protocol object (name "cfe") and its grader
- graded_rows.py   graded rows read back; Variable / Question Accuracy, pass@k; audit rows
- report.py        the report kind: tables beside the paper's published figures
- flow.py          reasoning-flow diagnostics and their runs (`general365 cfe units | lengths`)

Nothing heavy is imported here: a grading worker unpickles rule.py's tasks through it.
"""

NAME = "cfe"
