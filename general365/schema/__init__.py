"""The records and vocabularies at the seams between stages (see docs/architecture.md).

- records.py  Problem (a dataset row), Response (one model output), Verdict (its grade)
- graded.py   Graded: a graded row (graded.jsonl), written by the grader, read back whole
- enums.py    AnswerType, Category, Status, Method
- fields.py   field checks shared by the records (file, line, id and field on error)
"""

from .enums import AnswerType, Category, Method, Status
from .fields import MAX_INT, parse_categories, parse_float_round, row_id_and_run
from .graded import GRADER_FIELDS, Graded
from .records import INLINE_PROBLEM_FIELDS, Problem, Response, Verdict, index_problems

__all__ = ["AnswerType", "Category", "GRADER_FIELDS", "Graded", "INLINE_PROBLEM_FIELDS",
           "MAX_INT", "Method", "Problem", "Response", "Status", "Verdict", "index_problems",
           "parse_categories", "parse_float_round", "row_id_and_run"]
