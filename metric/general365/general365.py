"""General365: the benchmark's hybrid grader as an `evaluate` metric.

A thin wrapper over the `general365` package (pip install general365), which does the work:
math-verify with each problem's `float_round` for number/interval answers, a deterministic
option-letter grader or the official LLM-judge prompt for choice answers, and the judge for
text answers. See README.md (the metric card) for inputs, outputs and policies.
"""

import importlib
import os
import sys

import datasets
import evaluate


def _load_package():
    # This script is named like the package. Loaded from its own folder (cwd on sys.path),
    # `import general365` would import this file again instead of the package, so the
    # package is imported with the folders that hold a general365.py left out of the path.
    found = sys.modules.get("general365")
    if found is not None and hasattr(found, "__path__"):
        return found
    saved_path = list(sys.path)
    saved_module = sys.modules.pop("general365", None)
    try:
        sys.path[:] = [
            p for p in sys.path
            if not os.path.isfile(os.path.join(os.path.abspath(p or os.curdir), "general365.py"))
        ]
        return importlib.import_module("general365")
    except ImportError as exc:
        if saved_module is not None:
            sys.modules["general365"] = saved_module
        raise ImportError(
            "The General365 metric needs the general365 package: pip install general365"
        ) from exc
    finally:
        sys.path[:] = saved_path


_general365 = _load_package()
_core = importlib.import_module("general365.metric")

_CITATION = _core.CITATION
_DESCRIPTION = _core.DESCRIPTION
_KWARGS_DESCRIPTION = _core.KWARGS_DESCRIPTION


def _features():
    # One feature set: with several, evaluate chooses by reading the first example, and an
    # empty input has none (IndexError). float_round, an int or (as in the official
    # release) a string, is passed as text (general365/metric.float_round_as_text).
    return datasets.Features({
        "predictions": datasets.Value("string"),
        "references": datasets.Value("string"),
        "answer_type": datasets.Value("string"),
        "float_round": datasets.Value("string"),
        "question": datasets.Value("string"),
        "categories": datasets.Sequence(datasets.Value("string")),
    })


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class General365(evaluate.Metric):
    """Accuracy on General365 with the benchmark's own grading rules."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_features(),
            homepage="https://general365.github.io",
            reference_urls=["https://general365.github.io"],
        )

    # References may be the dataset's own rows (a datasets.Dataset, dicts, a dict of
    # columns): evaluate types every input per row, so they are split into the declared
    # columns here, before evaluate validates them (general365/metric.py).

    def _inputs(self, predictions, references, kwargs):
        references, kwargs = _core.split_references(references, kwargs)
        if predictions is not None:
            kwargs = _core.fill_optional_inputs(predictions, kwargs)
        return references, _core.float_round_as_text(kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch; references may be rows; `question` and `categories` may be left out."""
        references, kwargs = self._inputs(predictions, references, kwargs)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction; the reference may be a row; `question` and `categories` may
        be left out."""
        reference, kwargs = _core.split_reference_row(reference, kwargs)
        kwargs = _core.float_round_as_text(kwargs)
        kwargs.setdefault("question", "")
        kwargs.setdefault("categories", [])
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Grade the predictions (plus any added with add/add_batch); flat numbers by
        default (breakdown=True, return_details=True for more)."""
        references, kwargs = self._inputs(predictions, references, kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, answer_type, float_round, question=None,
                 categories=None, policy=None, judge=None, workers=None, timeout=None,
                 breakdown=False, return_details=False):
        return _core.compute(
            predictions=predictions, references=references, answer_type=answer_type,
            float_round=float_round, question=question, categories=categories,
            policy=policy, judge=judge, workers=workers, timeout=timeout,
            breakdown=breakdown, return_details=return_details,
        )
