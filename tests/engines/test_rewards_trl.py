"""The rewards inside a real TRL GRPOTrainer: the tiny local model, the bundled sample, CPU,
a couple of steps each (seconds). TRL calls our functions with its own keyword arguments
and the dataset's columns; what they return and log must show up in TRL's logs."""

from __future__ import annotations

import os

import pytest

import general365
from general365.rewards import AccuracyReward, format_reward

trl = pytest.importorskip("trl", reason="the RL tests need trl (pip install 'general365[rl]')")
datasets = pytest.importorskip("datasets")

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func's notice


def _rows(kinds: list[str]) -> list[dict]:
    """One sample problem of each answer type in `kinds`, in that order."""
    ds = general365.load_dataset("seed", source="sample")
    rows = []
    for kind in kinds:
        rows.append(next(dict(r) for r in ds if r["answer_type"] == kind
                         and all(r["id"] != x["id"] for x in rows)))
    return rows


def _dataset(rows):
    # A conversational prompt beside every column of the sample (TRL passes them all on).
    return datasets.Dataset.from_list(rows).map(
        lambda r: {"prompt": [{"role": "user", "content": r["question"][:160]}]})


def _trainer(model_dir, tmp_path, dataset, reward_funcs, completion_length, config=None,
             **kwargs):
    from transformers import AutoTokenizer

    args = trl.GRPOConfig(
        output_dir=str(tmp_path / "out"), use_cpu=True, max_steps=2, logging_steps=1,
        per_device_train_batch_size=4, num_generations=2,  # 2 prompts x 2 generations a step
        max_completion_length=completion_length, report_to="none", save_strategy="no",
        seed=0, dataloader_num_workers=0, **(config or {}))
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    return trl.GRPOTrainer(model=str(model_dir), reward_funcs=reward_funcs, args=args,
                           train_dataset=dataset, processing_class=tokenizer, **kwargs)


def _step_logs(trainer) -> list[dict]:
    return [h for h in trainer.state.log_history if "loss" in h]


class Seen(AccuracyReward):
    """Our reward, unchanged, that also keeps what TRL handed it on each call."""

    def __init__(self):
        super().__init__()
        self.calls: list[dict] = []

    def __call__(self, completions, **kwargs):
        self.calls.append({"completions": list(completions), **kwargs})
        return super().__call__(completions, **kwargs)


def test_grpo_trains_with_our_rewards_on_the_tiny_model(tiny_model_dir, tmp_path):
    """The model generates (random text: its weights are random); every step has one number
    and one text problem, two generations each."""
    rows = _rows(["number", "text"])
    accuracy = Seen()
    trainer = _trainer(tiny_model_dir, tmp_path, _dataset(rows), [accuracy, format_reward], 8)
    trainer.train()

    # TRL called our function once a step, with the dataset's columns row by row: each
    # completion beside its own prompt's answer, answer_type and float_round (two
    # generations per prompt), and its two loggers
    assert len(accuracy.calls) == 2
    by_question = {r["question"][:160]: r for r in rows}
    for call in accuracy.calls:
        n = len(call["completions"])
        assert n == 4 and all(isinstance(c, list) for c in call["completions"])  # chat form
        for i in range(n):
            row = by_question[call["prompts"][i][-1]["content"]]
            assert (call["answer"][i], call["answer_type"][i], call["float_round"][i]) == \
                (row["answer"], row["answer_type"], row["float_round"])
        assert sorted(call["answer_type"]) == ["number", "number", "text", "text"]
        assert callable(call["log_metric"]) and callable(call["log_extra"])

    steps = _step_logs(trainer)
    assert len(steps) == 2
    for log in steps:
        # TRL named our functions after their __name__ and logged what they returned
        assert "rewards/general365_accuracy/mean" in log
        assert "rewards/general365_format/mean" in log
        # ... and what we logged through its log_metric: half of each batch is the text
        # problem, which has no judge here; the shares add up
        assert log["general365/ungraded"] == pytest.approx(0.5)
        assert sum(v for k, v in log.items() if k.startswith("general365/")) == pytest.approx(1.0)
        assert log["rewards/general365_accuracy/mean"] == pytest.approx(log["general365/correct"])
    # our function got TRL's columns row by row: the text rows are the ungraded ones
    results = accuracy.last_results
    assert len(results) == 4
    ungraded = [r.status == "ungraded" for r in results]
    assert sorted(ungraded) == [False, False, True, True]
    assert all(r.method is None for r, u in zip(results, ungraded) if u)
    assert all(r.method == "rule" for r, u in zip(results, ungraded) if not u)


def test_grpo_rewards_follow_the_answers(tiny_model_dir, tmp_path):
    """Scripted completions (TRL's rollout_func; the random tiny model cannot answer on
    demand): the first generation of each prompt answers right, the second wrong. The
    rewards TRL logs are exactly what the answers earn."""
    from transformers import AutoTokenizer

    rows = _rows(["number", "single_choice"])
    gold = {r["question"][:160]: (r["answer"], r["answer_type"]) for r in rows}
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    calls = []

    def rollout(prompts, trainer):
        calls.append(len(prompts))
        prompt_ids, completion_ids = [], []
        for i, prompt in enumerate(prompts):
            answer, kind = gold[prompt[-1]["content"]]
            wrong = "-" + answer if kind == "number" else ("A" if answer != "A" else "B")
            text = f"<think>ok</think> \\boxed{{{answer if i % 2 == 0 else wrong}}}"
            ids = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=True)
            ids = ids["input_ids"] if hasattr(ids, "keys") else ids
            prompt_ids.append(list(ids))
            completion_ids.append(tokenizer.encode(text, add_special_tokens=False)
                                  + [tokenizer.eos_token_id])
        return {"prompt_ids": prompt_ids, "completion_ids": completion_ids, "logprobs": None}

    accuracy = AccuracyReward()
    trainer = _trainer(tiny_model_dir, tmp_path, _dataset(rows), [accuracy, format_reward], 32,
                       config={"log_completions": True}, rollout_func=rollout)
    trainer.train()

    assert calls == [4, 4]
    # TRL's completions table: its own columns and one compact column of ours
    import pyarrow.parquet as pq

    tables = sorted((tmp_path / "out" / "completions").glob("completions_*.parquet"))
    assert len(tables) == 2
    table = pq.read_table(tables[-1])
    assert table.column_names == ["step", "prompt", "completion", "general365_accuracy",
                                  "general365_format", "general365", "advantage"]
    assert sorted(v.split(":")[0] for v in table.column("general365").to_pylist()) == [
        "correct", "correct", "incorrect", "incorrect"]
    for log in _step_logs(trainer):
        assert log["rewards/general365_accuracy/mean"] == pytest.approx(0.5)
        assert log["general365/correct"] == pytest.approx(0.5)
        assert log["general365/incorrect"] == pytest.approx(0.5)
        assert log["rewards/general365_format/mean"] == pytest.approx(1.0)
    # row by row: each completion was graded against its own prompt's answer
    assert [r.reward for r in accuracy.last_results] == [1.0, 0.0, 1.0, 0.0]
    golds = {a for a, _ in gold.values()}
    assert {r.extracted for r in accuracy.last_results[::2]} == golds
