"""The transformers runner on the tiny model (real transformers generate, CPU), one runner
for the session (`transformers_runner`; what every local runner must do is in
test_runner_local.py)."""

from __future__ import annotations

import sys

import pytest

from general365.errors import MissingExtra, OptionError, UserError
from general365.runners.base import Runner
from support import runner_cases as cases


@pytest.fixture
def runner(transformers_runner):
    return transformers_runner


def test_is_a_runner(runner, tiny_model_dir):
    assert isinstance(runner, Runner)
    assert (runner.backend, runner.model_id) == ("transformers", str(tiny_model_dir))
    assert runner.max_model_len == 2048
    prov = runner.provenance()
    assert prov["backend"] == "transformers" and prov["transformers"] and prov["torch"]
    assert prov["batch_size"] == 4 and prov["max_model_len"] == 2048


def test_chat_template_kwargs_of_the_runner(tiny_model_dir, runner):
    from general365.runners.transformers import TransformersRunner

    off = TransformersRunner(str(tiny_model_dir), chat_template_kwargs={"enable_thinking": False})
    try:
        (a,) = runner.generate([cases.request(max_tokens=1)])
        (b,) = off.generate([cases.request(max_tokens=1)])
        assert b.prompt_tokens == a.prompt_tokens + 6
        assert off.provenance()["chat_template_kwargs"] == {"enable_thinking": False}
    finally:
        off.close()


def test_unsupported_sampling_option_is_refused(runner):
    with pytest.raises(UserError, match=r"'p'.*does not support.*min_p"):
        runner.prepare([cases.request(min_p=0.1)])
    with pytest.raises(UserError, match=r"logit_bias token 99999 is not a token id"):
        runner.prepare([cases.request(logit_bias={99999: 1.0})])


def test_bad_model_path_is_one_clear_line(tmp_path):
    from general365.runners.transformers import TransformersRunner

    with pytest.raises(UserError, match="no-such-model: no such folder") as err:
        TransformersRunner(str(tmp_path / "no-such-model"))
    assert "\n" not in str(err.value)


def test_model_folder_without_tokenizer_is_one_clear_line(tmp_path, tiny_model_dir):
    from general365.runners.transformers import TransformersRunner

    # config.json alone: transformers raises ValueError (no tokenizer it can build).
    folder = tmp_path / "config-only"
    folder.mkdir()
    (folder / "config.json").write_bytes((tiny_model_dir / "config.json").read_bytes())
    with pytest.raises(UserError, match="cannot load model") as err:
        TransformersRunner(str(folder))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("device, message", [
    ("foo", "is not a torch device"),
    ("cuda:99", "cuda"),
])
def test_bad_device_is_refused_before_loading(tiny_model_dir, device, message):
    from general365.runners.transformers import TransformersRunner

    with pytest.raises(OptionError, match=message) as err:
        TransformersRunner(str(tiny_model_dir), device=device)
    assert err.value.option == "device"
    # named as Python's keyword here; the command line spells it --device (OptionError)
    assert str(err.value).startswith(f"device {device!r}")


def test_output_is_run_major(runner):
    """One full pass before the next: every run-0 answer comes out before any run-1 one,
    even where sorting by prompt length alone would put a problem's runs side by side."""
    from general365.runners.base import GenerationRequest, preset

    settings = preset("reasoning", max_tokens=2)
    questions = {"long": "Explain in detail why the sky is blue, step by step, please. " * 3,
                 "short": "Hi", "mid": "What is 2+3?"}
    requests = [GenerationRequest(pid, run, ({"role": "user", "content": q},),
                                  settings.with_seed(run))
                for run in range(3) for pid, q in questions.items()]
    order = [(g.problem_id, g.run) for g in runner.generate(requests)]
    assert sorted(order) == sorted((r.problem_id, r.run) for r in requests)
    runs = [run for _, run in order]
    assert runs == sorted(runs), order


def test_bad_dtype(tiny_model_dir):
    from general365.runners.transformers import TransformersRunner

    with pytest.raises(UserError, match="dtype 'float33'"):
        TransformersRunner(str(tiny_model_dir), dtype="float33")


def test_missing_transformers_names_the_extra(monkeypatch, tiny_model_dir):
    from general365.runners.transformers import TransformersRunner

    monkeypatch.setitem(sys.modules, "transformers", None)  # `import transformers` fails
    with pytest.raises(MissingExtra) as err:
        TransformersRunner(str(tiny_model_dir))
    assert str(err.value) == ("transformers is not installed; install it with: "
                              "pip install 'general365[transformers]'")
