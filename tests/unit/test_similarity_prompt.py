"""The reasoning-similarity prompt: what the judge is shown for each kind of pair, how long
texts are cut, and the strict reader of the 0-5 score."""

from __future__ import annotations

import pytest

from general365.analysis import similarity_prompt as sp
from general365.analysis.similarity_prompt import (ANSWER, PROBLEM, REASONING, SimilarityPair,
                                                   Triplet, build_messages, clip, read_score)


def user(pair: SimilarityPair) -> str:
    messages = build_messages(pair)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == sp.SYSTEM_PROMPT
    return messages[1]["content"]


def test_both_reasonings_give_the_full_triplets():
    p = SimilarityPair(Triplet("How many legs?", "Four each, two animals: 8.", "8"),
                       Triplet("How many wheels?", "Two bikes, two each: 4.", "4"))
    assert p.basis == REASONING
    assert user(p) == ("Problem A:\nHow many legs?\n\nReasoning A:\nFour each, two animals: "
                       "8.\n\nFinal answer A:\n8\n\nProblem B:\nHow many wheels?\n\n"
                       "Reasoning B:\nTwo bikes, two each: 4.\n\nFinal answer B:\n4")


def test_without_reasoning_on_either_side_problem_and_answer_and_the_prompt_says_so():
    p = SimilarityPair(Triplet("How many legs?", "Four each: 8.", "8"),
                       Triplet("How many wheels?", "  ", "4"))
    assert p.basis == ANSWER
    text = user(p)
    assert "Reasoning" not in text and "Four each" not in text
    assert text.endswith("Final answer B:\n4\n\n" + sp.NO_REASONING)


def test_reasonings_without_an_answer_say_it_is_not_given():
    p = SimilarityPair(Triplet("How many legs?", "Four each: 8.", ""),
                       Triplet("How many wheels?", "Two each: 4.", "4"))
    assert p.basis == REASONING
    assert "Final answer A:\n(not given)\n\nProblem B:" in user(p)


def test_without_answers_the_problems_alone():
    p = SimilarityPair(Triplet("How many legs?"), Triplet("How many wheels?", "", "4"))
    assert p.basis == PROBLEM
    assert user(p) == "Problem A:\nHow many legs?\n\nProblem B:\nHow many wheels?\n\n" \
                      + sp.NO_ANSWER


def test_long_texts_keep_their_beginning_and_end():
    text = "start " + "x" * 10_000 + " the end"
    cut = clip(text, 600)
    assert cut.startswith("start ") and cut.endswith(" the end")
    assert "[... 9414 characters cut ...]" in cut
    assert len(cut) - len(sp.CUT_MARK.format(n=9414)) == 600
    assert clip("  short  ", 600) == "short"
    long_reasoning = SimilarityPair(Triplet("Q", "r" * 50_000, "1"), Triplet("Q2", "s", "2"))
    assert len(user(long_reasoning)) < sp.REASONING_CHARS + 200


def test_the_version_is_numbered_and_hashes_the_prompt():
    number, digest = sp.VERSION.split("-")
    assert number == "1" and len(digest) == 12 and int(digest, 16) >= 0


@pytest.mark.parametrize("reply, score", [
    ("0", 0), ("5", 5), (" 3\n", 3), ("```\n4\n```", 4), ('{"score": 2}', 2),
    ('```json\n{"score": 1}\n```', 1), ("<think>They share a case split.</think>\n2", 2),
    ("<think>maybe 5</think>1", 1),
])
def test_a_score_is_read(reply, score):
    parsed = read_score(reply)
    assert parsed.ok and parsed.value == score and parsed.problem is None


@pytest.mark.parametrize("reply, problem", [
    (None, "empty reply"), ("   ", "empty reply"), ("6", "score 6 is not in 0-5"),
    ("35", "not a single digit"), ("3.", "not a single digit"), ("Score: 3", "not a single"),
    ("I would say 3", "not a single digit"), ('{"score": 7}', "score 7 is not in 0-5"),
    ('{"score": true}', "'score' is bool"), ('{"score": "3"}', "'score' is str"),
    ('{"score": 2.0}', "'score' is float"), ('{"score": 1, "score": 5}', "duplicated key"),
    ('{"score": 1, "why": "x"}', "other than"), ('{"score": 1} 5', "neither a digit"),
    ("[3]", "not a single digit"), ("<think>it is 4", "reasoning never closed"),
    ("<think>a</think>4<think>b", "reasoning never closed"),
    ("<think>a</think>four", "after the reasoning: not a single digit"),
    ('{"score": 1, "note": "</think>5"}', "other than"),
])
def test_anything_else_is_refused_with_the_reason(reply, problem):
    parsed = read_score(reply)
    assert not parsed.ok and parsed.value is None and problem in parsed.problem


def test_the_documented_prompt_is_the_one_sent():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "analysis.md").read_text()
    assert f"```text\n{sp.SYSTEM_PROMPT}\n```" in doc
    assert f"`{sp.VERSION}`" in doc
    assert sp.NO_REASONING in doc and sp.NO_ANSWER in doc
