"""JSON that Python's json module takes but a later step trips on (issue 13, items 8 and 12):
every verb that reads such a line refuses it with one line naming the file, the line and
the field, exit 2, and writes nothing.

- nested 1,000 (and 100,000) deep, in a field of no importance;
- an integer of more than 4,300 digits (CPython's limit on int from a string);
- a lone surrogate escape in `id` or `model` (UTF-8 cannot encode it: every later write
  crashed, after `dataset validate` had passed it);
- output_tokens of 10**400 (`grade` accepted it, then `report` crashed on the float);
- a key twice in one object (`{"run": 0, "run": 1}`): json keeps the last one silently.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from general365.cli import main
from general365.jsonl import MAX_DEPTH, iter_jsonl, parse
from general365.errors import DataError

PROBLEM = {"id": "p1", "question": "What is 2+3?", "answer": "5", "answer_type": "number"}
OTHER = {"id": "p2", "question": "What is 3+4?", "answer": "7", "answer_type": "number"}
RESPONSE = {"id": "p1", "run": 0, "response": "\\boxed{5}", "model": "m",
            "answer": "5", "answer_type": "number"}
GRADED = {"id": "p1", "run": 0, "response": "\\boxed{5}", "model": "m", "status": "correct",
          "correct": True, "method": "rule", "extracted": "5"}


def _with(row: dict, key: str, raw: str) -> str:
    """`row` as a JSON line whose `key` holds `raw` verbatim (text json.dumps cannot make)."""
    rest = {k: v for k, v in row.items() if k != key}
    return json.dumps(rest)[:-1] + f', "{key}": {raw}}}'


HOSTILE = {
    "deep-1000": (lambda row: _with(row, "meta", "[" * 1000 + "]" * 1000), "nested too deeply"),
    "deep-100000": (lambda row: _with(row, "meta", "[" * 100000 + "]" * 100000),
                    "nested too deeply"),
    "deep-in-a-field": (lambda row: _with(row, "meta", '{"a": ' * 150 + "1" + "}" * 150),
                        "nested too deeply"),
    "int-5000-digits": (lambda row: _with(row, "meta", "7" * 5000), "more than 4300 digits"),
    "surrogate-id": (lambda row: _with(row, "id", '"p1\\ud800"'), "lone surrogate"),
    "surrogate-key": (lambda row: _with(row, "meta", '{"k\\udfff": 1}'), "lone surrogate"),
    "duplicate-key": (lambda row: json.dumps(row)[:-1] + ', "id": "p2"}', "appears twice"),
}
FOR_RESPONSES = {
    **HOSTILE,
    "surrogate-model": (lambda row: _with(row, "model", '"m\\udc80"'), "lone surrogate"),
    "tokens-10^400": (lambda row: _with(row, "output_tokens", "1" + "0" * 400),
                      "out of range"),
    "run-twice": (lambda row: json.dumps(row)[:-1] + ', "run": 1}', "appears twice"),
}


def one_error(err: str, verb: str) -> str:
    assert "Traceback" not in err, err[-3000:]
    lines = [ln for ln in err.splitlines() if ln.startswith(f"general365 {verb}: error:")]
    assert len(lines) == 1, err[-3000:]
    return lines[0]


def write_lines(path: Path, *lines: str) -> Path:
    path.write_text("".join(ln + "\n" for ln in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("action", ["validate", "build"])
def test_dataset_verbs_refuse_it(tmp_path, capsys, kind, action):
    make, message = HOSTILE[kind]
    src = write_lines(tmp_path / "problems.jsonl", json.dumps(OTHER), make(PROBLEM))
    out = tmp_path / "hub"
    argv = ["dataset", action, "--source", str(src)] + (["--out", str(out)]
                                                        if action == "build" else [])
    code = main(argv)
    err = one_error(capsys.readouterr().err, "dataset")
    assert code == 2
    assert f"problems.jsonl:2" in err and message in err
    assert not out.exists()


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_json_array_dataset_is_checked_as_strictly(tmp_path, capsys, kind):
    make, message = HOSTILE[kind]
    src = tmp_path / "problems.json"
    src.write_text("[" + json.dumps(OTHER) + ",\n" + make(PROBLEM) + "]", encoding="utf-8")
    code = main(["dataset", "validate", "--source", str(src)])
    err = one_error(capsys.readouterr().err, "dataset")
    assert code == 2 and "problems.json" in err and message in err


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_generate_refuses_it_in_the_dataset_before_anything_is_written(tmp_path, capsys,
                                                                       kind):
    make, message = HOSTILE[kind]
    src = write_lines(tmp_path / "problems.jsonl", json.dumps(OTHER), make(PROBLEM))
    out = tmp_path / "run"
    code = main(["generate", "--backend", "openai", "--model", "m", "--base-url",
                 "http://127.0.0.1:9/v1", "--max-tokens", "8", "--dataset", str(src),
                 "--out", str(out)])
    err = one_error(capsys.readouterr().err, "generate")
    assert code == 2 and "problems.jsonl:2" in err and message in err
    assert not out.exists()


@pytest.mark.parametrize("kind", sorted(FOR_RESPONSES))
def test_generate_refuses_it_in_the_run_folder_it_resumes(tmp_path, capsys, kind):
    make, message = FOR_RESPONSES[kind]
    src = write_lines(tmp_path / "problems.jsonl", json.dumps(PROBLEM), json.dumps(OTHER))
    out = tmp_path / "run"
    out.mkdir()
    # A responses file generate wrote (its key fields), then the hostile line.
    keyed = {**RESPONSE, "settings_hash": "0" * 16, "prompt_hash": "1" * 16}
    before = write_lines(out / "responses.jsonl", make(keyed)).read_bytes()
    code = main(["generate", "--backend", "openai", "--model", "m", "--base-url",
                 "http://127.0.0.1:9/v1", "--max-tokens", "8", "--dataset", str(src),
                 "--out", str(out)])
    err = one_error(capsys.readouterr().err, "generate")
    assert code == 2 and "responses.jsonl:1" in err and message in err
    assert (out / "responses.jsonl").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["responses.jsonl"]


@pytest.mark.parametrize("kind", sorted(FOR_RESPONSES))
def test_grade_refuses_it(tmp_path, capsys, kind):
    make, message = FOR_RESPONSES[kind]
    other = {**RESPONSE, "id": "p2", "answer": "7", "response": "\\boxed{7}"}
    src = write_lines(tmp_path / "responses.jsonl", json.dumps(other), make(RESPONSE))
    out = tmp_path / "graded.jsonl"
    code = main(["grade", str(src), "--out", str(out), "--no-progress", "--workers", "1"])
    err = one_error(capsys.readouterr().err, "grade")
    assert code == 2 and "responses.jsonl:2" in err and message in err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("kind", sorted(FOR_RESPONSES))
def test_report_refuses_it(tmp_path, capsys, kind):
    make, message = FOR_RESPONSES[kind]
    other = {**GRADED, "id": "p2"}
    src = write_lines(tmp_path / "graded.jsonl", json.dumps(other), make(GRADED))
    out = tmp_path / "report"
    code = main(["report", str(src), "--out", str(out), "--published", "none"])
    err = one_error(capsys.readouterr().err, "report")
    assert code == 2 and "graded.jsonl:2" in err and message in err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("kind", ["deep-1000", "int-5000-digits", "surrogate-key",
                                  "duplicate-key"])
def test_report_refuses_it_in_the_run_json_beside_the_graded_file(tmp_path, capsys, kind):
    make, message = HOSTILE[kind]
    src = write_lines(tmp_path / "graded.jsonl", json.dumps(GRADED))
    (tmp_path / "run.json").write_text(make({"model": "m", "id": "run"}), encoding="utf-8")
    out = tmp_path / "report"
    code = main(["report", str(src), "--out", str(out), "--published", "none"])
    err = one_error(capsys.readouterr().err, "report")
    assert code == 2 and "run.json" in err and message in err
    assert not out.exists()


def test_generate_refuses_it_in_run_json(tmp_path, capsys):
    src = write_lines(tmp_path / "problems.jsonl", json.dumps(PROBLEM))
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.json").write_text('{"sessions": [], "sessions": []}')
    code = main(["generate", "--backend", "openai", "--model", "m", "--base-url",
                 "http://127.0.0.1:9/v1", "--max-tokens", "8", "--dataset", str(src),
                 "--out", str(out)])
    err = one_error(capsys.readouterr().err, "generate")
    assert code == 2 and "run.json" in err and "'sessions' appears twice" in err
    assert sorted(p.name for p in out.iterdir()) == ["run.json"]


def test_command_line_text_that_is_not_utf8_is_refused(tmp_path, capsys):
    # Bytes that are not UTF-8 arrive from argv as lone surrogates.
    src = write_lines(tmp_path / "problems.jsonl", json.dumps(PROBLEM))
    code = main(["generate", "--backend", "openai", "--model", "m\udcff", "--base-url",
                 "http://127.0.0.1:9/v1", "--max-tokens", "8", "--dataset", str(src),
                 "--out", str(tmp_path / "run")])
    err = one_error(capsys.readouterr().err, "generate")
    assert code == 2 and "--model is not valid UTF-8" in err
    assert not (tmp_path / "run").exists()


# --- the reader itself ----------------------------------------------------------------


def test_what_stays_accepted():
    # Surrogate *pairs* (what an ASCII-only writer emits for an emoji), deep-but-legal
    # nesting, long digit strings inside strings, and repeated keys in *different* objects.
    text = json.dumps({"id": "p\U0001F600", "a": {"k": 1}, "b": {"k": 2},
                       "n": "9" * 10000}, ensure_ascii=True)
    assert "\\ud83d\\ude00" in text
    assert parse(text)["id"] == "p\U0001F600"
    legal = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse(legal) is not None
    with pytest.raises(DataError, match="nested too deeply"):
        parse("[" + legal + "]")


def test_a_line_whose_first_read_is_recorded_is_reread_the_same(tmp_path):
    from general365.jsonl import FileChanged, Snapshot

    p = write_lines(tmp_path / "a.jsonl", '{"a": 1}', "", '{"a": 2}')
    snap = Snapshot()
    first = list(iter_jsonl(str(p), snapshot=snap))
    assert list(iter_jsonl(str(p), expect=snap)) == first == [(1, {"a": 1}), (3, {"a": 2})]
    assert not snap.grew
    with open(p, "a") as f:          # appended after the first read: not part of it
        f.write('{"a": 3}\n')
    assert list(iter_jsonl(str(p), expect=snap)) == first and snap.grew
    p.write_text('{"a": 1}\n\n{"a": 9}\n')   # the same length, one byte changed
    with pytest.raises(FileChanged, match=r"a\.jsonl:3: the file changed"):
        list(iter_jsonl(str(p), expect=snap))
    p.write_text('{"a": 1}\n')
    with pytest.raises(FileChanged, match=r"a\.jsonl:2: the file changed .*shorter"):
        list(iter_jsonl(str(p), expect=snap))


def test_a_last_line_without_newline_then_appended_to_is_the_same_line(tmp_path):
    from general365.jsonl import Snapshot

    p = tmp_path / "a.jsonl"
    p.write_text('{"a": 1}\n{"a": 2}')
    snap = Snapshot()
    first = list(iter_jsonl(str(p), snapshot=snap))
    with open(p, "a") as f:
        f.write('\n{"a": 3}\n')
    assert list(iter_jsonl(str(p), expect=snap)) == first


def test_a_linkage_csv_with_a_column_twice_is_refused(tmp_path, capsys):
    src = write_lines(tmp_path / "problems.jsonl", json.dumps(PROBLEM), json.dumps(OTHER))
    link = tmp_path / "linkage.csv"
    link.write_text("id,seed_id,variant,variant\np1,p1,0,0\np2,p1,1,0\n")
    code = main(["dataset", "validate", "--source", str(src), "--linkage", str(link)])
    err = one_error(capsys.readouterr().err, "dataset")
    assert code == 2 and "linkage.csv:1" in err and "'variant' appears twice" in err


def test_a_linkage_jsonl_with_a_key_twice_is_refused(tmp_path, capsys):
    src = write_lines(tmp_path / "problems.jsonl", json.dumps(PROBLEM), json.dumps(OTHER))
    link = write_lines(tmp_path / "linkage.jsonl",
                       '{"id": "p1", "seed_id": "p1", "variant": 0}',
                       '{"id": "p2", "seed_id": "p1", "variant": 1, "variant": 0}')
    code = main(["dataset", "validate", "--source", str(src), "--linkage", str(link)])
    err = one_error(capsys.readouterr().err, "dataset")
    assert code == 2 and "linkage.jsonl:2" in err and "'variant' appears twice" in err
