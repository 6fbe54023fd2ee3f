"""The hybrid grader: rule grading (math-verify) for number and interval answers, a
deterministic option-letter grader for choice answers, and an LLM judge (judge.py) for
choice and text answers, combined by a policy in hybrid.py. The contract, complete, is docs/grading.md."""
