"""general365.load_dataset / load_problems, and the bundled sample's loader."""

import json
import socket

import datasets
import pytest

import general365
from general365.data import sample as sample_mod
from general365.data.hub import build_folder
from general365.data.readers import hub_unreachable_reason
from general365.data.sample import load_sample, sample_dir
from general365.errors import DataErrors, UserError
from general365.schema import Problem
from test_data_official import OFFICIAL, write_jsonl

# --- the bundled sample ------------------------------------------------------------------


def test_the_sample_folder_ships_with_the_package():
    assert sample_dir().name == "sample" and sample_dir().parent.name == "data"
    assert sample_dir().is_dir()


def test_load_sample_reads_every_file_in_sorted_order():
    problems = load_sample()
    assert problems and all(isinstance(p, Problem) for p in problems)
    expected = []
    for path in sorted(sample_dir().glob("*.jsonl")):
        expected += [json.loads(line)["id"] for line in path.read_text().splitlines()
                     if line.strip()]
    assert [p.id for p in problems] == expected


@pytest.fixture
def fake_sample(tmp_path, monkeypatch):
    """Points the loader at a folder of our own (the real sample is being written)."""
    monkeypatch.setattr(sample_mod, "sample_dir", lambda: tmp_path)
    return tmp_path


def test_sample_rows_are_validated_and_all_bad_rows_reported(fake_sample):
    good = {"id": "s1", "question": "Q", "answer": "1", "answer_type": "number"}
    write_jsonl(fake_sample / "b.jsonl", [good, dict(good, float_round="x", id="s2")])
    (fake_sample / "a.jsonl").write_text(json.dumps(dict(good, id="s0")) + "\n\n{oops\n")
    write_jsonl(fake_sample / "c.jsonl", [dict(good, id="s0")])
    with pytest.raises(DataErrors) as info:
        load_sample()
    lines = str(info.value).splitlines()
    assert lines[0] == "3 bad row(s):"
    assert lines[1].startswith(f"{fake_sample / 'a.jsonl'}:3: not valid JSON")
    assert lines[2].startswith(f"{fake_sample / 'b.jsonl'}:2, id 's2', field 'float_round'")
    assert lines[3].startswith(f"{fake_sample / 'c.jsonl'}:1, id 's0', field 'id': "
                               "duplicated id; expected each id once (first at a.jsonl:1)")


def test_a_missing_sample_is_one_clear_error(fake_sample):
    with pytest.raises(UserError, match="the bundled sample is missing"):
        load_sample()


# --- load_problems -----------------------------------------------------------------------


def test_load_problems_sample_by_config():
    everything = general365.load_problems("sample")
    seeds = general365.load_problems("sample", config="seed")
    variants = general365.load_problems("sample", config="variant")
    assert everything == load_sample()
    assert seeds == [p for p in everything if p.variant == 0]
    assert variants == [p for p in everything if p.variant > 0]
    with pytest.raises(UserError, match="only the 'public' split"):
        general365.load_problems("sample", split="test")
    with pytest.raises(UserError, match="unknown config 'seeds'"):
        general365.load_problems("sample", config="seeds")


def test_load_problems_from_a_file_and_from_a_built_folder(tmp_path):
    src = write_jsonl(tmp_path / "g.jsonl", OFFICIAL)
    from_file = general365.load_problems(str(src), config="variant")
    assert [p.id for p in from_file] == [r["id"] for r in OFFICIAL if "-v" in r["id"]]
    out = tmp_path / "built"
    build_folder(out, {"public": general365.load_problems(str(src))}, source="g.jsonl")
    # the folder's `all` is its seed file then its variant file (the Hub's order too)
    by_id = lambda ps: sorted(ps, key=lambda p: p.id)  # noqa: E731
    back = general365.load_problems(str(out))
    assert by_id(back) == by_id(general365.load_problems(str(src)))
    assert [p.variant > 0 for p in back] == sorted(p.variant > 0 for p in back)
    assert all(p.extra == {"difficulty": r["difficulty"]}
               for p, r in zip(by_id(back), sorted(OFFICIAL, key=lambda r: r["id"])))


# --- load_dataset ------------------------------------------------------------------------


def test_load_dataset_sample_has_the_hub_folders_features(tmp_path):
    ds = general365.load_dataset("all", source="sample")
    assert isinstance(ds, datasets.Dataset)
    assert ds["id"] == [p.id for p in load_sample()]
    out = tmp_path / "built"
    build_folder(out, {"public": load_sample()}, source="sample")
    hub = datasets.load_dataset(str(out), "all", split="public", cache_dir=str(tmp_path / "c"))
    assert ds.features == hub.features
    assert general365.load_dataset("seed", source="sample")["variant"] == [
        0 for p in load_sample() if p.variant == 0]


def test_load_dataset_from_a_built_folder_uses_datasets(tmp_path):
    src = write_jsonl(tmp_path / "g.jsonl", OFFICIAL)
    out = tmp_path / "built"
    build_folder(out, {"public": general365.load_problems(str(src))}, source="g.jsonl")
    seeds = general365.load_dataset("seed", source=str(out), cache_dir=str(tmp_path / "c"))
    assert sorted(seeds["id"]) == ["a", "b"]
    assert seeds.features["float_round"] == datasets.Value("int64")
    with pytest.raises(UserError, match="test"):
        general365.load_dataset("seed", split="test", source=str(out),
                                cache_dir=str(tmp_path / "c"))


def test_load_dataset_from_an_official_format_file(tmp_path):
    ds = general365.load_dataset("variant", source=str(write_jsonl(tmp_path / "g.jsonl",
                                                                   OFFICIAL)))
    assert len(ds) == 6 and set(ds["seed_id"]) == {"a", "b"}
    assert ds.features["categories"] == datasets.List(datasets.Value("string"))


@pytest.mark.parametrize("var", ["HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"])
def test_offline_with_no_source_fails_fast_and_says_what_to_do(monkeypatch, var):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setenv(var, "1")

    def no_network(*args, **kwargs):
        raise AssertionError("an offline switch must be read before any connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    for call in (general365.load_dataset, general365.load_problems):
        with pytest.raises(UserError) as info:
            call()
        msg = str(info.value)
        assert f"{var}=1 is set" in msg
        assert "meituan-longcat/General365_Public" in msg
        assert 'source="sample"' in msg and "dataset build" in msg


def test_the_hub_check_connects_when_no_switch_is_set(monkeypatch):
    """A real TCP connect, to a local port nobody listens on (HF_ENDPOINT points there)."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    reason = hub_unreachable_reason()
    assert reason.startswith(f"cannot connect to 127.0.0.1:{port}")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.getsockname()[1]}")
        assert hub_unreachable_reason() is None


def test_the_full_benchmark_is_not_the_official_release(monkeypatch):
    with pytest.raises(UserError, match="public half of General365 only"):
        general365.load_dataset(split="test")
    with pytest.raises(UserError, match="unknown split 'train'"):
        general365.load_dataset(split="train", source="sample")
