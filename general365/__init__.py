"""general365: the reference toolkit for the General365 benchmark.

    import general365
    ds = general365.load_dataset("seed", split="public", source="sample")
    verdicts = general365.grade(responses, problems, policy="rule")
    metric = evaluate.load(general365.METRIC_PATH)
"""

from __future__ import annotations

import os as _os

__version__ = "0.1.0"

# The evaluate metric folder. An installed wheel carries a copy of the checkout's
# metric/general365/ at general365/_shipped/metric/general365 (setup.py's build step); a
# source checkout or an editable install uses metric/general365/ itself. evaluate.load(DIR)
# runs DIR/<basename of DIR>.py, so both folders are named general365 (for general365.py).
_here = _os.path.dirname(_os.path.abspath(__file__))
_shipped_metric = _os.path.join(_here, "_shipped", "metric", "general365")
_checkout_metric = _os.path.join(_os.path.dirname(_here), "metric", "general365")
METRIC_PATH = _shipped_metric if _os.path.isdir(_shipped_metric) else _checkout_metric

from .schema import AnswerType, Category, Method, Problem, Response, Status, Verdict  # noqa: E402
from .errors import DataError, UserError  # noqa: E402


def load_dataset(config: str = "all", split: str = "public", source: str | None = None, **kwargs):
    """The General365 dataset as a `datasets.Dataset` (see general365.data.load)."""
    from .data.load import load_dataset as _load

    return _load(config=config, split=split, source=source, **kwargs)


def load_problems(source: str | None = None, split: str = "public", config: str = "all"):
    """The dataset as a list of `Problem` records."""
    from .data.load import load_problems as _load

    return _load(source=source, split=split, config=config)


def grade(responses, problems=None, policy: str | None = None, judge=None, **kwargs):
    """Grade responses against problems; returns a list of `Verdict` (see grading.hybrid).
    policy: "paper", "cascade" or "rule"; by default "paper" with a judge, "rule" without."""
    from .grading.hybrid import grade as _grade

    return _grade(responses, problems, policy=policy, judge=judge, **kwargs)


__all__ = [
    "AnswerType", "Category", "DataError", "METRIC_PATH", "Method", "Problem", "Response",
    "Status", "UserError", "Verdict", "__version__", "grade", "load_dataset", "load_problems",
]
