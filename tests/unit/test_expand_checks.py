"""The expansion's reply reader and checks, one rule at a time: what counts as the one JSON
object, each flag's edge cases, and the documented flag list."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from general365 import AnswerType, Category, Problem
from general365.expand.candidates import ExpansionCandidate
from general365.expand.checks import (FLAGS, check_one, has_format_instruction,
                                            stated_rounding)
from general365.expand.prompt import DIRECTIONS, FIELDS, expansion_messages
from general365.expand.prompt import parse_reply

DOCS = Path(__file__).resolve().parents[2] / "docs" / "expand.md"
OBJ = {"question": "Q? Put your final answer in \\boxed{}.", "reasoning": "r", "answer": "12",
       "answer_type": "number", "float_round": 0, "change": "c"}
SEED = Problem(id="s", question="How many? Put your final answer in \\boxed{}.", answer="7",
               answer_type=AnswerType.NUMBER, reasoning="count")


@pytest.mark.parametrize("text, how", [
    (json.dumps(OBJ), "json"),
    ("<think>{not json}</think>\n" + json.dumps(OBJ), "json"),
    ("Sure.\n```json\n" + json.dumps(OBJ) + "\n```\nDone.", "fence"),
    ("```\n{\"draft\": 1}\n```\nBetter:\n```json\n" + json.dumps(OBJ) + "\n```", "fence"),
    ("The variant is " + json.dumps(OBJ) + " as asked.", "embedded"),
])
def test_one_json_object_is_found(text, how):
    r = parse_reply(text)
    assert r.error is None and r.how == how
    assert r.fields == OBJ or (how == "fence" and r.fields == OBJ)


@pytest.mark.parametrize("text, finish, reason", [
    ("", "stop", "the reply is empty"),
    ("I cannot do that.", "stop", "no JSON object in the reply"),
    ('{"question": "Q", "answer": ', "length", "broken JSON (Expecting value at line 1 column 28)"
                                                " (the reply was cut off at its token limit)"),
    ("```json\n[1, 2]\n```", "stop", "the code block is not a JSON object"),
    ("<think>still thinking", "length", "never left its reasoning block"),
])
def test_unparseable_replies_say_why(text, finish, reason):
    r = parse_reply(text, finish_reason=finish)
    assert r.fields is None and reason in r.error


def checked(**fields) -> list[str]:
    c = ExpansionCandidate("s", 0, {**OBJ, **fields})
    check_one(c, SEED)
    return c.flag_names


def test_a_good_candidate_has_no_flags_and_types_are_normalised():
    c = ExpansionCandidate("s", 0, {**OBJ, "answer": 12, "float_round": "0",
                                    "answer_type": " Number "})
    check_one(c, SEED)
    assert c.flags == []
    assert (c.get("answer"), c.get("float_round"), c.get("answer_type")) == ("12", 0, "number")


@pytest.mark.parametrize("fields, flags", [
    ({"question": ""}, ["schema"]),
    ({"answer_type": "numeric"}, ["schema"]),
    ({"float_round": -1}, ["schema"]),
    ({"float_round": True}, ["schema"]),
    ({"change": None}, ["schema"]),
    ({"answer": "many"}, ["gold_unparseable"]),
    ({"answer": "[1, 2", "answer_type": "interval"}, ["gold_unparseable"]),
    ({"answer_type": "single_choice", "answer": "E",   # (and not a number seed's type)
      "question": "Pick.\nA. x\nB. y\nPut the letter in \\boxed{}."},
     ["gold_unparseable", "answer_type_changed"]),
    ({"answer_type": "single_choice", "answer": "AB",
      "question": "Pick.\nA. x\nB. y\nPut the letter in \\boxed{}."},
     ["gold_unparseable", "answer_type_changed"]),
    ({"answer_type": "multiple_choice", "answer": "AB",
      "question": "Pick.\nA. x\nB. y\nPut the letters in \\boxed{}."}, ["answer_type_changed"]),
    ({"answer_type": "multiple_choice", "answer": "AC",   # issue 18: inline options count
      "question": "Pick all that fit: (A) 12 (B) 17 (C) 19. Put the letters in \\boxed{}."},
     ["answer_type_changed"]),
    ({"answer_type": "multiple_choice", "answer": "AD",
      "question": "Pick all that fit: (A) 12 (B) 17 (C) 19. Put the letters in \\boxed{}."},
     ["gold_unparseable", "answer_type_changed"]),
    ({"answer_type": "text", "answer": "Mia"}, ["answer_type_changed"]),
    ({"answer_type": "interval", "answer": "[1,2]"}, []),   # number and interval go together
    ({"question": "Give it to 2 decimal places. Put your final answer in \\boxed{}.",
      "answer": "1.25"}, ["float_round_wording"]),
    ({"question": "Give it to two decimal places. Put your final answer in \\boxed{}.",
      "answer": "1.25", "float_round": 2}, []),
    ({"question": "Round to the nearest hundredth. Put your final answer in \\boxed{}.",
      "answer": "1.25", "float_round": 2}, []),
    ({"float_round": 3, "answer": "1.250"}, ["float_round_wording"]),
    ({"question": "How many? Answer below."}, ["no_format_instruction"]),
    ({"question": "There are 12 eggs and 3 boxes. Put your final answer in \\boxed{}."},
     ["leaked_answer"]),
    ({"question": "There are 12.0 eggs. Put your final answer in \\boxed{}."},
     ["leaked_answer"]),
    ({"question": "There are 112 eggs and 1.12 kg. Put your final answer in \\boxed{}."}, []),
    ({"question": "Pick 7 of them. Put your final answer in \\boxed{}.", "answer": "7"}, []),
    ({"answer_type": "text", "answer": "4,2,3", "question": "Order 4,2,3 them. Put your final "
      "answer in \\boxed{}."}, ["answer_type_changed", "leaked_answer"]),
])
def test_each_flag(fields, flags):
    assert sorted(checked(**fields)) == sorted(flags)


def test_format_instruction_must_be_at_the_end():
    assert has_format_instruction("Q? Put your final answer in \\boxed{}.")
    assert has_format_instruction("Q?\nA. 1\nB. 2\nSelect one and put its letter in \\boxed{}.")
    late = "Put your final answer in \\boxed{}. " + "More story. " * 30 + "How many?"
    assert not has_format_instruction(late)
    assert stated_rounding("to 4 decimal places, or to the nearest whole number") == {4, 0}


def test_the_prompt_states_the_papers_rules():
    seed = Problem(id="s", question="Q", answer="[1,2]", answer_type=AnswerType.INTERVAL,
                   reasoning="R", categories=(Category.SPATIAL_TEMPORAL,))
    texts = [expansion_messages(seed, k)[0]["content"] for k in range(len(DIRECTIONS) + 1)]
    text = texts[0]
    for rule in ("not just the numbers", "reasoning challenge", "K-12", "output-format "
                 "instruction", "canonical answer", "Spatial & Temporal", "interval notation"):
        assert rule in text, rule
    assert all(f'"{f}"' in text for f in FIELDS)
    # each candidate gets a direction; they cycle
    assert len({t for t in texts}) == len(DIRECTIONS) and texts[0] == texts[-1]


def test_docs_list_every_flag():
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", DOCS.read_text(), re.M))
    assert set(FLAGS) <= documented
