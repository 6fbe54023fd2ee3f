"""CFE-Bench prompts: the question, its variables, the answer-line instruction; figures as
OpenAI-compatible image parts that reach an OpenAI-compatible server as sent (the real
OpenAIRunner against the recording fault server); the transformers backend refuses them."""

from __future__ import annotations

import base64

import pytest

from general365.errors import DataError, UserError
from general365.runners.base import GenerationRequest, SamplingSettings
from general365.runners.openai_api import OpenAIRunner, RetryPolicy
from general365.tasks.cfe import prompts
from general365.tasks.cfe.data import CFEProblem, Variable, VariableType
from support.servers import Behaviour

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24


def test_text_row_is_a_plain_string_with_the_variables(cfe_data):
    p = cfe_data.subset("text")[0]
    [msg] = prompts.build_messages(p)
    assert msg["role"] == "user" and isinstance(msg["content"], str)
    text = msg["content"]
    assert text.startswith(p.question)
    for v in p.variables:
        assert f"- {v.name}: {v.description}" in text
        assert f"\n{v.name} = <value>" in text
    assert text.rstrip().endswith("in the symbols of the question.")
    assert prompts.PROMPT_VERSION == "cfe-query-v1"
    sys_msg, user = prompts.build_messages(p, system_prompt="Be brief.")
    assert sys_msg == {"role": "system", "content": "Be brief."} and user == msg
    with pytest.raises(DataError, match="empty system prompt"):
        prompts.build_messages(p, system_prompt="  ")


def test_multimodal_row_carries_its_figures_in_place(cfe_data):
    p = next(q for q in cfe_data.subset("mm") if len(q.images) == 3)
    [msg] = prompts.build_messages(p)
    parts = msg["content"]
    images = [x for x in parts if x["type"] == "image_url"]
    assert len(images) == 3
    for part, path in zip(images, p.images):
        url = part["image_url"]["url"]
        head, data = url.split(",", 1)
        assert head == "data:image/jpeg;base64"
        with open(path, "rb") as f:
            assert base64.b64decode(data) == f.read()
    # The question's `<image>` marks are where the figures go: none is left in the text.
    assert p.question.count(prompts.PLACEHOLDER) == 3
    assert not any(prompts.PLACEHOLDER in x.get("text", "") for x in parts)
    assert parts[-1]["type"] == "text" and "= <value>" in parts[-1]["text"]
    assert all(set(x) == {"type", "text"} or set(x) == {"type", "image_url"} for x in parts)


def synthetic(tmp_path, question, files: dict[str, bytes]) -> CFEProblem:
    paths = []
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    return CFEProblem("m1", question, (Variable("x", VariableType.NUMERIC, "x", "1"),),
                      modality="mm", images=tuple(paths))


def test_mime_type_comes_from_the_bytes(tmp_path):
    p = synthetic(tmp_path, "Two figures, no marks.", {"a.jpg": PNG, "b.gif": b"GIF89a..."})
    [msg] = prompts.build_messages(p)
    urls = [x["image_url"]["url"] for x in msg["content"] if x["type"] == "image_url"]
    assert urls[0].startswith("data:image/png;base64,")    # a PNG named .jpg
    assert urls[1].startswith("data:image/gif;base64,")
    # Without marks the figures follow the question's text.
    assert msg["content"][0] == {"type": "text", "text": "Two figures, no marks."}
    bad = synthetic(tmp_path, "q", {"c.bin": b"not an image"})
    with pytest.raises(DataError, match="not an image"):
        prompts.build_messages(bad)


def test_images_reach_an_openai_compatible_server_as_content_parts(fault_server, cfe_data):
    fault_server.set_script(lambda req, n: Behaviour.reply("x = 1"))
    p = next(q for q in cfe_data.subset("mm") if len(q.images) == 2)
    t = cfe_data.subset("text")[0]
    settings = SamplingSettings(temperature=0.0, max_tokens=32, seed=1)
    reqs = [GenerationRequest(q.id, 0, prompts.build_messages(q), settings) for q in (p, t)]
    runner = OpenAIRunner(fault_server.model, base_url=fault_server.base_url,
                          retry=RetryPolicy(max_attempts=2, base_delay=0.01), jitter_seed=0)
    gens = {g.problem_id: g for g in runner.generate(reqs)}
    assert all(g.error is None for g in gens.values())
    sent = {type(r["messages"][0]["content"]).__name__: r for r in fault_server.requests}
    mm = sent["list"]["messages"][0]["content"]
    assert [x["type"] for x in mm].count("image_url") == 2
    for part, path in zip([x for x in mm if x["type"] == "image_url"], p.images):
        with open(path, "rb") as f:
            assert part["image_url"]["url"] == "data:image/jpeg;base64," + \
                base64.b64encode(f.read()).decode()
    assert mm == list(prompts.build_messages(p))[0]["content"]     # exactly as built
    assert isinstance(sent["str"]["messages"][0]["content"], str)


def test_transformers_refuses_a_multimodal_row_in_one_line(tiny_model_dir, tmp_path):
    from general365.runners.transformers import TransformersRunner

    p = synthetic(tmp_path, "See <image>.", {"a.png": PNG})
    settings = SamplingSettings(temperature=0.0, max_tokens=4, seed=1)
    runner = TransformersRunner(str(tiny_model_dir), batch_size=1)
    try:
        text_req = GenerationRequest("t", 0, ({"role": "user", "content": "Hi"},), settings)
        mm_req = GenerationRequest("m1", 0, prompts.build_messages(p), settings)
        with pytest.raises(UserError) as info:
            list(runner.generate([text_req, mm_req]))
        msg = str(info.value)
        assert "\n" not in msg and "'m1'" in msg and "text prompts only" in msg
        assert "--backend vllm or openai" in msg
        assert len(list(runner.generate([text_req]))) == 1      # text rows still run
    finally:
        runner.close()
