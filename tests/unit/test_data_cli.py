"""`general365 dataset build|validate|push`: exit codes, summaries, one-line errors."""

import os
import subprocess
import sys

import datasets
import pytest

from general365.cli import main
from general365.data.readers import read_front_matter
from general365.data.sample import load_sample
from test_data_official import OFFICIAL, write_jsonl, write_parquet


def run(capsys, *argv):
    code = main(["dataset", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_prints_a_summary(capsys, tmp_path):
    code, out, err = run(capsys, "validate", "--source",
                         str(write_parquet(tmp_path / "g.parquet", OFFICIAL)))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].endswith("g.parquet: OK")
    fields = {ln.split()[0]: ln.split(None, 1)[1] for ln in lines[1:] if ln.startswith("  ")
              and not ln.startswith("    ")}
    assert fields["rows"] == "8" and fields["seeds"] == "2" and fields["variants"] == "6"
    assert "interval 2" in fields["answer_types"] and "text 1" in fields["answer_types"]
    assert "id-pattern 6" in fields["linkage"]
    assert fields["problems"].startswith("0 bad rows")
    assert "carry no categories" in out


def test_validate_the_sample(capsys):
    code, out, _ = run(capsys, "validate", "--source", "sample")
    assert code == 0
    assert f"rows                {len(load_sample())}" in out


def test_validate_exits_2_with_one_line_per_bad_row(capsys, tmp_path):
    rows = OFFICIAL + [dict(OFFICIAL[0], id="c", answer="many"),
                       dict(OFFICIAL[0], id="d", float_round="1.5")]
    path = write_jsonl(tmp_path / "g.jsonl", rows)
    code, out, err = run(capsys, "validate", "--source", str(path))
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert lines == [
        "general365 dataset: error: 2 bad row(s):",
        lines[1], lines[2]]
    assert lines[1].startswith(f"{path}:9, id 'c', field 'answer': gold answer does not parse")
    assert lines[2].startswith(f"{path}:10, id 'd', field 'float_round': bad float_round")


def test_build_then_datasets_reads_it(capsys, tmp_path):
    out_dir = tmp_path / "hub"
    code, out, err = run(capsys, "build", "--source", "sample", "--out", str(out_dir))
    assert code == 0, err
    assert f"wrote {out_dir}" in out and "data/seed/public-00000-of-00001.parquet" in out
    assert f"next: general365 dataset push {out_dir} --repo ORG/NAME" in out
    ds = datasets.load_dataset(str(out_dir), split="public", cache_dir=str(tmp_path / "c"))
    assert len(ds) == len(load_sample())
    capsys.readouterr()  # datasets' own progress bars
    code, _, err = run(capsys, "build", "--source", "sample", "--out", str(out_dir))
    assert code == 2 and "folder is not empty" in err and len(err.splitlines()) == 1
    code, _, _ = run(capsys, "build", "--source", "sample", "--out", str(out_dir),
                     "--overwrite")
    assert code == 0


def test_build_a_test_split_and_add_it_next_to_public(capsys, tmp_path):
    out_dir = tmp_path / "hub"
    full = write_jsonl(tmp_path / "full.jsonl", OFFICIAL)
    assert run(capsys, "build", "--source", str(write_jsonl(tmp_path / "pub.jsonl",
                                                            OFFICIAL[:4])),
               "--out", str(out_dir))[0] == 0
    code, out, err = run(capsys, "build", "--source", str(full), "--split", "test",
                         "--out", str(out_dir), "--add", "--license", "other")
    assert code == 0, err
    configs = {c["config_name"]: c for c in read_front_matter(out_dir / "README.md")["configs"]}
    assert [d["split"] for d in configs["all"]["data_files"]] == ["public", "test"]
    cache = str(tmp_path / "c")
    assert len(datasets.load_dataset(str(out_dir), split="public", cache_dir=cache)) == 4
    assert len(datasets.load_dataset(str(out_dir), split="test", cache_dir=cache)) == 8


def test_build_with_a_linkage_file(capsys, tmp_path):
    rows = [dict(r, id=f"q{i}") for i, r in enumerate(OFFICIAL[:2])]
    links = tmp_path / "links.csv"
    links.write_text("id,seed_id,variant,categories\nq0,q0,0,Optimal Strategy\nq1,q0,1,\n")
    out_dir = tmp_path / "hub"
    code, out, err = run(capsys, "build", "--source", str(write_jsonl(tmp_path / "g.jsonl", rows)),
                         "--linkage", str(links), "--out", str(out_dir))
    assert code == 0, err
    assert "file 2" in out
    ds = datasets.load_dataset(str(out_dir), "variant", split="public",
                               cache_dir=str(tmp_path / "c"))
    assert ds[0]["seed_id"] == "q0" and ds[0]["categories"] == ["Optimal Strategy"]


def test_a_bad_source_writes_nothing(capsys, tmp_path):
    bad = write_jsonl(tmp_path / "g.jsonl", [dict(OFFICIAL[0], answer_type="essay")])
    code, _, err = run(capsys, "build", "--source", str(bad), "--out", str(tmp_path / "hub"))
    assert code == 2 and "unknown AnswerType" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.jsonl"]


@pytest.mark.parametrize("argv,message", [
    (["validate", "--source", "nowhere/at/all.jsonl"], "no such file or folder"),
    (["validate", "--source", "meituan-longcat/General365_Public"], "HF_HUB_OFFLINE=1 is set"),
    (["build", "--source", "sample", "--split", "test", "--out", "{tmp}/x"],
     "only the 'public' split"),
    (["build", "--source", "sample", "--out", "{tmp}/x", "--add"], "--add:"),
    (["push", "{tmp}/none", "--repo", "org/name"], "no such folder"),
    (["push", "{tmp}", "--repo", "org"], "expected ORG/NAME"),
    (["push", "{tmp}", "--repo", "org/name", "--token-env", "G365_UNSET_TOKEN"],
     "G365_UNSET_TOKEN: that environment variable is not set"),
])
def test_user_errors_are_one_line(capsys, tmp_path, argv, message):
    code, out, err = run(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert code == 2
    assert len(err.splitlines()) == 1 and message in err
    assert err.startswith("general365 dataset: error: ")


def test_push_offline_is_refused_after_the_folder_check(capsys, tmp_path):
    out_dir = tmp_path / "hub"
    assert run(capsys, "build", "--source", "sample", "--out", str(out_dir))[0] == 0
    code, _, err = run(capsys, "push", str(out_dir), "--repo", "org/name")
    assert code == 2 and "HF_HUB_OFFLINE=1 is set" in err


def test_the_installed_command_prints_no_traceback(tmp_path):
    bad = write_jsonl(tmp_path / "g.jsonl", [dict(OFFICIAL[0], float_round="x")])
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    proc = subprocess.run([sys.executable, "-m", "general365.cli", "dataset", "validate",
                           "--source", str(bad)], capture_output=True, text=True, env=env)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[1].startswith(f"{bad}:1, id 'a', field 'float_round'")
