"""The shared JSON Lines reader: exact line numbers, blank lines skipped, errors collected."""

import json

import pytest

from general365.errors import DataError
from general365.jsonl import iter_jsonl, line, parse, text_values


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


# --- the fast path (orjson) and the strict decoder: one result -------------------------

_CHARS = ["a", " ", "\\", '"', "\n", "\t", "\r", "\b", "\f", "/", "\x01", "\x1f", "\x7f",
          "é", "中", "😀", "\u2028", "u", "0", "{", "}", "[", ",", ":"]


def _random_row(rng):
    def text(n):
        return "".join(rng.choice(_CHARS) for _ in range(n))
    row = {"id": text(rng.randint(1, 6)), "run": rng.randint(0, 9),
           "response": text(rng.randint(0, 60))}
    if rng.random() < 0.5:
        row["model"] = text(4)
    if rng.random() < 0.5:
        row["reasoning"] = text(rng.randint(0, 40))
    row.update({"answer": text(5), "sampling": {"t": 0.6, "stop": [None, True, 1e-7]},
                "categories": [text(3)], "n": rng.choice([0, -1, 2 ** 63, -2 ** 64, 1e19])})
    return row


def test_every_line_reads_as_the_strict_decoder_reads_it():
    # parse takes orjson's value where it can vouch for it (jsonl._quick) and asks the
    # strict decoder otherwise: for any line, broken at random, the same value (key order
    # included) or the same error as the strict decoder alone.
    import random

    from general365.jsonl import _strict

    def outcome(reader, text):
        try:
            value = reader(text, path="r.jsonl", line=7)
        except DataError as exc:
            return "error", str(exc), exc.field
        return "value", value, json.dumps(value)

    rng = random.Random(13)
    breaks = ["\\", '"', "\\u", "\\ud800", "\\udc00", "\x01", ",", "}", "{", "[" * 120,
              '"run": 1, ', '"id": "x", ', '"id": "\\u003a", ', '"a\\u003Ab": 1, ', "1" * 4400,
              "\\/", "é", "0", "\\u12", "\n", "NaN", "1e999", "123456789012345678901"]
    for _ in range(3000):
        text = json.dumps(_random_row(rng), ensure_ascii=rng.random() < 0.3)
        for _ in range(rng.randint(0, 2)):
            at = rng.randint(0, len(text))
            text = text[:at] + rng.choice(breaks) + text[at:]
        expected = outcome(lambda t, path, line: _strict(t, path, line), text)
        assert outcome(parse, text) == expected, text


@pytest.mark.parametrize("text", [
    '{"run": 0, "run": 1}',
    '{"run": 0, "x": {"k": 1, "k": 2}}',
    # a colon written as an escape would hide a repeated key from a count of colons
    '{"run": 0, "run": 1, "note": "\\u003a"}',
    '{"a\\u003ab": 0, "a:b": 1}',
])
def test_a_key_twice_is_refused_however_the_line_is_spelled(text, tmp_path):
    with pytest.raises(DataError, match="appears twice in one object"):
        parse(text)
    p = tmp_path / "a.jsonl"
    p.write_text(text + "\n")
    with pytest.raises(DataError, match=r"a\.jsonl:1: the key .* appears twice"):
        list(iter_jsonl(str(p)))


def test_integers_beyond_64_bits_are_read_exactly():
    # orjson reads them as floats; the strict decoder, as the ints they are.
    assert parse('{"a": 123456789012345678901234567890, "b": [-9223372036854775809]}') == {
        "a": 123456789012345678901234567890, "b": [-9223372036854775809]}
    assert type(parse("18446744073709551616")) is int


def test_every_row_is_written_one_way_and_reads_back_the_same():
    import random

    rng = random.Random(365)
    for _ in range(2000):
        row = _random_row(rng)
        for spelled in (json.dumps(row), json.dumps(row, ensure_ascii=False),
                        json.dumps(row, separators=(",", ":"))):
            value = parse(spelled)
            written = line(value)
            assert written.endswith(b"\n") and written.count(b"\n") == 1
            assert written == line(parse(written.decode("utf-8")))   # one spelling
            back = parse(written.decode("utf-8"))
            assert back == value and list(back) == list(value)


def test_what_orjson_cannot_write_is_still_written():
    assert line({"big": 2 ** 70, 1: "int key"}) == b'{"big":1180591620717411303424,"1":"int key"}\n'
    assert line({"text": "lone \ud800 surrogate"}) == '{"text":"lone ? surrogate"}\n'.encode()
    assert line({"x": float("nan")}) == b'{"x":null}\n'


def test_a_row_orjson_cannot_write_still_has_its_nan_written_as_null():
    # The fallback (json) wrote NaN and Infinity as such: a row with a wide integer, a lone
    # surrogate, a non-str key or a numpy float beside a NaN was one no strict reader reads.
    import numpy

    for row, written in [({"big": 2 ** 70, "x": float("nan")},
                          b'{"big":1180591620717411303424,"x":null}\n'),
                         ({"t": "\ud800", "x": [float("inf")]}, b'{"t":"?","x":[null]}\n'),
                         ({1: {"y": -float("inf")}}, b'{"1":{"y":null}}\n'),
                         ({"x": numpy.float64("nan"), "y": numpy.float64(0.5)},
                          b'{"x":null,"y":0.5}\n')]:
        assert line(row) == written
        parse(written.decode("utf-8"))


@pytest.mark.parametrize("value,field", [
    ("NaN", "score"), ("Infinity", "score"), ("-Infinity", "score"), ("1e999", "score"),
    ("-1e400", "score"), ("[1, {\"x\": NaN}]", "score")])
def test_nan_and_infinities_are_refused_with_their_field(tmp_path, value, field):
    # Not JSON (RFC 8259): json reads them and json.dumps writes them back as NaN/Infinity,
    # so a row carried on (into a graded file) would be one that strict readers refuse.
    p = tmp_path / "a.jsonl"
    p.write_text('{"a": 1}\n{"id": "x", "score": ' + value + "}\n")
    with pytest.raises(DataError) as exc:
        list(iter_jsonl(str(p)))
    assert exc.value.line == 2 and exc.value.field == field
    assert "NaN or an infinite number" in str(exc.value)
    with pytest.raises(DataError, match="NaN or an infinite number"):
        parse('{"id": "x", "run": 0, "response": "r", "s": ' + value + "}")


def test_finite_floats_still_read_exactly():
    assert parse('{"a": 1.5, "b": -0.0, "c": 1e308, "d": 5e-324, "e": [2.5e10]}') == {
        "a": 1.5, "b": -0.0, "c": 1e308, "d": 5e-324, "e": [2.5e10]}


@pytest.mark.parametrize("blank", ["\x0c", "\x0b", "\u00a0", "\u2028", "\x1c", "\x85", "\u3000"])
def test_a_line_of_other_whitespace_is_no_blank_line(tmp_path, blank):
    # JSON's whitespace is space, tab, CR and LF; str.strip() also takes these, and the line
    # was skipped as blank: a row lost without a word.
    p = tmp_path / "a.jsonl"
    p.write_text('{"a": 1}\n' + blank + '\n{"a": 2}\n \t\r\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"a\.jsonl:2: not valid JSON"):
        list(iter_jsonl(str(p)))
    with pytest.raises(DataError, match=r"a\.jsonl:2: not valid JSON"):
        text_values(p.read_text(encoding="utf-8"), str(p))


def test_a_byte_order_mark_is_named(tmp_path):
    # Invisible in an editor: "not valid JSON (Expecting value)" at line 1 left the user
    # looking for an error they could not see.
    p = tmp_path / "a.jsonl"
    p.write_bytes(b'\xef\xbb\xbf{"a": 1}\n')
    with pytest.raises(DataError, match=r"a\.jsonl:1: .*byte-order mark"):
        list(iter_jsonl(str(p)))
    with pytest.raises(DataError, match=r"a\.jsonl:1: .*byte-order mark"):
        text_values(p.read_text(encoding="utf-8"), str(p))

