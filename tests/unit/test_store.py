"""The run store on real files: append, reopen, torn-line recovery, keys that never serve
one model's or one setting's answers to another, run.json written atomically."""

from __future__ import annotations

import json
import logging
import os

import pytest

from general365.errors import DataError, UserError
from general365.runners import provenance
from general365.runners.base import Generation, GenerationRequest, preset
from general365.runners.store import (RecordKey, RunStore, build_record, iter_records,
                                      model_key, settings_hash)
from general365.schema import Problem, Response
from general365.tasks.general365 import General365

PROBLEM = Problem.from_dict({"id": "p1", "question": "What is 1+1? Put it in \\boxed{}.",
                             "answer": "2", "answer_type": "number", "float_round": "0",
                             "categories": ["Complex Constraints"]})


def req(pid="p1", run=0, *, temperature=1.0, content="What is 1+1?", seed=7):
    s = preset("reasoning", temperature=temperature, max_tokens=64, seed=seed)
    return GenerationRequest(pid, run, ({"role": "user", "content": content},), s)


def gen(r: GenerationRequest, text="\\boxed{2}") -> Generation:
    return Generation(r.problem_id, r.run, text, "stop", 5, reasoning="think",
                      reasoning_tokens=2, prompt_tokens=9, sampling=r.sampling.to_dict())


def write(store: RunStore, r: GenerationRequest, model="m", problem=PROBLEM) -> dict:
    record = build_record(gen(r), r, model, General365().inline(problem))
    store.append(record, RecordKey.of(r, model))
    return record


def test_record_is_a_response_with_key_and_gold(tmp_path):
    r = req(run=1)
    with RunStore(str(tmp_path)) as store:
        rec = write(store, r)
    [line] = (tmp_path / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    d = json.loads(line)
    assert d == rec
    resp = Response.from_dict(d)
    assert (resp.id, resp.run, resp.response, resp.model) == ("p1", 1, "\\boxed{2}", "m")
    assert resp.output_tokens == 5 and resp.reasoning_tokens == 2 and resp.reasoning == "think"
    assert resp.sampling["seed"] == 7 and resp.sampling["temperature"] == 1.0
    assert d["prompt_hash"] == r.prompt_hash()
    assert d["settings_hash"] == settings_hash(r.sampling)
    # The gold travels inline, so the file can be graded alone.
    assert resp.inline_problem().answer == "2"
    assert d["float_round"] == 0 and d["categories"] == ["Complex Constraints"]


def test_reopen_serves_only_exact_keys(tmp_path):
    with RunStore(str(tmp_path)) as store:
        write(store, req("p1", 0))
        write(store, req("p1", 1))
    requests = [req("p1", 0), req("p1", 1), req("p1", 2), req("p2", 0)]
    with RunStore(str(tmp_path)) as store:
        assert len(store) == 2
        todo, done = store.pending(requests, "m")
    assert done == 2
    assert [(r.problem_id, r.run) for r in todo] == [("p1", 2), ("p2", 0)]


def test_seed_is_not_part_of_the_settings_key(tmp_path):
    # Each run has its own seed; the key must still match across resumes of the same run.
    with RunStore(str(tmp_path)) as store:
        write(store, req(seed=1))
    with RunStore(str(tmp_path)) as store:
        assert store.pending([req(seed=1)], "m") == ([], 1)


@pytest.mark.parametrize("change, message", [
    ({"model": "other-model"}, "model 'm', not 'other-model'"),
    ({"temperature": 0.7}, "other sampling settings"),
    ({"content": "What is 2+2?"}, "another prompt"),
])
def test_never_serves_another_model_or_setting(tmp_path, change, message):
    with RunStore(str(tmp_path)) as store:
        write(store, req())
    model = change.pop("model", "m")
    with RunStore(str(tmp_path)) as store:
        with pytest.raises(UserError, match=message) as info:
            store.pending([req(**change)], model)
    assert "use a new --out" in str(info.value)


def test_revision_is_part_of_the_model_key(tmp_path):
    with RunStore(str(tmp_path)) as store:
        write(store, req(), model=model_key("org/m", "abc123"))
    with RunStore(str(tmp_path)) as store:
        assert store.pending([req()], model_key("org/m", "abc123")) == ([], 1)
        with pytest.raises(UserError):
            store.pending([req()], model_key("org/m", "def456"))


def test_torn_last_line_is_truncated_and_logged(tmp_path, caplog):
    with RunStore(str(tmp_path)) as store:
        write(store, req("p1", 0))
        write(store, req("p1", 1))
    path = tmp_path / "responses.jsonl"
    good = path.read_bytes()
    path.write_bytes(good + b'{"id": "p1", "run": 2, "respo')   # killed mid-write
    with caplog.at_level(logging.INFO, logger="general365.runners.store"):
        store = RunStore(str(tmp_path))
        report = store.open()
        try:
            report_len = len(store)
            todo, done = store.pending([req("p1", r) for r in range(3)], "m")
        finally:
            store.close()
    assert report_len == 2 and done == 2 and [r.run for r in todo] == [2]
    assert path.read_bytes() == good
    assert report.torn_bytes == len(b'{"id": "p1", "run": 2, "respo')
    # The caller (generate) tells the user from the report; the store's own log stays at
    # INFO so that the user is not told twice.
    assert "torn last line" in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_torn_line_then_new_appends_are_clean(tmp_path):
    with RunStore(str(tmp_path)) as store:
        write(store, req("p1", 0))
    path = tmp_path / "responses.jsonl"
    with open(path, "ab") as f:
        f.write(b'{"id": "p1", "ru')
    store = RunStore(str(tmp_path))
    report = store.open()
    assert report.torn_bytes == len(b'{"id": "p1", "ru') and report.records == 1
    write(store, req("p1", 1))
    store.close()
    assert [(d["id"], d["run"]) for d in iter_records(str(path))] == [("p1", 0), ("p1", 1)]


def test_unreadable_last_line_with_newline_is_dropped_too(tmp_path):
    with RunStore(str(tmp_path)) as store:
        write(store, req("p1", 0))
    path = tmp_path / "responses.jsonl"
    good = path.read_bytes()
    path.write_bytes(good + b'{"id": "p1", "run"\n')
    with RunStore(str(tmp_path)) as store:
        assert len(store) == 1
    assert path.read_bytes() == good


def test_damage_in_the_middle_is_an_error_naming_the_line(tmp_path):
    with RunStore(str(tmp_path)) as store:
        write(store, req("p1", 0))
        write(store, req("p1", 1))
    path = tmp_path / "responses.jsonl"
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(lines[0] + b"\nGARBAGE\n" + lines[1] + b"\n")
    with pytest.raises(DataError, match=r"responses.jsonl:2: not a JSON line"):
        RunStore(str(tmp_path)).open()
    assert path.read_bytes().count(b"\n") == 3   # nothing truncated


def test_duplicated_id_run_is_an_error(tmp_path):
    with RunStore(str(tmp_path)) as store:
        write(store, req("p1", 0))
    path = tmp_path / "responses.jsonl"
    line = path.read_bytes()
    path.write_bytes(line + line)
    with pytest.raises(DataError, match=r":2, id 'p1', field 'run': duplicated"):
        RunStore(str(tmp_path)).open()


def test_foreign_rows_without_key_are_refused(tmp_path):
    (tmp_path / "responses.jsonl").write_text('{"id": "p1", "run": 0, "response": "x"}\n')
    with pytest.raises(DataError, match="field 'model'.*no store key"):
        RunStore(str(tmp_path)).open()


def test_second_writer_is_refused(tmp_path):
    with RunStore(str(tmp_path)):
        with pytest.raises(UserError, match="another process is writing"):
            RunStore(str(tmp_path)).open()
    RunStore(str(tmp_path)).open()   # released on close


def test_each_record_is_one_line_even_with_newlines_in_text(tmp_path):
    r = req()
    with RunStore(str(tmp_path)) as store:
        store.append(build_record(gen(r, "line1\nline2\u2028é"), r, "m", General365().inline(PROBLEM)),
                     RecordKey.of(r, "m"))
    [d] = list(iter_records(str(tmp_path / "responses.jsonl")))
    assert d["response"] == "line1\nline2\u2028é"


def test_fsync_interval_and_close(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    store = RunStore(str(tmp_path), fsync_every=3, fsync_seconds=3600)
    store.open()
    for run in range(7):
        write(store, req(run=run))
    assert len(synced) == 2           # after records 3 and 6
    store.close()
    assert len(synced) == 3           # the 7th, at close


def test_run_json_is_atomic_and_resumable(tmp_path):
    store = RunStore(str(tmp_path))
    store.open()
    problems = [PROBLEM]
    rec = provenance.start_record(
        backend="openai", model="m", revision=None,
        dataset={"source": "sample", "fingerprint": provenance.dataset_fingerprint(problems)},
        sampling=req().sampling.to_dict(), runs=2, runner={"backend": "openai"},
        command=["generate"])
    store.write_run_json(rec)
    assert json.loads((tmp_path / "run.json").read_text())["status"] == "running"
    store.write_run_json(provenance.end_record(rec, status="complete", counts={"written": 2}))
    first = store.read_run_json()
    assert first["status"] == "complete" and first["counts"] == {"written": 2}
    assert first["versions"]["general365"] and first["hardware"]["cpu_count"]
    assert [f for f in os.listdir(tmp_path) if f.startswith(".tmp")] == []
    again = provenance.start_record(backend="openai", model="m", revision=None, dataset={},
                                    sampling={}, runs=2, runner={}, command=["generate"],
                                    previous=first)
    assert again["started"] == first["started"] and len(again["sessions"]) == 2
    store.close()


def test_dataset_fingerprint_changes_with_gold():
    other = Problem.from_dict({**PROBLEM.to_dict(), "answer": "3"})
    assert provenance.dataset_fingerprint([PROBLEM]) != provenance.dataset_fingerprint([other])
    assert provenance.dataset_fingerprint([PROBLEM]) == provenance.dataset_fingerprint([PROBLEM])


@pytest.mark.parametrize("content, message", [
    ("[1, 2]", "not a JSON object (got 'list')"),
    ('{"sessions": 3}', "field 'sessions': not a list (got 'int')"),
    ("{oops", "not valid JSON"),
])
def test_run_json_of_another_shape_is_refused(tmp_path, content, message):
    (tmp_path / "run.json").write_text(content)
    with pytest.raises(DataError) as err:
        RunStore(str(tmp_path)).read_run_json()
    assert message in str(err.value) and str(tmp_path / "run.json") in str(err.value)


@pytest.mark.parametrize("name, expected", [
    ("responses.jsonl", "expected a file of JSON lines"),
    ("run.json", "expected a JSON file"),
])
def test_a_folder_where_a_store_file_belongs_is_refused(tmp_path, name, expected):
    (tmp_path / name).mkdir()
    store = RunStore(str(tmp_path))
    with pytest.raises(DataError) as err:
        store.check_paths()
    assert f"{tmp_path / name}: is a folder; {expected}" in str(err.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_iter_records_reads_strictly_and_still_skips_a_torn_last_line(tmp_path):
    # expand reads its responses.jsonl through iter_records: json.loads kept the last of
    # two `run`s and took NaN, where every other reader refuses the line.
    p = tmp_path / "responses.jsonl"
    good = '{"id": "a", "run": 0, "response": "x"}\n'
    p.write_text(good + '{"id": "b", "run": 0, "run": 1}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"responses\.jsonl:2: the key 'run' appears twice"):
        list(iter_records(str(p)))
    p.write_text(good + '{"id": "b", "score": NaN}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"responses\.jsonl:2, field 'score': NaN"):
        list(iter_records(str(p)))
    p.write_text(good + '{"id": "b", "ru', encoding="utf-8")
    assert [r["id"] for r in iter_records(str(p))] == ["a"]
