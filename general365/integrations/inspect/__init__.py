"""General365 as inspect_ai tasks, `general365` (the public split) and `general365_sample`
(offline), with their scorer and metrics, found through the entry point in setup.cfg
(docs/harnesses.md):

    inspect eval general365/general365_sample --model openai-api/vllm/MODEL
"""

from __future__ import annotations

import asyncio

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import (CORRECT, INCORRECT, NOANSWER, Metric, SampleScore, Score,
                               Target, accuracy as _accuracy, metric, scorer,
                               stderr as _stderr)
from inspect_ai.solver import TaskState, generate

from ...prompts import build_messages
from ...schema import Status
from ..harness import grade_one, judge_from_env, make_judge

UNGRADED = Status.UNGRADED.value


def _registered(name: str) -> str:
    """Always `general365/NAME`: inspect prefixes the package itself only when it sees
    general365 installed, not for a checkout on sys.path (a stale egg-info found first)."""
    try:
        from inspect_ai._util.registry import registry_name

        def probe() -> None: ...

        probe.__module__ = __name__
        if registry_name(probe, name).startswith("general365/"):
            return name
    except Exception:   # a private helper of inspect's: if it moves, name it ourselves
        pass
    return f"general365/{name}"


def _graded(scores: list[SampleScore]) -> list[SampleScore]:
    return [s for s in scores if (s.score.metadata or {}).get("status") != UNGRADED]


def _over_graded(inner: Metric) -> Metric:
    # annotated: inspect reads the parameter's type to tell this signature from its old one
    def compute(scores: list[SampleScore]) -> float:
        return inner(_graded(scores))

    return compute


@metric
def accuracy() -> Metric:
    """Correct over graded answers (an ungraded one is left out, as in `general365 grade`)."""
    return _over_graded(_accuracy())


@metric
def stderr() -> Metric:
    """The standard error of that accuracy."""
    return _over_graded(_stderr())


@metric
def coverage() -> Metric:
    """Graded over all answers."""
    def compute(scores: list[SampleScore]) -> float:
        return len(_graded(scores)) / len(scores) if scores else 0.0

    return compute


@scorer(metrics=[accuracy(), stderr(), coverage()])
def general365_grader(judge_model: str | None = None, judge_base_url: str | None = None,
                      judge_api_key_env: str = "OPENAI_API_KEY"):
    """General365's grader: `rule` policy, or `paper` with a judge (`judge_model`, else
    GENERAL365_JUDGE_MODEL's)."""
    judge = (make_judge(judge_model, judge_base_url, judge_api_key_env) if judge_model
             else judge_from_env())

    async def score(state: TaskState, target: Target) -> Score:
        row = state.metadata["general365"]
        # The grader blocks (the rule pool, the judge's own client): off the event loop.
        verdict = await asyncio.to_thread(grade_one, row, state.output.completion, judge)
        status = verdict.status
        value = (CORRECT if status is Status.CORRECT else
                 NOANSWER if status is Status.UNGRADED else INCORRECT)
        return Score(value=value, answer=verdict.extracted, explanation=verdict.detail,
                     metadata={"status": status.value,
                               "method": verdict.method.value if verdict.method else None})

    return score


def _task(name: str, judge_model, judge_base_url, judge_api_key_env, **source) -> Task:
    from ...data.load import load_dataset

    rows = [dict(r) for r in load_dataset("all", split="public", **source)]
    samples = [Sample(input=build_messages(r)[-1]["content"], target=r["answer"], id=r["id"],
                      metadata={"general365": r, "answer_type": r["answer_type"],
                                "seed_id": r["seed_id"]})
               for r in rows]
    return Task(dataset=MemoryDataset(samples, name=name),
                solver=generate(),
                scorer=general365_grader(judge_model, judge_base_url, judge_api_key_env),
                # the paper's reasoning preset (max_tokens: the model's, or --max-tokens)
                config=GenerateConfig(temperature=1.0, top_p=1.0))


@task(name=_registered("general365"))
def general365(judge_model: str | None = None, judge_base_url: str | None = None,
               judge_api_key_env: str = "OPENAI_API_KEY") -> Task:
    """The official public split (meituan-longcat/General365_Public, 720 problems)."""
    return _task("general365", judge_model, judge_base_url, judge_api_key_env)


@task(name=_registered("general365_sample"))
def general365_sample(judge_model: str | None = None, judge_base_url: str | None = None,
                      judge_api_key_env: str = "OPENAI_API_KEY") -> Task:
    """The bundled sample (160 problems), offline."""
    return _task("general365_sample", judge_model, judge_base_url, judge_api_key_env,
                 source="sample")
