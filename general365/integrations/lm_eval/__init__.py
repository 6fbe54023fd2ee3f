"""General365 as lm-evaluation-harness tasks, `general365` (the public split, from the Hub)
and `general365_sample` (the bundled sample, offline); docs/harnesses.md.

    lm_eval --model hf --model_args pretrained=MODEL --tasks general365_sample \\
        --include_path "$(python -c 'import general365.integrations.lm_eval as m; print(m.TASK_DIR)')"

`TASK_DIR` holds the task YAMLs and tasks/utils.py, which names the functions below.
"""

from __future__ import annotations

import functools
import math
import os

from ...prompts import build_messages
from ..harness import accuracy_value, grade_one, judge_from_env

TASK_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tasks")


def _public(**source):
    import datasets

    from ...data.load import load_dataset

    # lm-eval reads the split its YAML names (test_split: public)
    return datasets.DatasetDict({"public": load_dataset("all", split="public", **source)})


def load_public(**_metadata):
    """The official public split (720 rows), through general365.load_dataset."""
    return _public()


def load_sample(**_metadata):
    """The bundled sample (160 rows), offline."""
    return _public(source="sample")


def doc_to_text(doc: dict) -> str:
    """The user message general365 generate sends: the question, verbatim."""
    return build_messages(doc)[-1]["content"]


_env_judge = functools.cache(judge_from_env)


def process_results(doc: dict, results: list) -> dict[str, float]:
    """Accuracy 1.0 / 0.0, NaN when ungraded (lm-eval's nanmean leaves it out); coverage."""
    value = accuracy_value(grade_one(doc, results[0] if results else "", _env_judge()))
    return {"accuracy": value, "coverage": 0.0 if math.isnan(value) else 1.0}
