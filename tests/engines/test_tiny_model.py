"""The tiny local model: built once, reused, loadable, and its template and tokenizer behave
as a real reasoning chat model's do."""

from __future__ import annotations

import json
import urllib.request

import pytest

from general365.errors import UserError
from general365.tiny_model import MARKER, THINK_CLOSE, THINK_OPEN, build_tiny_model, is_built


@pytest.fixture(scope="module")
def tokenizer(tiny_model_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_model_dir)


def test_built_with_the_requested_shape(tiny_model_dir):
    config = json.loads((tiny_model_dir / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLM"]
    assert (config["num_attention_heads"], config["num_key_value_heads"], config["head_dim"]) == (2, 1, 32)
    assert config["hidden_size"] == 64 and config["num_hidden_layers"] == 2
    assert config["max_position_embeddings"] == 2048
    assert 900 <= config["vocab_size"] <= 1100
    weights = (tiny_model_dir / "model.safetensors").stat().st_size
    assert weights < 2_000_000
    assert is_built(tiny_model_dir)


def test_reused_when_already_built(tiny_model_dir):
    before = (tiny_model_dir / "model.safetensors").stat().st_mtime_ns
    assert build_tiny_model(tiny_model_dir) == tiny_model_dir
    assert (tiny_model_dir / "model.safetensors").stat().st_mtime_ns == before


def test_same_seed_same_weights_and_stale_build_replaced(tmp_path, tiny_model_dir):
    other = build_tiny_model(tmp_path / "again")
    assert (other / "model.safetensors").read_bytes() == (tiny_model_dir / "model.safetensors").read_bytes()
    (other / MARKER).write_text(json.dumps({"version": "0"}))  # an older build
    assert not is_built(other)
    build_tiny_model(other)
    assert is_built(other)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".again.")]  # no temp left


def test_refuses_to_overwrite_a_foreign_folder(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(UserError, match="not a tiny-model folder"):
        build_tiny_model(tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_vocabulary_and_markers(tiny_model_dir, tokenizer):
    vocab_size = json.loads((tiny_model_dir / "config.json").read_text())["vocab_size"]
    assert len(tokenizer) == vocab_size  # the model cannot emit an id the tokenizer lacks
    for marker in (THINK_OPEN, THINK_CLOSE):
        ids = tokenizer.encode(marker, add_special_tokens=False)
        assert len(ids) == 1
    text = f"{THINK_OPEN}x = 12{THINK_CLOSE} \\boxed{{12}}"
    ids = tokenizer.encode(text, add_special_tokens=False)
    # The markers survive decoding that skips special tokens (vLLM's default).
    assert tokenizer.decode(ids, skip_special_tokens=True) == text


def test_chat_template_roles_and_thinking_switch(tokenizer):
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What is 2+2?"},
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": "And 3+3?"},
    ]
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert text.startswith("<s><|system|>\nBe brief.<|end|>\n<|user|>\nWhat is 2+2?<|end|>\n")
    assert text.endswith("<|user|>\nAnd 3+3?<|end|>\n<|assistant|>\n")
    off = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, enable_thinking=False)
    assert off == text + "<think>\n\n</think>\n\n"
    on = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, enable_thinking=True)
    assert on == text
    with pytest.raises(Exception, match="unknown role: tool"):
        tokenizer.apply_chat_template([{"role": "tool", "content": "x"}], tokenize=False)


def test_transformers_loads_and_generates(tiny_model_dir, tokenizer):
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    ids = tokenizer("The answer is", return_tensors="pt", add_special_tokens=False)
    torch.manual_seed(0)
    out = model.generate(**ids, max_new_tokens=5, do_sample=True)
    assert out.shape[1] == ids["input_ids"].shape[1] + 5 or tokenizer.eos_token_id in out[0].tolist()


@pytest.mark.slow
def test_vllm_server_fixture_serves_the_tiny_model(vllm_server):
    with urllib.request.urlopen(vllm_server.base_url + "/models", timeout=10) as reply:
        models = json.loads(reply.read())
    entry = next(m for m in models["data"] if m["id"] == vllm_server.model)
    assert entry["max_model_len"] == vllm_server.max_model_len
    body = json.dumps({
        "model": vllm_server.model, "max_tokens": 8, "temperature": 1.0, "seed": 3,
        "messages": [{"role": "user", "content": "What is 2+2?"}],
    }).encode()
    request = urllib.request.Request(
        vllm_server.base_url + "/chat/completions", data=body,
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        completion = json.loads(reply.read())
    assert completion["usage"]["completion_tokens"] <= 8
    assert completion["choices"][0]["finish_reason"] in ("length", "stop")
