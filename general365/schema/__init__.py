"""The records and vocabularies at the seams between stages (see docs/architecture.md).

- records.py  Problem, Response (one model output), Verdict, and their shared field checks
- graded.py   Graded: a graded row (graded.jsonl), written by the grader, read back whole
- enums.py    AnswerType, Category, Status, Method
"""

from .enums import AnswerType, Category, Method, Status
from .graded import GRADER_FIELDS, Graded
from .records import (INLINE_PROBLEM_FIELDS, MAX_INT, Problem, Response, Verdict,
                      index_problems, parse_categories, parse_float_round, row_id_and_run)

__all__ = ["AnswerType", "Category", "GRADER_FIELDS", "Graded", "INLINE_PROBLEM_FIELDS",
           "MAX_INT", "Method", "Problem", "Response", "Status", "Verdict", "index_problems",
           "parse_categories", "parse_float_round", "row_id_and_run"]
