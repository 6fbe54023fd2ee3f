"""CFE-Bench (Classroom Final Exam) through general365: loading and validating the release,
prompts (multimodal rows carry their figures), per-variable grading (rule path, then an LLM
judge with CFE's own prompt), Variable and Question Accuracy, reasoning-flow diagnostics.

Modules, in the order data flows (docs/cfe-bench.md):

- data.py       CFEProblem / Variable / FlowStep, loaded from a folder or a Hub copy
- prompts.py    chat messages (images as data: URL content parts)
- answers.py    the `name = value` lines (and boxes) of a response
- quantity.py   numbers with units and scientific notation, compared with a tolerance
- symbolic.py   formula equivalence (math-verify / sympy), run in the grading pool
- judge_prompt.py  the per-variable judge prompt (versioned)
- grade.py      per-variable verdicts under a policy; graded rows
- report.py     Variable / Question Accuracy, pass@k, avg@k, tables, the paper's figures
- flow.py       reasoning-flow diagnostics (unit execution, flow lengths)
- audit.py      per-variable rows for the grading audit
- benchmark.py  the Benchmark protocol object (name "cfe")
- cli.py        add_arguments / main of the diagnostics commands

Nothing heavy is imported here: a grading worker unpickles symbolic.py's tasks through it.
"""

NAME = "cfe"
