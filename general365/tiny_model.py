"""A tiny random Llama model and its tokenizer, built locally in a few seconds, for the
tests, the benchmark and `general365 demo` (none may download a model). The smallest model
vLLM's CPU attention accepts (head size 32), a byte-level BPE tokenizer that knows the
reasoning markers, and a chat template with an `enable_thinking` switch, so every path a
real chat model takes is exercised. Its weights are random (fixed seed).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

# Bumped whenever what gets built changes, so that an old build is not reused.
BUILD_VERSION = "1"
MARKER = ".general365-tiny-model"

SEED = 1234
VOCAB_SIZE = 1000
MAX_POSITIONS = 2048

BOS, EOS, PAD = "<s>", "<|end|>", "<pad>"
ROLE_TOKENS = ("<|system|>", "<|user|>", "<|assistant|>")
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"

# Qwen-style: the reasoning block is the model's to write; with enable_thinking=false the
# template writes an empty block into the prompt so that the model answers directly.
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{%- for message in messages -%}"
    "{%- if message['role'] not in ['system', 'user', 'assistant'] -%}"
    "{{ raise_exception('unknown role: ' + message['role']) }}"
    "{%- endif -%}"
    "{{ '<|' + message['role'] + '|>\\n' + message['content'] + '<|end|>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}"
    "{{ '<|assistant|>\\n' }}"
    "{%- if enable_thinking is defined and not enable_thinking -%}"
    "{{ '<think>\\n\\n</think>\\n\\n' }}"
    "{%- endif -%}"
    "{%- endif -%}"
)

# Enough varied text for ~1000 BPE merges: question-like prose, numbers, LaTeX answers.
_LINES = [
    "Please reason step by step, and put your final answer within \\boxed{}.",
    "The answer is \\boxed{42}. The final answer is \\boxed{3.14}.",
    "Alice, Bob and Carol sit at a round table; who sits to the left of whom?",
    "A train leaves at 9:15 and arrives at 11:40. How long is the journey in minutes?",
    "If every knight tells the truth and every knave lies, which of them is a knave?",
    "Choose the correct option: (A) red (B) green (C) blue (D) yellow.",
    "Give the probability as a fraction in lowest terms, e.g. \\frac{1}{6}.",
    "The interval [2, 5) contains every x with 2 <= x < 5.",
    "Let me think about this carefully. First, count the cases; then add them up.",
    "Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday.",
    "north south east west; left right above below; before after during.",
    "Round your answer to two decimal places. Output only the number.",
]


def _corpus() -> list[str]:
    lines = list(_LINES)
    lines += [" ".join(str(n) for n in range(start, start + 25)) for start in range(0, 1000, 25)]
    lines += [f"\\boxed{{{n}}} {THINK_OPEN} step {n} {THINK_CLOSE}" for n in range(0, 200, 7)]
    words = " ".join(" ".join(_LINES).split())
    # Shifted copies give the trainer many distinct neighbouring pairs to merge.
    lines += [words[i:] + " " + words[:i] for i in range(0, len(words), 17)]
    return lines


def _build_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import AddedToken, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = [BOS, EOS, PAD, *ROLE_TOKENS]
    trainer = trainers.BpeTrainer(  # vocab_size: the two reasoning markers are added below
        vocab_size=VOCAB_SIZE - 2, special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(_corpus(), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOS, eos_token=EOS,
                                   pad_token=PAD, additional_special_tokens=list(ROLE_TOKENS))
    # Not special: decoding with skip_special_tokens (vLLM's default) must keep them in the
    # text, as real reasoning models' tokenizers do.
    fast.add_tokens([AddedToken(t, special=False, normalized=False)
                     for t in (THINK_OPEN, THINK_CLOSE)])
    fast.chat_template = CHAT_TEMPLATE
    fast.model_max_length = MAX_POSITIONS
    fast.padding_side = "left"
    return fast


def _build_model(tokenizer):
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(  # vocab_size: no id the tokenizer cannot decode
        vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=1, head_dim=32,
        max_position_embeddings=MAX_POSITIONS, tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id, torch_dtype="float32")
    torch.manual_seed(SEED)
    model = LlamaForCausalLM(config).to(torch.float32)
    # Only the token ids: sampling defaults in here would silently change engines' defaults.
    model.generation_config = GenerationConfig(
        bos_token_id=config.bos_token_id, eos_token_id=config.eos_token_id,
        pad_token_id=config.pad_token_id)
    return model


def is_built(path: str | os.PathLike) -> bool:
    marker = Path(path) / MARKER
    try:
        return json.loads(marker.read_text())["version"] == BUILD_VERSION
    except (OSError, ValueError, RecursionError, KeyError, TypeError):
        return False


def build_tiny_model(path: str | os.PathLike) -> Path:
    """Build the tiny model into `path` (reused if built there), in a sibling temporary
    folder renamed into place: an interrupted build never looks finished."""
    from .errors import UserError

    path = Path(path)
    if is_built(path):
        return path
    if (path.exists() and (not path.is_dir() or any(path.iterdir()))
            and not (path / MARKER).exists()):
        raise UserError(f"{path}: exists and is not a tiny-model folder; choose an empty or "
                        "new path")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    tmp.chmod(0o755)  # mkdtemp's 0700 would hide the model from other users of a shared cache
    try:
        tokenizer = _build_tokenizer()
        model = _build_model(tokenizer)
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        (tmp / MARKER).write_text(json.dumps({"version": BUILD_VERSION, "seed": SEED}))
        if path.exists():  # an older build: replace it whole
            shutil.rmtree(path)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path
