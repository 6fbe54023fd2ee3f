"""The Problem schema: what it accepts, what it refuses, and how the refusal reads."""

import pytest

from general365.errors import DataError
from general365.schema import AnswerType, Category, Problem, parse_float_round


def row(**changes):
    d = {"id": "p1", "question": "How many? Put your final answer in \\boxed{}.",
         "answer": "12", "answer_type": "number", "float_round": "0"}
    d.update(changes)
    return {k: v for k, v in d.items() if v is not _DROP}


_DROP = object()


def refused(d, **where) -> str:
    with pytest.raises(DataError) as info:
        Problem.from_dict(d, **where)
    return str(info.value)


# --- messages name the place, the id, the field and what was expected ------------------


def test_message_names_file_line_id_field_value_and_expectation():
    msg = refused(row(answer_type="essay"), path="data/x.jsonl", line=7)
    assert msg.startswith("data/x.jsonl:7, id 'p1', field 'answer_type': unknown AnswerType")
    assert "(got 'essay')" in msg
    assert "expected one of number, interval, single_choice, multiple_choice, text" in msg


@pytest.mark.parametrize("field", ["id", "question", "answer", "answer_type"])
def test_missing_required_field(field):
    msg = refused(row(**{field: _DROP}), path="f.jsonl", line=3)
    assert "f.jsonl:3" in msg and f"field {field!r}" in msg and "missing field" in msg


def test_empty_question_and_blank_id_are_refused():
    assert "expected a non-empty string" in refused(row(question="   "))
    assert "field 'id'" in refused(row(id=" "))


def test_wrong_types_are_refused_not_coerced():
    assert "expected a string" in refused(row(question=["a"]))
    assert "expected a string" in refused(row(reasoning=3))


def test_numeric_id_and_numeric_answer_become_strings():
    p = Problem.from_dict(row(id=17, answer=3.5, float_round=1))
    assert p.id == "17" and p.seed_id == "17" and p.answer == "3.5"


def test_not_an_object():
    assert "not a JSON object" in refused(["id", "p1"], path="f.jsonl", line=1)


# --- float_round ------------------------------------------------------------------------


@pytest.mark.parametrize("value,expected", [("2", 2), (2, 2), (" 3 ", 3), (2.0, 2), ("0", 0),
                                            (None, 0), ("", 0)])
def test_float_round_cast(value, expected):
    assert Problem.from_dict(row(float_round=value)).float_round == expected
    assert parse_float_round(value) == expected


@pytest.mark.parametrize("value", ["-1", "x", 1.5, True, False, -2, "2.5", 31, [2]])
def test_float_round_refused(value):
    msg = refused(row(float_round=value), path="f.jsonl", line=2)
    assert "id 'p1', field 'float_round': bad float_round" in msg
    assert "expected a" in msg and "integer" in msg


# --- categories -------------------------------------------------------------------------


def test_categories_are_typed_deduplicated_and_ordered():
    p = Problem.from_dict(row(categories=["Optimal Strategy", "Complex Constraints",
                                          "Optimal Strategy"]))
    assert p.categories == (Category.OPTIMAL_STRATEGY, Category.COMPLEX_CONSTRAINTS)


def test_categories_from_a_separated_string():
    p = Problem.from_dict(row(categories="Branching & Enumeration; Spatial & Temporal"))
    assert p.categories == (Category.BRANCHING_ENUMERATION, Category.SPATIAL_TEMPORAL)


def test_categories_may_be_empty():
    assert Problem.from_dict(row()).categories == ()
    assert Problem.from_dict(row(categories=[])).categories == ()


def test_unknown_category_is_refused_with_the_list():
    msg = refused(row(categories=["Complex Constraints", "Logic"]))
    assert "field 'categories'" in msg and "(got 'Logic')" in msg
    assert all(c.value in msg for c in Category)


def test_categories_of_the_wrong_type():
    assert "a list of category names" in refused(row(categories=5))


# --- seed / variant linkage ---------------------------------------------------------------


def test_a_seed_defaults_to_its_own_id_and_variant_zero():
    p = Problem.from_dict(row())
    assert (p.seed_id, p.variant, p.is_seed) == ("p1", 0, True)


def test_a_variant_names_its_seed():
    p = Problem.from_dict(row(id="p1-v2", seed_id="p1", variant=2))
    assert (p.seed_id, p.variant, p.is_seed) == ("p1", 2, False)


def test_a_seed_must_not_name_another_seed():
    msg = refused(row(seed_id="p9", variant=0))
    assert "a seed (variant 0) must have seed_id equal to its id" in msg and "'p1'" in msg


def test_a_variant_must_not_name_itself():
    msg = refused(row(seed_id="p1", variant=1))
    assert "a variant must name its seed" in msg and "field 'seed_id'" in msg


@pytest.mark.parametrize("value,expected", [(-1, "an integer >= 0"), (True, "an integer"),
                                            ("1", "an integer"), (1.0, "an integer")])
def test_bad_variant_numbers(value, expected):
    msg = refused(row(id="p1-v1", seed_id="p1", variant=value))
    assert "field 'variant'" in msg and f"expected {expected}" in msg


# --- the record round-trips ---------------------------------------------------------------


def test_to_dict_round_trip_and_extra_fields_kept():
    d = row(id="p1-v1", seed_id="p1", variant=1, answer_type="interval", answer="[1,2)",
            categories=["Semantic Interference"], reasoning="r", source="s")
    d["difficulty"] = "hard"
    p = Problem.from_dict(d)
    assert p.extra == {"difficulty": "hard"}
    assert p.answer_type is AnswerType.INTERVAL
    out = p.to_dict()
    assert "difficulty" not in out and out["float_round"] == 0
    assert out["categories"] == ["Semantic Interference"]
    assert Problem.from_dict(out) == p
    assert p.to_dict(with_extra=True)["difficulty"] == "hard"
