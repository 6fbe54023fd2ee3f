"""Hostile pass 3 on the harness surfaces of issue 20 (`--engine-arg`, `report --hub-folder`
and the results folders it writes and reads back, the publish options): one test per
attack, named after what it attacks. Real parts: the tiny model's config and
from_pretrained, real FIFOs and device nodes, a real full tmpfs, parquet files written by
pyarrow."""

from __future__ import annotations

import glob
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import general365
from general365.cli import main
from general365.errors import DataError, OptionError
from general365.runners.options import typed_engine_args
from test_disk_full import small_disk  # noqa: F401 - the small tmpfs fixture
from test_report_cases import alpha_rows, write_jsonl
from test_report_hub import alpha_run

DEEP = "[" * 30000 + "]" * 30000


def one_line(err: str, verb: str) -> str:
    assert "Traceback" not in err, err[-3000:]
    lines = [ln for ln in err.splitlines() if ln.startswith(f"general365 {verb}: error:")]
    assert len(lines) == 1, err[-3000:]
    return lines[0]


# --- --engine-arg -----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999", "[1, NaN]"])
def test_engine_arg_non_finite_number_never_reaches_run_json(tmp_path, tiny_model_dir, capsys,
                                                             value):
    with pytest.raises(OptionError, match="max_memory=.*NaN or an infinite number"):
        typed_engine_args("transformers", [f"max_memory={value}"], model=str(tiny_model_dir))
    with pytest.raises(OptionError, match="rms_norm_eps=.*NaN or an infinite number"):
        typed_engine_args("transformers", [f"rms_norm_eps={value}"] if "[" not in value
                          else ["rms_norm_eps=nan"], model=str(tiny_model_dir))
    out = tmp_path / "run"
    code = main(["generate", "--model", str(tiny_model_dir), "--backend", "transformers",
                 "--dataset", "sample", "--limit", "1", "--max-tokens", "2", "--out", str(out),
                 "--engine-arg", f"max_memory={value}"])
    assert code == 2
    assert "NaN or an infinite number" in one_line(capsys.readouterr().err, "generate")
    assert not out.exists()


@pytest.mark.parametrize("pair", ["cpu_offload_gb=nan", "cpu_offload_gb=inf",
                                  'hf_overrides={"rope_theta": NaN}'])
def test_engine_arg_vllm_non_finite_value_is_refused(pair):
    pytest.importorskip("vllm")
    with pytest.raises(OptionError, match="NaN or an infinite number"):
        typed_engine_args("vllm", [pair], model="m")


def test_engine_arg_nested_too_deeply_is_one_line(tmp_path, tiny_model_dir, capsys):
    with pytest.raises(OptionError, match="max_memory=.*nested too deeply"):
        typed_engine_args("transformers", [f"max_memory={DEEP}"], model=str(tiny_model_dir))
    with pytest.raises(OptionError, match="max_memory=.*nested too deeply"):   # from Python
        nested: list = []
        for _ in range(30000):
            nested = [nested]
        typed_engine_args("transformers", {"max_memory": nested}, model=str(tiny_model_dir))
    out = tmp_path / "run"
    code = main(["generate", "--model", str(tiny_model_dir), "--backend", "transformers",
                 "--dataset", "sample", "--limit", "1", "--out", str(out),
                 "--engine-arg", f"max_memory={DEEP}"])
    assert code == 2 and "nested too deeply" in one_line(capsys.readouterr().err, "generate")
    assert not out.exists()


def test_engine_arg_loading_boolean_no_means_false(tiny_model_dir):
    given = ["trust_remote_code=no", "local_files_only=off", "use_safetensors=no",
             "force_download=0", "ignore_mismatched_sizes=false"]
    typed = typed_engine_args("transformers", given, model=str(tiny_model_dir))
    assert typed == {"trust_remote_code": False, "local_files_only": False,
                     "use_safetensors": False, "force_download": False,
                     "ignore_mismatched_sizes": False}
    assert typed_engine_args("transformers", ["trust_remote_code=yes"],
                             model=str(tiny_model_dir)) == {"trust_remote_code": True}
    for bad in ("trust_remote_code=maybe", "local_files_only=2", "use_safetensors=[1]"):
        with pytest.raises(OptionError, match="expected true or false"):
            typed_engine_args("transformers", [bad], model=str(tiny_model_dir))
    with pytest.raises(OptionError, match="expected true or false"):   # from Python too
        typed_engine_args("transformers", {"trust_remote_code": 1}, model=str(tiny_model_dir))


@pytest.mark.parametrize("pair, needle", [
    ("output_loading_info=true", "return a tuple"),
    ("vocab_size=7", "architecture"),
    ("hidden_size=8", "architecture"),
    ("num_hidden_layers=5", "architecture"),
    ("max_position_embeddings=64", "architecture"),
    # not in the named list: refused because the weights would change shape or name
    ("mlp_bias=true", "changes the shapes of the model's weights"),
    ("attention_bias=true", "changes the shapes of the model's weights"),
])
def test_engine_arg_that_changes_what_loads_is_refused_before_loading(tmp_path, tiny_model_dir,
                                                                      capsys, pair, needle):
    with pytest.raises(OptionError, match=needle):
        typed_engine_args("transformers", [pair], model=str(tiny_model_dir))
    out = tmp_path / "run"
    code = main(["generate", "--model", str(tiny_model_dir), "--backend", "transformers",
                 "--dataset", "sample", "--limit", "1", "--max-tokens", "2", "--out", str(out),
                 "--engine-arg", pair])
    assert code == 2 and needle in one_line(capsys.readouterr().err, "generate")
    assert not out.exists()


# --- empty paths and publish options ----------------------------------------------------


def test_empty_hub_folder_never_writes_into_the_current_folder(tmp_path, capsys, monkeypatch):
    graded = alpha_run(tmp_path)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "README.md").write_text("# precious\n")
    monkeypatch.chdir(proj)
    for flags in (["--hub-folder", ""], ["--hub-folder", "  "],
                  ["--report-to", "tensorboard", "--logging-dir", ""], ["--out", " "]):
        argv = ["report", graded, *(["--out", str(tmp_path / "rep")]
                                    if "--out" not in flags else []), *flags]
        code = main(argv)
        assert code == 2
        assert "is empty; expected a path" in one_line(capsys.readouterr().err, "report")
    assert sorted(os.listdir(proj)) == ["README.md"]
    assert (proj / "README.md").read_text() == "# precious\n"
    assert not (tmp_path / "rep").exists()
    with pytest.raises(OptionError, match="hub_folder '' is empty"):
        general365.run("m", backend="openai", dataset="sample", out=str(tmp_path / "r"),
                       hub_folder="")
    assert not (tmp_path / "r").exists()


def test_public_or_token_env_without_push_to_hub_is_refused(tmp_path, capsys):
    graded = alpha_run(tmp_path)
    for flags, needle in ((["--public"], "--public is for the repository --push-to-hub"),
                          (["--token-env", "MY_TOKEN"], "--token-env is the Hub token for "
                                                        "--push-to-hub")):
        code = main(["report", graded, "--out", str(tmp_path / "rep"), *flags])
        assert code == 2 and needle in one_line(capsys.readouterr().err, "report")
    assert not (tmp_path / "rep").exists()
    with pytest.raises(OptionError, match="^public is for"):
        general365.report(graded, public=True)


# --- the results folder writer ----------------------------------------------------------


def _written(tmp_path) -> tuple[str, Path]:
    graded = alpha_run(tmp_path)
    folder = tmp_path / "hub"
    general365.report(graded, bootstrap=200, hub_folder=str(folder))
    return graded, folder


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_hub_folder_never_replaces_a_fifo_or_device_at_a_file_name(tmp_path, capsys, kind):
    graded, folder = _written(tmp_path)
    sub = "results" if kind == "fifo" else "details"
    target = sorted(glob.glob(str(folder / "data" / sub / "*.parquet")))[0]
    os.unlink(target)
    if kind == "fifo":
        os.mkfifo(target)
    else:
        try:
            os.mknod(target, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("mknod of a device needs root")
    code = main(["report", graded, "--out", str(tmp_path / "rep"), "--hub-folder", str(folder)])
    assert code == 2
    line = one_line(capsys.readouterr().err, "report")
    assert target in line and "not a regular file" in line and ".tmp" not in line
    mode = os.lstat(target).st_mode
    assert stat.S_ISFIFO(mode) if kind == "fifo" else stat.S_ISCHR(mode)


def test_hub_folder_temp_name_cannot_be_planted(tmp_path):
    graded, folder = _written(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    os.symlink(str(victim), folder / "README.md.tmp")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), *sys.path])}
    done = subprocess.run([sys.executable, "-m", "general365", "report", graded, "--out",
                           str(tmp_path / "rep"), "--hub-folder", str(folder)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert victim.read_text() == "mine\n"
    assert not os.path.islink(folder / "README.md")
    # a FIFO at that name: the old writer opened it and waited forever for a reader
    os.unlink(folder / "README.md.tmp")
    os.mkfifo(folder / "README.md.tmp")
    try:
        done = subprocess.run([sys.executable, "-m", "general365", "report", graded, "--out",
                               str(tmp_path / "rep2"), "--hub-folder", str(folder)],
                              capture_output=True, text=True, env=env, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("report hung on a FIFO at the hub folder's temporary name")
    assert done.returncode == 0, done.stderr[-2000:]


def test_hub_folder_on_a_full_disk_never_leaves_results_without_details(
        tmp_path, small_disk, capsys):  # noqa: F811 - the fixture imported above
    # a model whose details are larger than its results row: the disk fills within a pair
    rows = [r | {"id": f"{r['id']}-{i}"} for i in range(60) for r in alpha_rows()]
    graded = write_jsonl(str(tmp_path / "big.jsonl"), rows)
    folder = small_disk / "hub"
    filler = small_disk / "filler"
    free = os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize
    filler.write_bytes(b"x" * max(0, free - 24 * 1024))
    code = main(["report", graded, "--out", str(tmp_path / "rep"), "--hub-folder", str(folder)])
    err = capsys.readouterr().err
    assert code == 2
    line = one_line(err, "report")
    assert "cannot write the results folder" in line and ".tmp" not in line, line
    for results in glob.glob(str(folder / "data" / "results" / "*.parquet")):
        assert os.path.isfile(results.replace("/results/", "/details/")), results
    assert not [n for _, _, names in os.walk(small_disk) for n in names if n.endswith(".tmp")]


# --- hostile results folders given to report ---------------------------------------------


def _hostile(tmp_path, config: str, column: str, value) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    _, folder = _written(tmp_path)
    for f in glob.glob(str(folder / "data" / config / "*.parquet")):
        rows = [r | {column: value} for r in pq.read_table(f).to_pylist()]
        pq.write_table(pa.Table.from_pylist(rows), f)
    return folder


@pytest.mark.parametrize("config, column, value, needle", [
    ("results", "run_json", "[1, 2, 3]", "run_json is not a JSON object"),
    ("results", "run_json", '"just a string"', "run_json is not a JSON object"),
    ("results", "run_json", "[" * 100000 + "]" * 100000, "nested too deeply"),
    ("details", "sampling", "[" * 100000 + "]" * 100000, "nested too deeply"),
    ("results", "model", ["a", "b"], "model is not a string"),
])
def test_report_of_a_hostile_results_folder_is_one_line(tmp_path, capsys, config, column,
                                                        value, needle):
    folder = _hostile(tmp_path, config, column, value)
    with pytest.raises(DataError, match=needle) as info:
        general365.report(str(folder))
    assert info.value.field == column and f"data/{config}/" in info.value.path
    code = main(["report", str(folder), "--out", str(tmp_path / "rep")])
    assert code == 2
    line = one_line(capsys.readouterr().err, "report")
    assert needle in line and f"field '{column}'" in line and ".parquet:1" in line
    assert not (tmp_path / "rep").exists()
