"""`report --report-to`: the report's results in TensorBoard, W&B, trackio and MLflow, read
back through each tracker's own library (TensorBoard's event reader, W&B's record protobuf
on its offline run files, trackio's local store, mlflow.search_runs on a file store).

One real `general365 report ... --report-to all` runs in a subprocess with no network at
all where the machine allows it (a network namespace of its own: `unshare -n`), else with
every proxy pointed at a closed port: nothing it does may need the internet."""

from __future__ import annotations

import csv
import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from general365.cli import main
from general365.errors import MissingExtra
from support.wandb_log import run_contents
from test_report_cases import small_case

pytest.importorskip("tensorboard")
pytest.importorskip("wandb")
pytest.importorskip("trackio")
pytest.importorskip("mlflow")

REPO = Path(__file__).resolve().parents[2]
MODELS = {"alpha", "beta", "gamma"}
# alpha over its two runs (test_report_cases.py): 4 of 9 graded right, 10 rows
ALPHA = {"accuracy": 4 / 9, "coverage": 9 / 10, "status/correct": 4, "status/ungraded": 1,
         "accuracy/number": 3 / 4, "accuracy/complex_constraints": 3 / 4, "n_runs": 2,
         "avg_at_n": 0.5, "pass_at_n": 0.6}


def _no_network() -> list[str]:
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n"]
    return []


def tracker_env(folder: Path) -> dict[str, str]:
    dead = "http://127.0.0.1:9"
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get(
                "PYTHONPATH", "")]),
            "WANDB_MODE": "offline", "WANDB_DIR": str(folder / "wandb-dir"),
            "WANDB_SILENT": "true", "TRACKIO_DIR": str(folder / "trackio"),
            "MLFLOW_TRACKING_URI": (folder / "mlruns").as_uri(),
            "MLFLOW_ALLOW_FILE_STORE": "true", "HF_HUB_OFFLINE": "1",
            "HF_HOME": str(folder / "hf-home"), "HTTP_PROXY": dead, "HTTPS_PROXY": dead,
            "http_proxy": dead, "https_proxy": dead, "NO_PROXY": "", "no_proxy": ""}


@pytest.fixture(scope="module")
def sent(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trackers")
    (folder / "wandb-dir").mkdir()
    paths = small_case(str(folder / "graded"))
    cmd = [*_no_network(), sys.executable, "-m", "general365", "report", *paths,
           "--out", str(folder / "report"), "--bootstrap", "200", "--report-to", "all"]
    r = subprocess.run(cmd, env=tracker_env(folder), capture_output=True, text=True,
                       timeout=600, cwd=folder)
    assert r.returncode == 0, r.stderr[-3000:]
    return folder, r.stdout


def test_each_tracker_is_named_in_the_summary(sent):
    _, stdout = sent
    for tracker in ("tensorboard", "wandb", "trackio", "mlflow"):
        assert f"sent:   {tracker}: 3 run(s)" in stdout, stdout


def test_tensorboard_events_read_back(sent):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    folder, _ = sent
    runs = sorted(glob.glob(str(folder / "report" / "tensorboard" / "*")))
    assert len(runs) == 3
    (alpha,) = [r for r in runs if os.path.basename(r).startswith("alpha-")]
    acc = EventAccumulator(alpha, size_guidance={"scalars": 0, "tensors": 0})
    acc.Reload()
    got = {tag: acc.Scalars(tag)[0].value for tag in acc.Tags()["scalars"]}
    for key, value in ALPHA.items():
        assert got[key] == pytest.approx(value, rel=1e-6), key
    # the per-sample rows: a text summary, and a CSV artifact (TensorBoard has no tables)
    assert "samples" in acc.Tags()["tensors"]
    text = acc.Tensors("samples")[0].tensor_proto.string_val[0].decode()
    assert text.startswith("| id | run | status | extracted | answer |")
    with open(os.path.join(alpha, "samples.csv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 10
    assert {(r["id"], r["run"], r["status"]) for r in rows} >= {("s1", "0", "correct"),
                                                                ("s3", "1", "ungraded")}
    assert rows[0]["output_tokens"] == "100" and rows[0]["answer"] == "1"


def test_wandb_offline_run_files_read_back(sent):
    folder, _ = sent
    files = glob.glob(str(folder / "wandb-dir" / "wandb" / "offline-run-*" / "run-*.wandb"))
    runs = {c["name"]: (c, f) for f in files for c in [run_contents(f)]}
    assert set(runs) == MODELS
    alpha, path = runs["alpha"]
    assert alpha["project"] == "general365"
    for key, value in ALPHA.items():
        assert alpha["history"][key] == pytest.approx(value), key
        assert alpha["summary"][key] == pytest.approx(value), key
    assert alpha["config"]["model"] == "alpha"
    assert alpha["history"]["samples/_type"] == "table-file"
    (table,) = glob.glob(os.path.join(os.path.dirname(path), "files", "media", "table",
                                      "samples_*.table.json"))
    with open(table, encoding="utf-8") as f:
        t = json.load(f)
    assert t["columns"] == ["id", "run", "status", "extracted", "answer", "output_tokens",
                            "reasoning_tokens"]
    assert len(t["data"]) == 10 and ["s1", 0, "correct", "1", "1", 100, 50] in t["data"]


def test_trackio_local_store_reads_back(sent, monkeypatch):
    from trackio import sqlite_storage

    folder, _ = sent
    monkeypatch.setattr(sqlite_storage, "TRACKIO_DIR", folder / "trackio")
    assert set(sqlite_storage.SQLiteStorage.get_runs("general365")) == MODELS
    (log,) = sqlite_storage.SQLiteStorage.get_logs("general365", "alpha")
    for key, value in ALPHA.items():
        assert log[key] == pytest.approx(value), key
    table = log["samples"]
    assert table["_type"] == "trackio.table" and len(table["_value"]) == 10
    assert {"id": "s1", "run": 0, "status": "correct", "extracted": "1", "answer": "1",
            "output_tokens": 100, "reasoning_tokens": 50} in table["_value"]


def test_mlflow_search_runs_on_the_file_store(sent, monkeypatch):
    import mlflow

    folder, _ = sent
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    mlflow.set_tracking_uri((folder / "mlruns").as_uri())
    try:
        df = mlflow.search_runs(experiment_names=["general365"])
        assert set(df["tags.mlflow.runName"]) == MODELS
        alpha = df[df["tags.mlflow.runName"] == "alpha"].iloc[0]
        for key, value in ALPHA.items():   # "/" is "." in MLflow (its file store's paths)
            assert alpha[f"metrics.{key.replace('/', '.')}"] == pytest.approx(value), key
        assert alpha["params.model"] == "alpha"
        table = mlflow.artifacts.load_dict(f"runs:/{alpha['run_id']}/samples.json")
        assert table["columns"][:3] == ["id", "run", "status"] and len(table["data"]) == 10
        assert ["s1", 0, "correct", "1", "1", 100, 50] in table["data"]
    finally:
        mlflow.set_tracking_uri(None)


# --- refused before any work --------------------------------------------------------


@pytest.mark.parametrize("value, needle", [
    ("tensorbord", "--report-to 'tensorbord': expected a comma-separated list of "
                   "tensorboard, wandb, trackio, mlflow, or all, or none"),
    ("wandb,none", "--report-to none cannot be given with a tracker"),
    ("", "--report-to '': expected"),
])
def test_a_bad_tracker_name_is_one_line_and_nothing_is_written(tmp_path, capsys, value,
                                                               needle):
    paths = small_case(str(tmp_path / "graded"))
    code = main(["report", *paths, "--out", str(tmp_path / "r"), "--report-to", value])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and err.count("\n") == 1, err
    assert not (tmp_path / "r").exists()


def test_a_missing_tracker_names_its_extra_before_any_work(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)
    paths = small_case(str(tmp_path / "graded"))
    code = main(["report", *paths, "--out", str(tmp_path / "r"), "--report-to",
                 "tensorboard,wandb"])
    err = capsys.readouterr().err
    assert code == 2
    assert ("report needs the wandb extra (wandb is not installed); install with: "
            "pip install 'general365[wandb]'") in err
    assert not (tmp_path / "r").exists()
    with pytest.raises(MissingExtra):
        import general365

        general365.report(paths, str(tmp_path / "r"), report_to=["wandb"])


def test_logging_dir_without_tensorboard_is_refused(tmp_path, capsys):
    paths = small_case(str(tmp_path / "graded"))
    code = main(["report", *paths, "--out", str(tmp_path / "r"), "--logging-dir",
                 str(tmp_path / "tb")])
    err = capsys.readouterr().err
    assert code == 2 and "--logging-dir is where TensorBoard writes; give it with " \
                         "--report-to tensorboard" in err, err
    assert not (tmp_path / "r").exists()
