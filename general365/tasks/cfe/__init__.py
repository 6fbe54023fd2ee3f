"""CFE-Bench (Classroom Final Exam) through general365: loading and validating the release,
prompts (multimodal rows carry their figures), per-variable grading (rule path, then an LLM
judge with CFE's own prompt), Variable and Question Accuracy, reasoning-flow diagnostics.
Modules in the order data flows (docs/cfe-bench.md):

- data.py          CFEProblem, Variable, FlowStep; the release checked and loaded
- prompts.py       chat messages (figures as data: URL image content parts)
- stated.py        what a response states for each variable (`name = value` lines, boxes);
                   plain text from LaTeX / Markdown dressing
- quantity.py      numbers with units and scientific notation, compared with a tolerance
- symbolic.py      formula equivalence (math-verify / sympy), run in the grading pool
- rule.py          the rule path for one variable; one response's reading as a pool task
- grade.py         the per-variable judge prompt (versioned); per-variable verdicts under a
                   policy; the graded row (schema.Graded)
- benchmark.py     the Benchmark protocol object (name "cfe") and its grader
- graded_rows.py   graded rows read back; Variable / Question Accuracy, pass@k, avg@k
- report.py        the report kind: tables beside the paper's published figures
- flow.py          reasoning-flow diagnostics (unit execution, flow lengths) and the costed
                   runs of them (`general365 cfe units | lengths`)
- audit.py         per-variable rows for the grading audit

Nothing heavy is imported here: a grading worker unpickles symbolic.py's tasks through it.
"""

NAME = "cfe"
