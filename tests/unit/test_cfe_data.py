"""CFE-Bench data: the real release loads and validates; bad rows (synthetic files the
tests write) are refused one line per row; sources are found or refused clearly."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from general365.errors import DataError, DataErrors, UserError
from general365.tasks.cfe import data
from general365.tasks.cfe.data import VariableType

KEYS = ("short_answer_variable", "short_answer_value", "short_answer_description",
        "short_answer_type")


# --- the real release ---------------------------------------------------------------------


def test_release_loads_whole(cfe_dir, cfe_data):
    raw = {m: json.loads((cfe_dir / f).read_text(encoding="utf-8"))
           for m, f in data.FILES.items()}
    assert (len(raw["text"]), len(raw["mm"])) == (305, 144)          # the paper's counts
    assert len(cfe_data.problems) == 449
    assert [p.modality for p in cfe_data.problems] == ["text"] * 305 + ["mm"] * 144
    rows = raw["text"] + raw["mm"]
    for p, r in zip(cfe_data.problems, rows):
        assert p.source_id == r["id"] and p.question == r["question"]["text"]
        assert [v.name for v in p.variables] == [n.strip() for n in r["short_answer_variable"]]
        assert [v.value for v in p.variables] == [x.strip() for x in r["short_answer_value"]]
        assert [v.type.value for v in p.variables] == r["short_answer_type"]
        assert len(p.reasoning_flow) == len(r["reasoning_flow"])
        assert len(p.images) == len(r["question"]["images"])
        assert all(Path(i).is_file() and Path(i).is_relative_to(cfe_dir) for i in p.images)
        assert p.subject is None and p.tolerance is None     # the release has neither
    assert all(p.images for p in cfe_data.subset("mm"))
    assert not any(p.images for p in cfe_data.subset("text"))
    # Every id is unique after load; the release repeats five, renamed ID~2 with a note.
    ids = [p.id for p in cfe_data.problems]
    assert len(set(ids)) == 449
    renamed = [p for p in cfe_data.problems if p.id != p.source_id]
    release_ids = [r["id"] for r in rows]
    dup = {i for i in release_ids if release_ids.count(i) > 1}
    assert len(renamed) == len(dup) == 5
    assert {p.source_id for p in renamed} == dup
    assert all(p.id == p.source_id + "~2" for p in renamed)
    assert any("renamed" in n and "5 row(s)" in n for n in cfe_data.notes)
    summary = cfe_data.summary()
    assert summary["variables"] == sum(len(r["short_answer_variable"]) for r in rows)
    assert set(summary["variable_types"]) == {"numeric", "formula", "other"}


def test_subsets_and_single_file(cfe_dir):
    text = data.load(cfe_dir, subset="text")
    mm = data.load(cfe_dir, subset="mm")
    assert (len(text.problems), len(mm.problems)) == (305, 144)
    one = data.load(cfe_dir / "CFE_mm.json")
    assert len(one.problems) == 144 and all(p.modality == "mm" for p in one.problems)
    with pytest.raises(UserError, match="unknown CFE-Bench subset"):
        data.load(cfe_dir, subset="images")


def test_env_variable_names_the_default_folder(cfe_dir, monkeypatch):
    monkeypatch.setenv(data.DATA_ENV, str(cfe_dir))
    assert len(data.load(None, subset="text").problems) == 305
    monkeypatch.delenv(data.DATA_ENV)
    with pytest.raises(UserError, match=r"\$CFE_BENCH_DATA"):
        data.load(None)


# --- synthetic rows -----------------------------------------------------------------------


def row(i: int, **over) -> dict:
    r = {"id": f"q{i}", "question": {"text": f"What is x{i}?", "images": []},
         "answer": {"text": "Because.", "images": []},
         "short_answer_variable": ["x"], "short_answer_value": ["3 m"],
         "short_answer_description": ["a length"], "short_answer_type": ["numeric"],
         "reasoning_flow": [{"step_id": 1, "step": "Find x.", "verifiable_answer": 3.0}]}
    r.update(over)
    return r


def write(folder: Path, text_rows: list, mm_rows: list | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "CFE_text.json").write_text(json.dumps(text_rows), encoding="utf-8")
    (folder / "CFE_mm.json").write_text(json.dumps(mm_rows or []), encoding="utf-8")
    return folder


def test_a_good_synthetic_folder(tmp_path):
    img = tmp_path / "d" / "images" / "q9"
    img.mkdir(parents=True)
    (img / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 16)
    write(tmp_path / "d", [row(1, subject="Physics", tolerance=0.05,
                               short_answer_tolerance=[0.001])],
          [row(9, question={"text": "See <image>.", "images": ["images/q9/a.png"]})])
    d = data.load(tmp_path / "d")
    p, q = d.problems
    assert p.subject == "Physics" and p.tolerance == 0.05
    assert p.variables[0].tolerance == 0.001 and p.variables[0].type is VariableType.NUMERIC
    assert p.tolerance_for(p.variables[0], 0.01) == 0.001
    assert q.modality == "mm" and q.images == (str((img / "a.png").resolve()),)
    assert q.tolerance_for(q.variables[0], 0.02) == 0.02


BAD = [
    # (row, field named, words of the reason)
    ({"id": "", "question": {"text": "q", "images": []}}, "id", "empty"),
    (row(2, short_answer_value=["1", "2"]), "short_answer_value", "2 entries for 1 variables"),
    (row(3, short_answer_type=["number"]), "short_answer_type[0]", "unknown variable type"),
    (row(4, question={"text": "q", "images": ["../secret.png"]}), "question.images[0]",
     "leaves the data folder"),
    (row(5, question={"text": "q", "images": ["images/none.png"]}), "question.images[0]",
     "image file not found"),
    (row(6, short_answer_value=["  "]), "short_answer_value[0]", "empty"),
    (row(7, short_answer_variable=["x", "x"], short_answer_value=["1", "2"],
         short_answer_description=["a", "b"], short_answer_type=["numeric", "numeric"]),
     "short_answer_variable[1]", "appears twice"),
    (row(8, tolerance=2), "tolerance", "bad tolerance"),
    (row(10, question={"text": "  ", "images": []}), "question.text", "empty"),
    (row(11, reasoning_flow=[{"step_id": "one", "step": "s", "verifiable_answer": 1}]),
     "reasoning_flow[0].step_id", "bad step_id"),
    (row(12, short_answer_variable=[]), "short_answer_variable", "no variables"),
    ("not an object", None, "not a JSON object"),
]


def test_bad_rows_refused_one_line_each(tmp_path):
    rows = [row(0)] + [b[0] for b in BAD] + [row(99)]
    folder = write(tmp_path / "d", rows)
    (folder / "images").mkdir()
    with pytest.raises(DataErrors) as info:
        data.load(folder)
    lines = str(info.value).splitlines()
    assert lines[0] == f"{len(BAD)} bad row(s):"
    assert len(lines) == 1 + len(BAD)
    path = str(folder / "CFE_text.json")
    for line, (raw, field, words), index in zip(lines[1:], BAD, range(2, 2 + len(BAD))):
        assert line.startswith(f"{path}:{index}"), line
        assert words in line, line
        if field:
            assert f"field {field!r}" in line, line
        if isinstance(raw, dict) and raw.get("id"):
            assert f"id {raw['id']!r}" in line, line
        assert "expected" in line or "not a JSON object" in line, line


def test_images_in_the_text_file_are_refused(tmp_path):
    folder = write(tmp_path / "d", [row(1, question={"text": "q", "images": ["images/a.png"]})])
    (folder / "images").mkdir()
    (folder / "images" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(DataErrors, match="images in a text-only file"):
        data.load(folder)


def test_files_that_are_not_the_release_format(tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    with pytest.raises(UserError, match="no CFE_text.json, CFE_mm.json"):
        data.load(folder)
    (folder / "CFE_text.json").write_text('{"rows": 1}', encoding="utf-8")
    (folder / "CFE_mm.json").write_text("[]", encoding="utf-8")
    with pytest.raises(DataError, match="not a JSON array"):
        data.load(folder)
    (folder / "CFE_text.json").write_text('[{"id": "a", "id": "b"}]', encoding="utf-8")
    with pytest.raises(DataError, match="appears twice"):
        data.load(folder)
    (folder / "CFE_text.json").write_bytes(b'[{"id": "\xff"}]')
    with pytest.raises(DataError, match="not UTF-8"):
        data.load(folder)


def test_repeated_ids_are_renamed_not_merged(tmp_path):
    folder = write(tmp_path / "d", [row(1), row(1, short_answer_value=["4 m"]), row(2)])
    d = data.load(folder)
    assert [p.id for p in d.problems] == ["q1", "q1~2", "q2"]
    assert d.problems[1].source_id == "q1" and d.problems[1].variables[0].value == "4 m"
    # A release id that already reads like a renamed one cannot be told apart: refused.
    folder = write(tmp_path / "e", [row(1), row(1), dict(row(1), id="q1~2")])
    with pytest.raises(DataErrors, match="collides with a renamed duplicate"):
        data.load(folder)


def test_unknown_sources(tmp_path, monkeypatch):
    with pytest.raises(UserError, match="no such file or folder"):
        data.load(tmp_path / "nowhere")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UserError) as info:
        data.load("someone/cfe-copy")
    assert "Hugging Face Hub" in str(info.value) and "HF_HUB_OFFLINE" in str(info.value)


def test_locating_the_data_beside_the_checkout():
    from support import cfe_data

    found = cfe_data.find()
    if found is None:
        pytest.skip("no CFE-Bench data here")
    assert any(re.search(r"shared/data/cfe-bench$", str(c)) for c in cfe_data.candidates())
    assert (found / "CFE_text.json").is_file() and os.path.isdir(found / "images")
