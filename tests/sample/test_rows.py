"""Row by row: each sample problem is well formed, says how to answer, and relates to its
seed as a variant should. (The answers themselves are checked in test_verifiers.py.)"""

from __future__ import annotations

import re

import pytest

from general365.data.sample import sample_files
from general365.schema import AnswerType
from sample.harness import parse_interval_gold, rows

INSTRUCTION = {
    AnswerType.NUMBER: "Put your final answer in \\boxed{}.",
    AnswerType.INTERVAL: " in \\boxed{} using interval notation.",
    AnswerType.SINGLE_CHOICE: "Select the one correct option and put its letter in \\boxed{}.",
    AnswerType.MULTIPLE_CHOICE: "Select all correct options and put their letters in \\boxed{}, "
                                "e.g. \\boxed{AC}.",
    AnswerType.TEXT: "State your final answer in \\boxed{}.",
}
IDS = sorted(rows())


@pytest.mark.parametrize("row_id", IDS)
def test_the_question_ends_with_its_answer_format(row_id):
    p = rows()[row_id]
    assert p.question.endswith(INSTRUCTION[p.answer_type]), p.question[-120:]


@pytest.mark.parametrize("row_id", [i for i in IDS if rows()[i].answer_type.is_choice])
def test_choice_golds_name_listed_options(row_id):
    p = rows()[row_id]
    listed = re.findall(r"(?m)^([A-H])\. ", p.question)
    assert listed == [chr(65 + i) for i in range(len(listed))] and len(listed) >= 4
    assert p.answer == "".join(sorted(set(p.answer))) and set(p.answer) <= set(listed)
    if p.answer_type is AnswerType.SINGLE_CHOICE:
        assert len(p.answer) == 1


@pytest.mark.parametrize("row_id", [i for i in IDS if rows()[i].answer_type is AnswerType.INTERVAL])
def test_an_interval_question_asks_for_a_set(row_id):
    # A union of intervals is not "the interval": every interval row asks for the set.
    p = rows()[row_id]
    assert "the interval" not in p.question
    assert re.search(r"Give the set (?:of all such \w+ )?in \\boxed\{\} using interval "
                     r"notation\.$", p.question)
    assert parse_interval_gold(p.answer)


def test_the_rounding_wording_is_the_float_round():
    for rid, p in rows().items():
        said = re.findall(r"rounded to (\d+) decimal places?", p.question)
        assert said == ([str(p.float_round)] if p.float_round else []), rid
        if p.float_round:
            assert re.fullmatch(r"-?\d+\.\d{%d}" % p.float_round, p.answer), rid
        if p.answer.startswith("\\frac"):
            assert "exact" in p.question or "fraction" in p.question, rid


def test_rule_golds_parse_with_math_verify():
    math_verify = pytest.importorskip("math_verify")
    for rid, p in rows().items():
        if p.answer_type.is_rule_graded:
            parsed = math_verify.parse("$" + p.answer + "$")
            assert parsed, f"{rid}: math-verify cannot parse {p.answer!r}"
            assert math_verify.verify(parsed, parsed), rid


def test_variants_relate_to_their_seeds():
    ps = rows()
    for rid, p in ps.items():
        seed = ps[p.seed_id]
        assert p.seed_id == rid[:9] and seed.variant == 0
        assert p.variant == (int(rid[-1]) if "-v" in rid else 0)
        assert p.answer_type == seed.answer_type, rid
        # A variant keeps the seed's challenge but its labels may differ (a variant can lose
        # a trap or gain one); it must share at least one.
        assert p.categories and set(p.categories) & set(seed.categories), rid
        assert len(p.reasoning) > (300 if p.variant == 0 else 80), f"{rid}: reasoning too short"
    texts = [p.question for p in ps.values()]
    assert len(set(texts)) == len(texts)


def premises(question: str) -> set[str]:
    """The sentences that set a problem up: not its options, its question or its format."""
    body = re.sub(r"(?ms)^[A-H]\. .*", "", question)
    sentences = [s.strip() for s in re.split(r"(?<=[.?!:])\s+|\n", body) if s.strip()]
    return {s for s in sentences if "\\boxed" not in s and not s.endswith("?")}


def test_no_variant_only_asks_another_question_about_its_seed():
    # A variant changes the story or the constraints, not just what is asked of the same
    # premises (nor just a number: those rows are near-copies).
    ps = rows()
    for rid, p in ps.items():
        if p.variant:
            assert premises(p.question) != premises(ps[p.seed_id].question), rid


def test_files_are_readable_utf8():
    for path in sample_files():
        raw = path.read_text(encoding="utf-8")
        assert "\\u00" not in raw and "\\u2" not in raw, path.name
