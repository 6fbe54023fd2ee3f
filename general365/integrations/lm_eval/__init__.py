"""General365 as lm-evaluation-harness tasks.

    lm_eval --model hf --model_args pretrained=MODEL --tasks general365_sample \\
        --include_path "$(python -c 'import general365.integrations.lm_eval as m; print(m.TASK_DIR)')"

`TASK_DIR` holds the task YAMLs and the functions they name (tasks/utils.py, which calls
this module): `general365` (the official public split, from the Hub) and
`general365_sample` (the bundled sample, offline). Each response is graded by the
benchmark's grader (`rule` policy, or `paper` with the judge that GENERAL365_JUDGE_MODEL
names); the metrics are `accuracy` (over graded answers, with lm-eval's bootstrap stderr)
and `coverage` (the share graded). See docs/harnesses.md.
"""

from __future__ import annotations

import math
import os
from typing import Any

from ...prompts import build_messages
from ..harness import accuracy_value, grade_one, judge_from_env

TASK_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tasks")

_judge: Any = None
_judge_read = False


def _public(**source):
    from ...data.load import load_dataset

    ds = load_dataset("all", split="public", **source)
    import datasets

    # lm-eval reads the split its YAML names (test_split: public)
    return datasets.DatasetDict({"public": ds})


def load_public(**_metadata):
    """The official public split (meituan-longcat/General365_Public, all 720 rows), read
    and checked by general365.load_dataset (the Hub, or its cache offline)."""
    return _public()


def load_sample(**_metadata):
    """The bundled sample (160 rows), offline."""
    return _public(source="sample")


def doc_to_text(doc: dict) -> str:
    """The user message general365 generate sends: the question, verbatim."""
    return build_messages(doc)[-1]["content"]


def _env_judge():
    global _judge, _judge_read
    if not _judge_read:
        _judge, _judge_read = judge_from_env(), True
    return _judge


def process_results(doc: dict, results: list) -> dict[str, float]:
    """One response's metrics: accuracy 1.0 / 0.0, NaN when it could not be graded (a
    text answer with no judge; lm-eval's nanmean leaves it out), and coverage 1 / 0."""
    text = results[0] if results else ""
    verdict = grade_one(doc, text, _env_judge())
    value = accuracy_value(verdict)
    return {"accuracy": value, "coverage": 0.0 if math.isnan(value) else 1.0}
