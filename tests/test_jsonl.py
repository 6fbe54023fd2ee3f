"""The shared JSON Lines reader: exact line numbers, blank lines skipped, errors collected."""

import pytest

from general365.errors import DataError
from general365.jsonl import iter_jsonl


def test_rows_with_their_line_numbers(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(b'{"a": 1}\n\n  \n{"b": "x\xe2\x80\xa8y"}\n[1, 2]')   # U+2028 inside a string
    assert list(iter_jsonl(str(p))) == [(1, {"a": 1}), (4, {"b": "x\u2028y"}), (5, [1, 2])]


def test_a_bad_byte_is_blamed_on_its_own_line_even_far_into_the_file(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(b'{"a": 1}\n' * 5000 + b'{"a": "\xff"}\n')
    with pytest.raises(DataError) as exc:
        list(iter_jsonl(str(p)))
    assert exc.value.line == 5001 and "UTF-8" in str(exc.value)


def test_invalid_json_names_file_and_line(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_text('{"a": 1}\n{"a": \n')
    with pytest.raises(DataError, match=r"a\.jsonl:2: not valid JSON"):
        list(iter_jsonl(str(p)))


def test_errors_collected_when_asked(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(b'{"a": 1}\nnot json\n{"a": 3}\n\xff\n')
    errors = []
    assert [n for n, _ in iter_jsonl(str(p), errors=errors)] == [1, 3]
    assert [e.line for e in errors] == [2, 4]
