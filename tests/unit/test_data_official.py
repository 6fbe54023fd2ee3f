"""The importer for the official release's format: reading, linkage, validation."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from general365.data import official
from general365.data.linkage import normalize_categories, split_id
from general365.errors import DataErrors, UserError
from general365.schema import AnswerType, Category

# Rows in the official field set (`float_round` a string), two seeds with three variants
# each under the `<seed>-v<k>` id pattern, every answer type, and one extra field.
OFFICIAL = [
    {"id": "a", "question": "Q a \\boxed{}", "answer": "12", "answer_type": "number",
     "float_round": "0", "difficulty": "hard"},
    {"id": "a-v1", "question": "Q a1", "answer": "2.67", "answer_type": "number",
     "float_round": "2", "difficulty": "hard"},
    {"id": "a-v2", "question": "Q a2", "answer": "[1,2)", "answer_type": "interval",
     "float_round": "0", "difficulty": "easy"},
    {"id": "a-v3", "question": "Q a3", "answer": "\\frac{15}{4}", "answer_type": "number",
     "float_round": "0", "difficulty": "easy"},
    {"id": "b", "question": "Q b", "answer": "BD", "answer_type": "multiple_choice",
     "float_round": "0", "difficulty": "hard"},
    {"id": "b-v1", "question": "Q b1", "answer": "C", "answer_type": "single_choice",
     "float_round": "0", "difficulty": "hard"},
    {"id": "b-v2", "question": "Q b2", "answer": "the red box", "answer_type": "text",
     "float_round": "0", "difficulty": "hard"},
    {"id": "b-v3", "question": "Q b3", "answer": "(-\\infty,3)\\cup(4,+\\infty)",
     "answer_type": "interval", "float_round": "0", "difficulty": "hard"},
]


def official_rows():
    return [dict(r) for r in OFFICIAL]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_parquet(path, rows):
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def bad_rows(exc_info) -> list[str]:
    lines = str(exc_info.value).splitlines()
    assert lines[0] == f"{len(lines) - 1} bad row(s):"
    return lines[1:]


# --- reading each kind of source ------------------------------------------------------


@pytest.mark.parametrize("kind", ["jsonl", "parquet", "json-array", "json-data", "json-lines"])
def test_each_file_kind_imports_the_same_problems(tmp_path, kind):
    rows = official_rows()
    if kind == "jsonl":
        path = write_jsonl(tmp_path / "g.jsonl", rows)
    elif kind == "parquet":
        path = write_parquet(tmp_path / "g.parquet", rows)
    elif kind == "json-array":
        path = tmp_path / "g.json"
        path.write_text(json.dumps(rows))
    elif kind == "json-data":
        path = tmp_path / "g.json"
        path.write_text(json.dumps({"data": rows}))
    else:
        path = write_jsonl(tmp_path / "g.json", rows)
    result = official.import_source(str(path))
    assert [p.id for p in result.problems] == [r["id"] for r in rows]
    a1 = result.problems[1]
    assert a1.float_round == 2 and isinstance(a1.float_round, int)
    assert (a1.seed_id, a1.variant) == ("a", 1)
    assert a1.extra == {"difficulty": "hard"}
    assert result.linkage == {"none": 2, "id-pattern": 6}


def test_a_folder_of_files_is_read_in_sorted_order(tmp_path):
    write_jsonl(tmp_path / "2.jsonl", official_rows()[4:])
    write_parquet(tmp_path / "1.parquet", official_rows()[:4])
    (tmp_path / ".hidden").mkdir()
    write_jsonl(tmp_path / ".hidden" / "x.jsonl", [{"id": "zzz"}])
    result = official.import_source(str(tmp_path))
    assert [p.id for p in result.problems] == [r["id"] for r in OFFICIAL]


def test_integer_ids_from_parquet_become_strings(tmp_path):
    rows = [dict(official_rows()[0], id=1), dict(official_rows()[4], id=2)]
    result = official.import_source(str(write_parquet(tmp_path / "g.parquet", rows)))
    assert [p.id for p in result.problems] == ["1", "2"]


def test_missing_source_and_unsupported_files(tmp_path):
    with pytest.raises(UserError, match="no such file or folder, and not a Hub id"):
        official.import_source(str(tmp_path / "nope.jsonl"))
    (tmp_path / "g.csv").write_text("id\n1\n")
    with pytest.raises(UserError, match="unsupported file type"):
        official.import_source(str(tmp_path / "g.csv"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UserError, match="no .parquet, .jsonl or .json files"):
        official.import_source(str(empty))


def test_a_binary_file_is_one_clear_error(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(UserError, match=r"g\.jsonl:1: not UTF-8 text \(byte 0x89 at column 1\)"):
        official.import_source(str(path))


def test_rows_that_are_not_objects(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps([OFFICIAL[0], [1, 2], "text"]))
    links = tmp_path / "links.csv"
    links.write_text("id,seed_id,variant\na,a,0\n")
    with pytest.raises(DataErrors) as info:
        official.import_source(str(path), linkage_file=str(links))
    assert [line.split(": ", 1)[1] for line in bad_rows(info)] == [
        "not an object (got [1, 2]); expected a JSON object (one row)",
        "not an object (got 'text'); expected a JSON object (one row)"]


def test_bad_json_line_names_the_line(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(OFFICIAL[0]) + "\n{not json\n")
    with pytest.raises(UserError, match=r"g\.jsonl:2: not valid JSON"):
        official.import_source(str(path))


def test_a_hub_id_offline_fails_fast_with_what_to_do(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UserError) as info:
        official.import_source("meituan-longcat/General365_Public")
    msg = str(info.value)
    assert "HF_HUB_OFFLINE=1" in msg and "--source sample" in msg and "dataset build" in msg


def test_unknown_split_is_refused(tmp_path):
    with pytest.raises(UserError, match="unknown split 'train'"):
        official.import_source(str(write_jsonl(tmp_path / "g.jsonl", OFFICIAL)), split="train")


# --- linkage ---------------------------------------------------------------------------


def test_no_linkage_makes_every_row_its_own_seed_and_says_so(tmp_path):
    rows = [dict(r, id=f"q{i}") for i, r in enumerate(OFFICIAL)]
    result = official.import_source(str(write_jsonl(tmp_path / "g.jsonl", rows)))
    assert all(p.variant == 0 and p.seed_id == p.id for p in result.problems)
    assert result.linkage == {"none": len(rows)}
    assert any("every row is its own seed" in n for n in result.notes)
    assert any("carry no categories" in n for n in result.notes)


@pytest.mark.parametrize("pid,expected", [("a-v1", ("a", 1)), ("a_v12", ("a", 12)),
                                          ("g365s-001-v3", ("g365s-001", 3)),
                                          ("17_2", ("17", 2)), ("x-3", ("x", 3)),
                                          ("a-v0", None), ("a_0", None), ("plain", None)])
def test_id_patterns(pid, expected):
    assert split_id(pid) == expected


def test_an_id_pattern_links_only_to_a_seed_that_exists(tmp_path):
    rows = official_rows()[:2] + [dict(OFFICIAL[0], id="2024-5"), dict(OFFICIAL[0], id="b_2"),
                                  dict(OFFICIAL[4], id="b")]
    result = official.import_source(str(write_jsonl(tmp_path / "g.jsonl", rows)))
    by_id = {p.id: p for p in result.problems}
    assert (by_id["2024-5"].seed_id, by_id["2024-5"].variant) == ("2024-5", 0)  # no row "2024"
    assert (by_id["b_2"].seed_id, by_id["b_2"].variant) == ("b", 2)
    assert "1 row(s) had no linkage" not in " ".join(result.notes)


def test_source_fields_win_over_id_patterns(tmp_path):
    rows = [
        dict(OFFICIAL[0], id="s1", categories=["Optimal Strategy"]),
        dict(OFFICIAL[1], id="x1", seed_id="s1", variant="2"),      # a string variant
        dict(OFFICIAL[2], id="x2", seed_id="s1"),                   # numbered in order
        dict(OFFICIAL[3], id="s1-v9", seed_id="s1"),                # number from its id
        dict(OFFICIAL[4], id="s2", variant=0, category="spatial and temporal reasoning"),
    ]
    result = official.import_source(str(write_jsonl(tmp_path / "g.jsonl", rows)))
    got = {p.id: (p.seed_id, p.variant) for p in result.problems}
    assert got == {"s1": ("s1", 0), "x1": ("s1", 2), "x2": ("s1", 1), "s1-v9": ("s1", 9),
                   "s2": ("s2", 0)}
    assert result.linkage == {"fields": 4, "none": 1}
    by_id = {p.id: p for p in result.problems}
    assert by_id["s2"].categories == (Category.SPATIAL_TEMPORAL,)
    # variants with no categories of their own inherit their seed's
    assert by_id["x1"].categories == (Category.OPTIMAL_STRATEGY,)


def test_tags_give_categories_and_other_tags_are_kept_aside(tmp_path):
    rows = [dict(OFFICIAL[0], tags=["puzzle", "Implicit Information Reasoning", "K-12"])]
    result = official.import_source(str(write_jsonl(tmp_path / "g.jsonl", rows)))
    p = result.problems[0]
    assert p.categories == (Category.IMPLICIT_INFORMATION,)
    assert p.extra["tags"] == ["puzzle", "Implicit Information Reasoning", "K-12"]


def test_category_aliases():
    assert normalize_categories("complex_constraints|Branching and Enumeration") == [
        "Complex Constraints", "Branching & Enumeration"]
    assert normalize_categories(["Logic"]) == ["Logic"]           # left for the schema to refuse
    assert normalize_categories(["Logic"], strict=False) == []


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_linkage_file_links_rows_and_gives_categories(tmp_path, fmt):
    rows = [dict(r, id=f"q{i}") for i, r in enumerate(OFFICIAL[:4])]
    links = [("q0", "q0", 0, "Complex Constraints;Optimal Strategy"), ("q1", "q0", 1, ""),
             ("q2", "q0", 2, ""), ("q3", "q0", 3, "Semantic Interference")]
    if fmt == "csv":  # as a spreadsheet saves it: with a byte-order mark
        lf = tmp_path / "links.csv"
        lf.write_text("\ufeffid,seed_id,variant,categories\n" +
                      "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in links), encoding="utf-8")
    else:
        lf = write_jsonl(tmp_path / "links.jsonl", [
            {"id": a, "seed_id": b, "variant": c, "categories": d.split(";") if d else []}
            for a, b, c, d in links])
    result = official.import_source(str(write_jsonl(tmp_path / "g.jsonl", rows)),
                                    linkage_file=str(lf))
    got = {p.id: (p.seed_id, p.variant, [c.value for c in p.categories])
           for p in result.problems}
    assert got["q0"] == ("q0", 0, ["Complex Constraints", "Optimal Strategy"])
    assert got["q2"] == ("q0", 2, ["Complex Constraints", "Optimal Strategy"])
    assert got["q3"] == ("q0", 3, ["Semantic Interference"])
    assert result.linkage == {"file": 4}


def test_linkage_file_errors(tmp_path):
    data = str(write_jsonl(tmp_path / "g.jsonl", OFFICIAL[:2]))
    lf = tmp_path / "links.csv"
    lf.write_text("id,seed\n")
    with pytest.raises(UserError, match="missing column"):
        official.import_source(data, linkage_file=str(lf))
    lf.write_text("id,seed_id,variant\na,a,0\nnope,a,1\na-v1,a,x\na,a,0\nb-v1,,2\n")
    with pytest.raises(DataErrors) as info:
        official.import_source(data, linkage_file=str(lf))
    lines = bad_rows(info)
    assert len(lines) == 3
    assert "links.csv:4, id 'a-v1', field 'variant': bad variant (got 'x')" in lines[0]
    assert "links.csv:5, id 'a', field 'id': id given twice" in lines[1]
    assert "links.csv:6, id 'b-v1', field 'seed_id': missing field" in lines[2]
    lf.write_text("id,seed_id,variant\nnope,a,1\n")
    with pytest.raises(DataErrors, match=r"links.csv:2, id 'nope', field 'id': id not in the"):
        official.import_source(data, linkage_file=str(lf))
    with pytest.raises(UserError, match="linkage file not found"):
        official.import_source(data, linkage_file=str(tmp_path / "none.csv"))


# --- validation: one line per bad row, nothing imported --------------------------------


def test_every_bad_row_is_reported_once(tmp_path):
    rows = official_rows() + [
        dict(OFFICIAL[0], id="c", answer="twelve-ish"),                      # gold unparseable
        dict(OFFICIAL[0], id="d", answer_type="essay"),                      # unknown type
        dict(OFFICIAL[0], id="e", float_round="-1"),                         # bad float_round
        dict(OFFICIAL[0], id="e", answer="not a number either"),             # duplicated id
        dict(OFFICIAL[0], id="f", seed_id="ghost", variant=1),               # seed missing
        dict(OFFICIAL[2], id="g", answer="[3,"),                             # bad interval
        dict(OFFICIAL[0], id="h", answer="???", float_round="x"),            # two faults, one line
    ]
    path = write_jsonl(tmp_path / "g.jsonl", rows)
    with pytest.raises(DataErrors) as info:
        official.import_source(str(path))
    lines = bad_rows(info)
    assert len(lines) == 7
    p = str(path)
    assert lines[0].startswith(f"{p}:9, id 'c', field 'answer': gold answer does not parse "
                               "(got 'twelve-ish'); expected a number the grader can read (")
    assert lines[1].startswith(f"{p}:10, id 'd', field 'answer_type': unknown AnswerType")
    assert lines[2].startswith(f"{p}:11, id 'e', field 'float_round': bad float_round "
                               "(got '-1'); expected")
    assert lines[3].startswith(f"{p}:12, id 'e', field 'id': duplicated id; expected each id "
                               f"once (first at {p}:11)")
    assert lines[4].startswith(f"{p}:13, id 'f', field 'seed_id': seed not in the data")
    assert lines[5].startswith(f"{p}:14, id 'g', field 'answer': gold answer does not parse")
    assert "expected an interval" not in lines[5] and "interval" in lines[5]
    assert lines[6].startswith(f"{p}:15, id 'h', field 'float_round'")


def test_two_rows_in_one_slot_and_a_seed_id_naming_a_variant(tmp_path):
    rows = official_rows()[:2] + [dict(OFFICIAL[2], id="z", seed_id="a", variant=1),
                                  dict(OFFICIAL[2], id="y", seed_id="a-v1", variant=1)]
    with pytest.raises(DataErrors) as info:
        official.import_source(str(write_jsonl(tmp_path / "g.jsonl", rows)))
    lines = bad_rows(info)
    assert len(lines) == 2
    assert "id 'z', field 'variant': two rows claim the same seed and variant" in lines[0]
    assert "id 'y', field 'seed_id': seed_id names a variant" in lines[1]


def test_golds_are_parsed_once_each_and_kept(tmp_path, monkeypatch):
    import general365.answers.gold as rule

    calls = []
    real = rule.parse_gold

    def counting(answer, answer_type, float_round=0):
        calls.append(answer)
        return real(answer, answer_type, float_round)

    monkeypatch.setattr(rule, "parse_gold", counting)
    result = official.import_source(str(write_jsonl(tmp_path / "g.jsonl", OFFICIAL)))
    rule_ids = [r["id"] for r in OFFICIAL if r["answer_type"] in ("number", "interval")]
    assert sorted(calls) == sorted(r["answer"] for r in OFFICIAL if r["id"] in rule_ids)
    assert sorted(result.golds) == sorted(rule_ids)
    assert all(result.golds[i] is not None for i in rule_ids)


def test_the_summary(tmp_path):
    rows = official_rows()
    rows[0]["categories"] = ["Complex Constraints", "Optimal Strategy"]
    result = official.import_source(str(write_jsonl(tmp_path / "g.jsonl", rows)))
    s = result.summary()
    assert (s["rows"], s["seeds"], s["variants"]) == (8, 2, 6)
    assert s["answer_types"] == {"interval": 2, "multiple_choice": 1, "number": 3,
                                 "single_choice": 1, "text": 1}
    assert s["categories (seeds)"] == {"Complex Constraints": 1, "Optimal Strategy": 1}
    assert result.problems[2].answer_type is AnswerType.INTERVAL


def test_the_bundled_sample_imports_like_any_source():
    from general365.data.sample import load_sample

    result = official.import_source("sample")
    assert result.source == "sample"
    assert result.problems == load_sample()
    assert set(result.golds) == {p.id for p in result.problems if p.answer_type.is_rule_graded}
    with pytest.raises(UserError, match="only the 'public' split"):
        official.import_source("sample", split="test")
