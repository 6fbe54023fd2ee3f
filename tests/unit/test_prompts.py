"""The query prompt: the question verbatim as the user message, an optional system prompt."""

from __future__ import annotations

import json
import pickle

import pytest

from general365.errors import DataError
from general365.prompts import PROMPT_VERSION, build_messages, prompt_provenance
from general365.schema import AnswerType, Problem

QUESTION = ("Three friends split 7 apples so that each gets a whole number and nobody gets "
            "more than 3. In how many ways? Please put your final answer within \\boxed{}.")


def problem(question=QUESTION, pid="g365-001"):
    return Problem(id=pid, question=question, answer="6", answer_type=AnswerType.NUMBER)


def test_the_question_is_the_user_message_unchanged():
    messages = build_messages(problem())
    assert messages == ({"role": "user", "content": QUESTION},)
    # The release's own format instruction is not repeated by a template.
    assert messages[0]["content"].count("\\boxed{}") == 1


def test_mapping_rows_work_like_problems():
    assert build_messages({"id": "x", "question": QUESTION}) == build_messages(problem())


def test_system_prompt_comes_first():
    messages = build_messages(problem(), system_prompt="You are a careful solver.")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == "You are a careful solver."
    assert messages[1]["content"] == QUESTION


def test_messages_are_immutable_and_hashable():
    messages = build_messages(problem(), system_prompt="Be brief.")
    assert isinstance(messages, tuple)
    for change in (lambda m: m.__setitem__("content", "changed"), lambda m: m.update(role="x"),
                   lambda m: m.__delitem__("role"), lambda m: m.pop("role"),
                   lambda m: m.clear(), lambda m: m.setdefault("name", "x")):
        with pytest.raises(TypeError, match="cannot be changed"):
            change(messages[1])
    assert messages[1] == {"role": "user", "content": QUESTION}     # untouched
    # hashed as they are (no converted copy): equal prompts hash equal and key a dict
    again = build_messages(problem(), system_prompt="Be brief.")
    assert again is not messages and hash(again) == hash(messages)
    assert {messages: "cached"}[again] == "cached"
    # still what a chat API, a template or a worker process takes
    assert json.loads(json.dumps(messages)) == [{"role": "system", "content": "Be brief."},
                                                {"role": "user", "content": QUESTION}]
    assert pickle.loads(pickle.dumps(messages)) == messages


def test_whitespace_and_unicode_are_kept_verbatim():
    q = "  Ölçü: 3×4 = ?\n\n(A) 12\t(B) 7  "
    assert build_messages(problem(q))[0]["content"] == q


@pytest.mark.parametrize("bad", ["", "   \n", None, 42])
def test_a_missing_question_names_the_id_and_field(bad):
    with pytest.raises(DataError) as err:
        build_messages({"id": "g365-009", "question": bad})
    text = str(err.value)
    assert "g365-009" in text and "'question'" in text and "non-empty string" in text


def test_an_empty_system_prompt_is_refused():
    with pytest.raises(DataError, match="system_prompt"):
        build_messages(problem(), system_prompt="  ")


def test_provenance_names_the_template_version():
    assert prompt_provenance() == {"version": PROMPT_VERSION, "system_prompt": None}
    assert prompt_provenance("S")["system_prompt"] == "S"
