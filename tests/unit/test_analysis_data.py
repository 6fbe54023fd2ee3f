"""The sets `general365 analyze` reads (General365 sources and any set of questions), and
their statistics (Figure 3)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import general365
from general365.analysis.datasets import (GENERAL365, QUESTIONS, load_set, load_sets,
                                          parse_spec, set_stats)
from general365.errors import DataError, DataErrors, UserError
from support.templated import templated_rows, write_templated


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


# --- names and sources --------------------------------------------------------------------


def test_parse_spec_names(tmp_path):
    f = tmp_path / "bbh_subset.jsonl"
    f.write_text('{"input": "q"}\n')
    assert parse_spec("sample") == ("sample", "sample")
    assert parse_spec(str(f)) == ("bbh_subset", str(f))
    assert parse_spec(f"mine={f}") == ("mine", str(f))
    assert parse_spec("org/some-set") == ("some-set", "org/some-set")
    # a path that exists is never split at '='
    odd = tmp_path / "a=b.jsonl"
    odd.write_text('{"input": "q"}\n')
    assert parse_spec(str(odd)) == ("a=b", str(odd))
    for bad in ("", "=x", "x="):
        with pytest.raises(UserError):
            parse_spec(bad)


def test_sample_is_read_as_general365():
    s = load_set("sample")
    problems = general365.load_problems("sample")
    assert s.kind == GENERAL365 and s.name == "sample"
    assert [i.id for i in s.items] == [p.id for p in problems]
    assert s.has_families
    first = s.items[0]
    assert first.seed_id == problems[0].seed_id and first.answer == problems[0].answer
    assert first.categories == tuple(c.value for c in problems[0].categories)


def test_general365_format_file_keeps_families(tmp_path):
    path = write_templated(tmp_path / "tpl.jsonl", families=5, variants=2)
    s = load_set(path)
    assert s.kind == GENERAL365 and s.name == "tpl" and len(s.items) == 15
    assert sum(i.is_variant for i in s.items) == 10


@pytest.mark.parametrize("column", ["question", "input", "prompt"])
def test_plain_jsonl_question_column_is_found(tmp_path, column):
    rows = [{column: f"What is {i} plus {i}?", "target": str(2 * i)} for i in range(4)]
    s = load_set(f"bench={_jsonl(tmp_path / 'b.jsonl', rows)}")
    assert s.kind == QUESTIONS and s.name == "bench" and s.question_field == column
    assert [i.question for i in s.items] == [r[column] for r in rows]
    assert [i.answer for i in s.items] == ["0", "2", "4", "6"]
    assert [i.id for i in s.items] == ["1", "2", "3", "4"]          # line numbers
    assert not s.has_families and f"question column: {column!r}" in s.notes


def test_named_column_csv_json_parquet(tmp_path):
    csv_path = tmp_path / "q.csv"
    csv_path.write_text('id,text,gold\na1,"First, question\nover two lines",x\na2,Second,y\n',
                        encoding="utf-8")
    s = load_set(str(csv_path), question_field="text")
    assert [(i.id, i.question) for i in s.items] == [("a1", "First, question\nover two lines"),
                                                      ("a2", "Second")]
    # a CSV without a question column names what it has
    with pytest.raises(UserError, match="no question column.*the first row has: id, text, gold"):
        load_set(str(csv_path))

    j = tmp_path / "q.json"
    j.write_text(json.dumps({"examples": [{"input": "one?"}, {"input": "two?"}]}))
    assert [i.question for i in load_set(str(j)).items] == ["one?", "two?"]

    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"problem": ["p1?", "p2?", "p3?"], "idx": [7, 8, 9]}),
                   tmp_path / "q.parquet")
    s = load_set(str(tmp_path / "q.parquet"))
    assert [(i.id, i.question) for i in s.items] == [("7", "p1?"), ("8", "p2?"), ("9", "p3?")]

    # --question-field reads a General365-format file as a plain set of questions
    s = load_set("sample", question_field="question")
    assert s.kind == QUESTIONS and len(s.items) == len(general365.load_problems("sample")) and not s.has_families


def test_bad_rows_are_named(tmp_path):
    path = _jsonl(tmp_path / "bad.jsonl", [{"question": "ok?", "id": "a"},
                                           {"question": "  ", "id": "b"},
                                           {"question": "again?", "id": "a"}])
    with pytest.raises(DataErrors) as info:
        load_set(path)
    text = str(info.value)
    assert f"{path}:2, id 'b', field 'question': missing or empty question" in text
    assert f"{path}:3, id 'a', field 'id': duplicated id" in text and "first at line 1" in text

    not_obj = tmp_path / "list.jsonl"
    not_obj.write_text('[1, 2]\n')
    with pytest.raises(DataError, match="list.jsonl:1: not an object"):
        load_set(str(not_obj))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(UserError, match="no rows"):
        load_set(str(empty), question_field="question")
    with pytest.raises(UserError, match="no such file or folder"):
        load_set(str(tmp_path / "missing.jsonl"))
    with pytest.raises(UserError, match="no question column \\(looked for body"):
        load_set(path, question_field="body")


def test_load_sets_checks_names_and_sizes(tmp_path):
    one = _jsonl(tmp_path / "one.jsonl", [{"question": "alone?"}])
    with pytest.raises(UserError, match="1 question\\(s\\); the analysis needs at least 2"):
        load_sets([one])
    two = _jsonl(tmp_path / "two.jsonl", [{"question": "a?"}, {"question": "b?"}])
    with pytest.raises(UserError, match="two datasets named 'x'"):
        load_sets([f"x={two}", f"x={two}"])
    assert [s.name for s in load_sets([two, f"y={two}"])] == ["two", "y"]


# --- statistics ------------------------------------------------------------------------------


def test_statistics_of_the_sample_count_seed_problems():
    problems = general365.load_problems("sample")
    seeds = [p for p in problems if p.variant == 0]
    st = set_stats(load_set("sample"))
    assert (st.n, st.seeds, st.variants, st.families) == (
        len(problems), len(seeds), len(problems) - len(seeds), len(seeds))
    expected = Counter(c.value for p in seeds for c in p.categories)
    assert {k: v for k, v in st.categories.items() if v} == dict(expected)
    assert list(st.categories)[:2] == ["Complex Constraints", "Branching & Enumeration"]
    assert st.labels_per_problem == dict(sorted(Counter(len(p.categories) for p in seeds).items()))
    assert st.multi_label_share == pytest.approx(
        sum(len(p.categories) >= 2 for p in seeds) / len(seeds))
    assert st.answer_types == dict(Counter(p.answer_type.value for p in problems).most_common())
    words = sorted(len(p.question.split()) for p in problems)
    summary = st.lengths.summary()["words"]
    assert summary["min"] == words[0] and summary["max"] == words[-1]
    assert summary["mean"] == pytest.approx(sum(words) / len(problems))


def test_statistics_of_a_plain_set_have_no_categories(tmp_path):
    rows = [{"input": "x " * (i + 1)} for i in range(5)]
    st = set_stats(load_set(_jsonl(tmp_path / "p.jsonl", rows)))
    d = st.to_dict()
    assert d["categories"] is None and d["labels_per_problem"] is None
    assert d["multi_label_share"] is None and d["answer_types"] is None
    assert (st.seeds, st.variants, st.families) == (5, 0, 5)
    assert d["question_length"]["words"]["p50"] == 3.0


def test_templated_rows_are_what_they_claim():
    rows = templated_rows(families=8, variants=3, seed=3)
    assert len(rows) == 32 and len({r["id"] for r in rows}) == 32
    # every question is one of the templates with names and numbers swapped
    from general365.analysis.skeleton import skeletons

    assert len(set(skeletons([r["question"] for r in rows]))) == 4
