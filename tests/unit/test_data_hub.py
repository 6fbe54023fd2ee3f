"""The Hub folder: what `build_folder` writes, read back by `datasets.load_dataset` (the
same code path the Hub uses), the folder check, and the push wiring."""

import os

import datasets
import pytest

from general365.data.hub import build_folder, push_folder, validate_folder
from general365.data.official import import_source
from general365.data.readers import read_front_matter
from general365.data.sample import load_sample
from general365.errors import DataErrors, UserError
from general365.schema import Category
from test_data_official import OFFICIAL, write_jsonl, write_parquet


def load(folder, config=None, split="public", tmp=None):
    return datasets.load_dataset(str(folder), config, split=split,
                                 cache_dir=str(tmp / "hf-cache"))


def files_under(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def sample_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("build") / "sample"
    build_folder(out, {"public": load_sample()}, source="sample")
    return out


def test_the_folder_layout(sample_folder):
    assert files_under(sample_folder) == [
        "README.md", "data/seed/public-00000-of-00001.parquet",
        "data/variant/public-00000-of-00001.parquet"]
    assert not [p for p in sample_folder.parent.iterdir() if p.name.startswith(".")]


def test_the_card_front_matter(sample_folder):
    meta = read_front_matter(sample_folder / "README.md")
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert configs["seed"]["data_files"] == [{"split": "public",
                                              "path": "data/seed/public-*.parquet"}]
    assert configs["variant"]["data_files"] == [{"split": "public",
                                                 "path": "data/variant/public-*.parquet"}]
    # `all` reuses both files: a list of the two paths, no copy of the data
    assert configs["all"]["data_files"] == [{"split": "public", "path": [
        "data/seed/public-*.parquet", "data/variant/public-*.parquet"]}]
    assert configs["all"]["default"] is True and "default" not in configs["seed"]
    sample = load_sample()
    counts = {"seed": sum(p.variant == 0 for p in sample),
              "variant": sum(p.variant > 0 for p in sample), "all": len(sample)}
    info = {i["config_name"]: i for i in meta["dataset_info"]}
    assert set(info) == {"seed", "variant", "all"}
    for name, entry in info.items():
        features = {f["name"]: f for f in entry["features"]}
        assert features["categories"] == {"name": "categories", "list": "string"}
        assert features["float_round"]["dtype"] == "int64"
        assert features["variant"]["dtype"] == "int64"
        assert features["id"]["dtype"] == "string"
        assert entry["splits"] == [{"name": "public", "num_bytes": entry["splits"][0]["num_bytes"],
                                    "num_examples": counts[name]}]
    assert meta["license"] == "cc-by-4.0"
    # license_name/license_link go with `other` only: beside CC BY 4.0 they would contradict it
    assert "license_name" not in meta and "license_link" not in meta
    assert meta["pretty_name"] == "General365" and meta["language"] == ["en"]
    assert meta["size_categories"] == ["n<1K"]


def test_the_card_body(sample_folder):
    text = (sample_folder / "README.md").read_text()
    assert "<!-- general365:" not in text
    for cat in Category:
        assert f"### {cat.value}\n" in text
    assert "Built from the toolkit's bundled sample" in text
    assert "General365: Benchmarking General Reasoning in Large Language Models" in text
    by_id = {p.id: p for p in load_sample()}
    sections = {part.split("\n", 1)[0]: part for part in text.split("\n### ")[1:]}
    shown = []
    for cat in Category:
        covered = any(cat in p.categories for p in by_id.values() if p.variant == 0)
        section = sections[cat.value]
        if not covered:
            assert "(no sample problem in this category yet)" in section
            continue
        pid = section.split("Example `", 1)[1].split("`", 1)[0]
        problem = by_id[pid]
        assert problem.variant == 0 and cat in problem.categories
        assert f"Gold answer: `{problem.answer}`" in section
        shown.append(pid)
    assert len(set(shown)) == len(shown)   # no problem shown twice while others will do


@pytest.mark.parametrize("config", ["seed", "variant", "all", None])
def test_datasets_reads_each_config(sample_folder, tmp_path, config):
    ds = load(sample_folder, config, tmp=tmp_path)
    sample = load_sample()
    want = {"seed": [p for p in sample if p.variant == 0],
            "variant": [p for p in sample if p.variant > 0]}.get(config, sample)
    assert sorted(ds["id"]) == sorted(p.id for p in want)
    assert ds.features["categories"] == datasets.List(datasets.Value("string"))
    assert ds.features["float_round"] == datasets.Value("int64")
    by_id = {p.id: p for p in want}
    for row in ds:
        assert row == by_id[row["id"]].to_dict()


@pytest.mark.parametrize("writer", [write_parquet, write_jsonl])
def test_an_official_format_file_builds_and_reads_back(tmp_path, writer):
    src = writer(tmp_path / ("g.parquet" if writer is write_parquet else "g.jsonl"), OFFICIAL)
    result = import_source(str(src))
    out = tmp_path / "out"
    build_folder(out, {"public": result.problems}, source=result.source, notes=result.notes)
    seeds = load(out, "seed", tmp=tmp_path)
    assert sorted(seeds["id"]) == ["a", "b"]
    variants = load(out, "variant", tmp=tmp_path)
    assert sorted(variants["id"]) == sorted(r["id"] for r in OFFICIAL if "-v" in r["id"])
    everything = load(out, tmp=tmp_path)
    assert len(everything) == len(OFFICIAL)
    row = next(r for r in everything if r["id"] == "a-v1")
    assert row["float_round"] == 2 and row["seed_id"] == "a" and row["variant"] == 1
    assert row["difficulty"] == "hard"   # the source's extra field is kept as a column
    meta = read_front_matter(out / "README.md")
    assert meta["license"] == "other"
    assert meta["license_name"] and meta["license_link"].startswith("https://")
    assert f"Built from: `{src.name}`." in (out / "README.md").read_text()


def test_both_splits(tmp_path):
    sample = load_sample()
    full = sample + [p for p in import_source(str(write_jsonl(tmp_path / "g.jsonl",
                                                              OFFICIAL))).problems]
    out = tmp_path / "out"
    build_folder(out, {"public": sample, "test": full}, source="sample")
    assert "data/seed/test-00000-of-00001.parquet" in files_under(out)
    assert len(load(out, "all", "test", tmp=tmp_path)) == len(full)
    assert len(load(out, "all", "public", tmp=tmp_path)) == len(sample)
    assert len(load(out, "seed", "test", tmp=tmp_path)) == sum(p.variant == 0 for p in full)
    with pytest.raises(UserError, match="unknown split 'train'"):
        build_folder(tmp_path / "x", {"train": sample}, source="sample")


def test_a_config_without_rows_is_left_out(tmp_path):
    """`datasets` cannot load an empty split, so a source with no variants gets no
    variant file and no `variant` config (and load_dataset says so in one line)."""
    import general365

    rows = [dict(r, id=f"q{i}") for i, r in enumerate(OFFICIAL)]
    result = import_source(str(write_jsonl(tmp_path / "g.jsonl", rows)))
    out = tmp_path / "out"
    build_folder(out, {"public": result.problems}, source="g.jsonl", notes=result.notes)
    assert files_under(out) == ["README.md", "data/seed/public-00000-of-00001.parquet"]
    meta = read_front_matter(out / "README.md")
    assert [c["config_name"] for c in meta["configs"]] == ["seed", "all"]
    assert meta["configs"][1]["data_files"] == [{"split": "public",
                                                 "path": ["data/seed/public-*.parquet"]}]
    assert len(load(out, "all", tmp=tmp_path)) == len(rows)
    assert validate_folder(out) == ["data/seed/public-00000-of-00001.parquet"]
    with pytest.raises(UserError, match="has no 'variant' rows"):
        general365.load_dataset("variant", source=str(out))
    assert "every row is its own seed" in (out / "README.md").read_text()


def test_out_is_never_half_written(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(UserError, match="not empty; choose another --out or pass --overwrite"):
        build_folder(out, {"public": load_sample()}, source="sample")
    assert files_under(out) == ["keep.txt"]
    # --overwrite never deletes what the build did not write
    with pytest.raises(UserError, match=r"not a folder written by `dataset build` \(it holds "
                                        r"keep.txt\)"):
        build_folder(out, {"public": load_sample()}, source="sample", overwrite=True)
    assert files_under(out) == ["keep.txt"]
    (out / "keep.txt").unlink()
    build_folder(out, {"public": load_sample()}, source="sample")   # an empty folder is fine
    build_folder(out, {"public": load_sample()[:4]}, source="sample", overwrite=True)
    assert files_under(out) == ["README.md", "data/seed/public-00000-of-00001.parquet",
                                "data/variant/public-00000-of-00001.parquet"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]   # no temp folder left
    (tmp_path / "file").write_text("x")
    with pytest.raises(UserError, match="not a folder"):
        build_folder(tmp_path / "file", {"public": load_sample()}, source="sample")


def test_a_failed_build_leaves_nothing(tmp_path, monkeypatch):
    import general365.data.card as card

    def broken(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(card, "render_card", broken)
    with pytest.raises(RuntimeError):
        build_folder(tmp_path / "out", {"public": load_sample()}, source="sample")
    assert list(tmp_path.iterdir()) == []


# --- the folder check and the push ----------------------------------------------------


def test_validate_folder_accepts_a_build(sample_folder):
    assert validate_folder(sample_folder) == [
        "data/seed/public-00000-of-00001.parquet", "data/variant/public-00000-of-00001.parquet"]


def test_validate_folder_refuses_what_the_hub_would_misread(tmp_path, sample_folder):
    import shutil

    with pytest.raises(UserError, match="no such folder"):
        validate_folder(tmp_path / "none")
    bare = tmp_path / "bare"
    bare.mkdir()
    with pytest.raises(UserError, match="no README.md"):
        validate_folder(bare)
    (bare / "README.md").write_text("---\nlicense: mit\n---\n# x\n")
    with pytest.raises(UserError, match="configs missing: seed, all"):
        validate_folder(bare)
    broken = tmp_path / "broken"
    shutil.copytree(sample_folder, broken)
    os.remove(broken / "data/variant/public-00000-of-00001.parquet")
    (broken / "data/extra.parquet").write_text("x")
    with pytest.raises(DataErrors) as info:
        validate_folder(broken)
    msg = str(info.value)
    assert "field 'configs': no file matches (got 'data/variant/public-*.parquet')" in msg
    assert "extra.parquet: data file not named by the card's configs" in msg


class RecordingApi:
    """Stands in for huggingface_hub.HfApi, which needs the network: records the calls."""

    def __init__(self, fail=None):
        self.calls = []
        self.fail = fail

    def create_repo(self, **kwargs):
        self.calls.append(("create_repo", kwargs))

    def upload_folder(self, **kwargs):
        self.calls.append(("upload_folder", kwargs))
        if self.fail:
            raise self.fail


def test_push_creates_the_repo_then_uploads_the_folder(sample_folder):
    api = RecordingApi()
    url = push_folder(sample_folder, "my-org/General365", private=True, api=api)
    assert url == "https://huggingface.co/datasets/my-org/General365"
    (n1, create), (n2, upload) = api.calls
    assert n1 == "create_repo" and create == {"repo_id": "my-org/General365",
                                              "repo_type": "dataset", "private": True,
                                              "exist_ok": True}
    assert n2 == "upload_folder"
    assert upload["folder_path"] == str(sample_folder)
    assert upload["repo_id"] == "my-org/General365" and upload["repo_type"] == "dataset"


@pytest.mark.parametrize("repo", ["General365", "a/b/c", "org/", "/name", "org/na me"])
def test_push_refuses_a_bad_repo_id_before_any_call(sample_folder, repo):
    api = RecordingApi()
    with pytest.raises(UserError, match="expected ORG/NAME"):
        push_folder(sample_folder, repo, api=api)
    assert api.calls == []


def test_push_refuses_a_folder_that_is_not_a_build(tmp_path):
    api = RecordingApi()
    with pytest.raises(UserError, match="no README.md"):
        push_folder(tmp_path, "org/name", api=api)
    assert api.calls == []


def test_a_hub_refusal_is_one_line(sample_folder):
    import httpx
    from huggingface_hub.errors import HfHubHTTPError

    response = httpx.Response(403, request=httpx.Request("POST", "https://huggingface.co/x"))
    api = RecordingApi(fail=HfHubHTTPError("403 Forbidden: you cannot write to org/name",
                                           response=response))
    with pytest.raises(UserError, match="upload to org/name failed: 403 Forbidden"):
        push_folder(sample_folder, "org/name", api=api)
    with pytest.raises(KeyError):   # a bug is not dressed up as a user error
        push_folder(sample_folder, "org/name", api=RecordingApi(fail=KeyError("bug")))


def test_a_network_failure_is_one_line(sample_folder):
    # huggingface_hub 1.x lets httpx's transport errors through unwrapped (not OSErrors)
    import httpx

    api = RecordingApi(fail=httpx.ConnectError("[Errno 111] Connection refused"))
    with pytest.raises(UserError, match="upload to org/name failed: .*Connection refused"):
        push_folder(sample_folder, "org/name", api=api)


def test_push_offline_fails_fast(sample_folder, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UserError, match="HF_HUB_OFFLINE=1 is set"):
        push_folder(sample_folder, "org/name")
