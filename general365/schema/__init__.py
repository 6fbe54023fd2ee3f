"""The records and vocabularies at the seams between stages (see docs/architecture.md):

    Problem   a dataset row                        records.py
    Response  one model output (responses.jsonl)   records.py
    Verdict   its grade                            records.py
    Graded    a graded row (graded.jsonl)          graded.py
    AnswerType, Category, Status, Method           enums.py
"""

from .enums import AnswerType, Category, Method, Status
from .fields import MAX_INT, parse_categories, parse_float_round, row_id_and_run
from .graded import GRADER_FIELDS, Graded
from .records import INLINE_PROBLEM_FIELDS, Problem, Response, Verdict, index_problems

__all__ = ["AnswerType", "Category", "GRADER_FIELDS", "Graded", "INLINE_PROBLEM_FIELDS",
           "MAX_INT", "Method", "Problem", "Response", "Status", "Verdict", "index_problems",
           "parse_categories", "parse_float_round", "row_id_and_run"]
