"""`report --hub-folder` / `--push-to-hub`: the results dataset in the Hub layout, read back
by `datasets.load_dataset` (config `results`: one row per model and run; `details`: one
row per graded response), pushed as `dataset push` is tested (a stand-in for HfApi, which
needs the network, that keeps what was uploaded the way a Hub repository does), and built
back into a leaderboard."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import general365
from general365.cli import main
from general365.errors import UserError
from general365.results import hub
from test_report_cases import alpha_rows, mixed_rows, small_case, write_jsonl

RUN_JSON = {"general365_run": 1, "model": "alpha", "backend": "vllm", "revision": None,
            "dataset": {"source": "sample", "split": "public", "config": "all",
                        "problems": 5, "fingerprint": "0123456789abcdef"},
            "sampling": {"preset": "reasoning", "temperature": 1.0},
            "prompt": {"version": "1"}, "versions": {"general365": "9.9.9"}}


def load(folder, config):
    import datasets

    return datasets.load_dataset(str(folder), config, split="train",
                                 cache_dir=str(Path(folder).parent / f".cache-{config}"))


def alpha_run(tmp_path) -> str:
    """alpha's graded file in a run folder, with its run.json."""
    run = tmp_path / "runs" / "alpha"
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps(RUN_JSON))
    return write_jsonl(str(run / "graded.jsonl"), alpha_rows())


def test_the_folder_reads_back_with_load_dataset(tmp_path):
    beta = write_jsonl(str(tmp_path / "mixed.jsonl"), mixed_rows())
    folder = tmp_path / "results"
    rep = general365.report([alpha_run(tmp_path), beta], bootstrap=200, hub_folder=str(folder))
    assert any("results dataset" in line for line in rep.sent)
    results = load(folder, "results")
    rows = {(r["model"], r["run"]): r for r in results}
    assert set(rows) == {("alpha", 0), ("alpha", 1), ("beta", 0), ("gamma", 0)}
    a0, a1 = rows["alpha", 0], rows["alpha", 1]
    # each run's own flat metrics: run 0 is 3 of 5 right, run 1 is 1 of 4 graded
    assert a0["accuracy"] == pytest.approx(3 / 5) and a0["status/no_answer"] == 1
    assert a1["accuracy"] == pytest.approx(1 / 4) and a1["coverage"] == pytest.approx(4 / 5)
    assert a0["accuracy/number"] == pytest.approx(1.0) and a0["total/number"] == 2
    # over the model's runs, in each of its rows
    assert a0["n_runs"] == a1["n_runs"] == 2 and a0["pass_at_n"] == pytest.approx(0.6)
    # provenance from run.json
    assert (a0["backend"], a0["dataset_fingerprint"], a0["general365_version"]) == (
        "vllm", "0123456789abcdef", "9.9.9")
    assert json.loads(a0["sampling"]) == RUN_JSON["sampling"]
    # a model without run.json still gets its sampling from the rows, and the running version
    b = rows["beta", 0]
    assert b["backend"] is None and b["general365_version"] == general365.__version__
    assert json.loads(b["sampling"])[0]["preset"] == "chat"
    assert b["accuracy/text"] == pytest.approx(1 / 2)
    details = load(folder, "details")
    assert details.num_rows == 10 + 5 + 2
    d = next(r for r in details if (r["model"], r["id"], r["run"]) == ("alpha", "s1", 0))
    assert (d["status"], d["extracted"], d["answer"], d["output_tokens"],
            d["reasoning_tokens"]) == ("correct", "1", "1", 100, 50)
    assert d["categories"] == ["Complex Constraints", "Branching & Enumeration"]


def test_a_second_model_adds_rows_and_replaces_none(tmp_path):
    folder = tmp_path / "results"
    general365.report(alpha_run(tmp_path), bootstrap=200, hub_folder=str(folder))
    first = {p: p.read_bytes() for p in folder.rglob("*.parquet")}
    beta = write_jsonl(str(tmp_path / "beta.jsonl"), mixed_rows()[:5])
    assert main(["report", beta, "--out", str(tmp_path / "r"), "--bootstrap", "200",
                 "--hub-folder", str(folder)]) == 0
    assert all(p.read_bytes() == data for p, data in first.items())
    assert sorted({(r["model"], r["run"]) for r in load(folder, "results")}) == [
        ("alpha", 0), ("alpha", 1), ("beta", 0)]
    assert load(folder, "details").num_rows == 15


class HubRepo:
    """Stands in for huggingface_hub.HfApi, which needs the network: records the calls and
    keeps the uploaded files in a folder, as the repository would (an upload adds files and
    replaces those of the same path; it deletes nothing)."""

    def __init__(self, root: Path):
        self.root, self.calls = root, []

    def create_repo(self, **kwargs):
        self.calls.append(("create_repo", kwargs))
        self.root.mkdir(exist_ok=True)

    def upload_folder(self, *, folder_path, allow_patterns, **kwargs):
        self.calls.append(("upload_folder", {"folder_path": folder_path, **kwargs}))
        for rel in allow_patterns:
            dest = self.root / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(os.path.join(folder_path, rel), dest)


def test_push_to_the_same_repository_adds_each_models_rows(tmp_path):
    repo = HubRepo(tmp_path / "hub-repo")
    for name, graded in (("alpha", alpha_run(tmp_path)),
                         ("beta", write_jsonl(str(tmp_path / "b.jsonl"), mixed_rows()[:5]))):
        folder = tmp_path / f"local-{name}"   # each pushed from its own machine, say
        rep = general365.report(graded, bootstrap=200)
        files = hub.write_folder(rep.runs, str(folder))
        url = hub.push_folder(str(folder), "my-org/g365-results", files=files, api=repo)
        assert url == "https://huggingface.co/datasets/my-org/g365-results"
    create = [c for n, c in repo.calls if n == "create_repo"]
    assert create[0] == {"repo_id": "my-org/g365-results", "repo_type": "dataset",
                         "private": True, "exist_ok": True}
    upload = [c for n, c in repo.calls if n == "upload_folder"]
    assert upload[0]["repo_type"] == "dataset"
    assert sorted({(r["model"], r["run"]) for r in load(repo.root, "results")}) == [
        ("alpha", 0), ("alpha", 1), ("beta", 0)]
    assert load(repo.root, "details").num_rows == 15
    public = HubRepo(tmp_path / "public")
    hub.push_folder(str(tmp_path / "local-beta"), "my-org/x", files=["README.md"],
                    private=False, api=public)
    assert public.calls[0][1]["private"] is False


def test_the_leaderboard_is_built_from_a_results_folder(tmp_path):
    beta = write_jsonl(str(tmp_path / "mixed.jsonl"), mixed_rows())
    graded = [alpha_run(tmp_path), beta]
    direct = general365.report(graded, bootstrap=200, published="none")
    folder = tmp_path / "results"
    hub.write_folder(direct.runs, str(folder))
    out = tmp_path / "board"
    assert main(["report", str(folder), "--out", str(out), "--bootstrap", "200",
                 "--published", "none"]) == 0
    again = json.loads((out / "report.json").read_text())
    mine = json.loads(json.dumps(direct.to_dict()))
    for a, b in zip(mine["models"], again["models"]):
        for key in ("name", "group", "accuracy", "categories", "overall", "interval",
                    "statuses", "tokens", "stability"):
            assert a[key] == b[key], key
    assert (out / "index.html").is_file()
    # provenance travels with the rows: run.json's backend and fingerprint
    alpha = next(m for m in again["models"] if m["name"] == "alpha")
    assert alpha["provenance"]["run.json backend"] == "vllm"


@pytest.mark.parametrize("flags, needle", [
    (["--push-to-hub", "org"], "--push-to-hub 'org': expected ORG/NAME"),
    (["--push-to-hub", "org/name", "--token-env", "G365_UNSET_TOKEN"],
     "--token-env G365_UNSET_TOKEN: that environment variable is not set"),
    (["--push-to-hub", "org/name"], "cannot push to org/name: the Hugging Face Hub cannot "
                                    "be reached (HF_HUB_OFFLINE=1 is set); nothing was written"),
])
def test_bad_hub_options_are_one_line_before_any_work(tmp_path, capsys, monkeypatch, flags,
                                                      needle):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    paths = small_case(str(tmp_path / "graded"))
    code = main(["report", *paths, "--out", str(tmp_path / "r"), *flags])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and err.count("\n") == 1, err
    assert not (tmp_path / "r").exists()


def test_a_folder_of_other_files_is_refused(tmp_path, capsys):
    paths = small_case(str(tmp_path / "graded"))
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("x")
    code = main(["report", *paths, "--out", str(tmp_path / "r"), "--hub-folder",
                 str(tmp_path / "mine")])
    assert code == 2 and "--hub-folder" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
    with pytest.raises(UserError, match="not a results folder"):
        general365.report([str(tmp_path / "mine")])


def test_a_hub_refusal_of_the_push_is_one_line(tmp_path):
    import httpx
    from huggingface_hub.errors import HfHubHTTPError

    class Refusing(HubRepo):
        def upload_folder(self, **kwargs):
            response = httpx.Response(403, request=httpx.Request("POST", "https://hf.co/x"))
            raise HfHubHTTPError("403 Forbidden: you cannot write to org/name",
                                 response=response)

    rep = general365.report(alpha_run(tmp_path), bootstrap=200)
    files = hub.write_folder(rep.runs, str(tmp_path / "results"))
    with pytest.raises(UserError, match="upload to org/name failed: 403 Forbidden"):
        hub.push_folder(str(tmp_path / "results"), "org/name", files=files,
                        api=Refusing(tmp_path / "repo"))


def test_one_name_for_a_results_folder_of_several_models_is_refused(tmp_path, capsys):
    # It would merge their rows into one model and fail on the first duplicate with a message
    # that names the folder twice; a folder of one model takes the name.
    graded = [alpha_run(tmp_path), write_jsonl(str(tmp_path / "mixed.jsonl"), mixed_rows())]
    runs = general365.report(graded, bootstrap=200, published="none").runs
    several, one = tmp_path / "several", tmp_path / "one"
    hub.write_folder(runs, str(several))
    hub.write_folder(runs[:1], str(one))
    common = ["--bootstrap", "200", "--published", "none"]
    assert main(["report", str(several), "--name", "X", "--out", str(tmp_path / "r"),
                 *common]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"--name 'X' for {several}: that results folder holds {len(runs)} models" in err
    assert not (tmp_path / "r").exists()
    assert main(["report", str(one), "--name", "X", "--out", str(tmp_path / "r1"), *common]) == 0
    report = json.loads((tmp_path / "r1" / "report.json").read_text())
    assert [m["name"] for m in report["models"]] == ["X"]
