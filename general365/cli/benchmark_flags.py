"""`--benchmark` and the options of the benchmarks that take some, shared by the verbs that
read a dataset (generate, grade, run)."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import OptionError
from ..tasks import BENCHMARKS, get_benchmark


def add(p: Any) -> None:
    p.add_argument("--benchmark", default=None, metavar="|".join(BENCHMARKS),
                   help="which benchmark the dataset is (default general365; qa: any dataset "
                        "with a question and an answer column; cfe: CFE-Bench, from its "
                        "release folder)")
    p.add_argument("--question-field", default="question", metavar="COLUMN",
                   help="qa: the question column (default: question)")
    p.add_argument("--answer-field", default="answer", metavar="COLUMN",
                   help="qa: the gold-answer column (default: answer)")
    p.add_argument("--id-field", metavar="COLUMN",
                   help="qa: the id column (default: the row's line number)")
    p.add_argument("--answer-type", metavar="TYPE",
                   help="qa: every row's answer type (default: an answer_type column, else "
                        "read from each gold)")
    p.add_argument("--tolerance", type=float, metavar="REL",
                   help="cfe (and implies it): the relative tolerance for numbers, 0.01 = 1%% "
                        "(default 0.01; a row's own tolerance wins)")


def benchmark(args: argparse.Namespace) -> Any:
    """The benchmark to pass to the library: a name, or one built with its options."""
    name = getattr(args, "benchmark", None)
    tolerance = getattr(args, "tolerance", None)
    if tolerance is not None:
        if name not in (None, "cfe"):
            raise OptionError("tolerance", "is CFE-Bench's option (--benchmark cfe); "
                                           f"{name} has none")
        return get_benchmark("cfe", tolerance=tolerance)
    if name == "qa":
        return get_benchmark("qa", question_field=args.question_field,
                             answer_field=args.answer_field, id_field=args.id_field,
                             answer_type=args.answer_type)
    return name
