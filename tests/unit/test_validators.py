"""general365.validators: the shared value checks and the one strict-JSON decoder."""

from __future__ import annotations

import math

import pytest

from general365.errors import OptionError
from general365.validators import (MAX_DEPTH, StrictJSONError, is_finite, is_int, is_number,
                                   loads, one_object, option_int, option_number, problem_in)


@pytest.mark.parametrize("value, int_, number, finite", [
    (1, True, True, True), (0, True, True, True), (True, False, False, False),
    (False, False, False, False), (1.5, False, True, True), (math.nan, False, True, False),
    (math.inf, False, True, False), ("1", False, False, False), (None, False, False, False),
    (10**400, True, True, True),
])
def test_value_kinds(value, int_, number, finite):
    assert (is_int(value), is_number(value), is_finite(value)) == (int_, number, finite)


def test_option_int_bounds_and_messages():
    assert option_int("runs", 3) == 3
    with pytest.raises(OptionError) as e:
        option_int("runs", True)
    assert str(e.value) == "runs must be an integer >= 1 (got True)"
    with pytest.raises(OptionError) as e:
        option_int("float_round", 31, minimum=0, maximum=30)
    assert str(e.value) == "float_round must be an integer from 0 to 30 (got 31)"
    with pytest.raises(OptionError) as e:
        option_int("n", 0, text="must be at least 1")
    assert e.value.option == "n" and str(e.value) == "n must be at least 1"


def test_option_number_ends():
    assert option_number("p", 1, low=0, high=1) == 1
    for bad in (0, math.nan, math.inf, True, "0.5"):
        with pytest.raises(OptionError):
            option_number("p", bad, low=0, high=1, low_open=True)
    with pytest.raises(OptionError):
        option_number("p", 1, low=0, high=1, high_open=True)


@pytest.mark.parametrize("text, said", [
    ('{"a": 1, "a": 2}', "duplicated key 'a'"),
    ('{"a": NaN}', "NaN or an infinity"),
    ('{"a": [1e999]}', "NaN or an infinity"),
    ('-Infinity', "NaN or an infinity"),
    ('{"a": "\\ud800"}', "lone surrogate"),
    ('{"\\udfff": 1}', "lone surrogate"),
    ('[' * (MAX_DEPTH + 1) + ']' * (MAX_DEPTH + 1), "nested deeper"),
    ('[' * 100_000, "nested deeper"),
    ('{"a": 1', "not JSON"),
    ('1' * 5000, "not JSON"),
])
def test_loads_refuses(text, said):
    with pytest.raises(StrictJSONError) as e:
        loads(text)
    assert said in str(e.value)


def test_loads_accepts_strict_json_and_names_the_field():
    assert loads('{"a": [1, 2.5, {"b": "é"}], "c": null}') == {"a": [1, 2.5, {"b": "é"}],
                                                              "c": None}
    assert loads('[' * MAX_DEPTH + ']' * MAX_DEPTH) is not None
    with pytest.raises(StrictJSONError, match="field 'x'"):
        loads('{"ok": 1, "x": {"y": [NaN]}}')
    assert problem_in({"x": {"y": ["\ud800"]}}) == ("surrogate", "x")


@pytest.mark.parametrize("text, obj, why", [
    ('{"accuracy": true}', {"accuracy": True}, None),
    ('  ```json\n{"accuracy": false}\n```  ', {"accuracy": False}, None),
    ('', None, "empty reply"),
    ('```\n\n```', None, "empty reply"),
    ('[1]', None, "a JSON list, not an object"),
    ('{"a": 1} {"a": 2}', None, "text after the JSON object"),
    ('Sure: {"a": 1}', None, "not a JSON object"),
    ('{"a": 1, "a": 2}', None, "a JSON object with a duplicated key"),
    ('{"a": NaN}', None, "NaN or an infinity, which JSON does not have"),
    ('x ```json\n{"a": 1}\n```', None, "not a JSON object"),
])
def test_one_object(text, obj, why):
    assert one_object(text) == (obj, why)
