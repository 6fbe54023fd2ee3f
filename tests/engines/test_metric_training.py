"""The metric in transformers evaluation loops (the examples of docs/training.md): a plain
generate-then-add_batch loop on the tiny local causal model, and Seq2SeqTrainer's
compute_metrics on a tiny encoder-decoder built here. Real models, real evaluate.load."""

from __future__ import annotations

import math

import pytest

import general365

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
evaluate = pytest.importorskip("evaluate")


def _numbers_only(scores: dict) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
               for v in scores.values())


def _eval_rows():
    """Eight sample problems, every answer type among them (two text problems)."""
    ds = general365.load_dataset("all", source="sample")
    wanted = {"number": 2, "interval": 1, "single_choice": 1, "multiple_choice": 2, "text": 2}
    picked = []
    for i, t in enumerate(ds["answer_type"]):
        if wanted.get(t):
            wanted[t] -= 1
            picked.append(i)
    return ds.select(picked)


def test_a_plain_generate_loop_with_add_batch(tiny_model_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir, padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    ds = _eval_rows()
    metric = evaluate.load(general365.METRIC_PATH)
    outputs = []
    for batch in ds.iter(batch_size=4):
        prompts = [tokenizer.apply_chat_template([{"role": "user", "content": q[:200]}],
                                                 add_generation_prompt=True, tokenize=False)
                   for q in batch["question"]]
        enc = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        with torch.no_grad():
            out = model.generate(**enc, max_new_tokens=8, do_sample=False)
        texts = tokenizer.batch_decode(out[:, enc["input_ids"].shape[1]:],
                                       skip_special_tokens=True)
        # the generated text, then (for every other row) a final answer, so that both
        # verdicts occur whatever the random model wrote
        texts = [t + (f"</think>\\boxed{{{a}}}" if i % 2 == 0 else "")
                 for i, (t, a) in enumerate(zip(texts, batch["answer"]))]
        outputs += texts
        metric.add_batch(predictions=texts, references=batch)  # the batch's own rows
    scores = metric.compute()

    assert _numbers_only(scores)
    assert scores["total"] == len(ds) == 8
    # the same verdicts as the grader on the same texts
    verdicts = general365.grade(
        [{"id": r["id"], "run": 0, "response": t} for r, t in zip(ds, outputs)],
        general365.load_problems(source="sample"), policy="rule")
    assert scores["correct"] == sum(v.correct for v in verdicts) >= 3
    assert scores["status/ungraded"] == ds["answer_type"].count("text") == 2
    assert scores["graded"] == 6
    assert scores["accuracy"] == pytest.approx(scores["correct"] / 6)


def test_seq2seq_trainer_compute_metrics(tiny_model_dir, tmp_path):
    """compute_metrics returns the metric's flat numbers: Trainer prefixes and logs them."""
    import numpy as np
    from transformers import (AutoTokenizer, DataCollatorForSeq2Seq, Seq2SeqTrainer,
                              Seq2SeqTrainingArguments, T5Config, T5ForConditionalGeneration)

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    torch.manual_seed(0)
    model = T5ForConditionalGeneration(T5Config(
        vocab_size=len(tokenizer), d_model=32, d_ff=64, num_layers=1, num_heads=2, d_kv=16,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id))
    rows = _eval_rows()
    eval_ds = rows.map(lambda r: {"input_ids": tokenizer(r["question"][:200])["input_ids"],
                                  "labels": tokenizer(r["answer"])["input_ids"]},
                       remove_columns=rows.column_names)
    metric = evaluate.load(general365.METRIC_PATH)

    def compute_metrics(pred):
        ids = np.where(pred.predictions != -100, pred.predictions, tokenizer.pad_token_id)
        texts = tokenizer.batch_decode(ids, skip_special_tokens=True)
        return metric.compute(predictions=texts, references=rows)

    args = Seq2SeqTrainingArguments(output_dir=str(tmp_path), use_cpu=True,
                                    per_device_eval_batch_size=4, predict_with_generate=True,
                                    generation_max_length=8, report_to="none")
    trainer = Seq2SeqTrainer(model=model, args=args, eval_dataset=eval_ds,
                             processing_class=tokenizer, compute_metrics=compute_metrics,
                             data_collator=DataCollatorForSeq2Seq(tokenizer, model=model))
    scores = trainer.evaluate()
    assert scores["eval_total"] == 8 and scores["eval_status/ungraded"] == 2
    assert scores["eval_total/number"] == rows["answer_type"].count("number")
    assert 0.0 <= scores["eval_accuracy"] <= 1.0
    logged = trainer.state.log_history[-1]
    assert logged["eval_accuracy"] == scores["eval_accuracy"]
    assert _numbers_only({k: v for k, v in logged.items() if k.startswith("eval_")})
