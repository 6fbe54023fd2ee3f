"""Bad input to the dataset layer: each is one line naming the file (line, key), exit 2, no
traceback, nothing written; and --out is never a folder the build must not replace."""

import json
import os
import stat
import subprocess
import sys

import pytest

import general365
from general365.cli import main
from general365.data.hub import build_folder
from general365.data.linkage import read_linkage_file
from general365.data.official import import_source
from general365.data.sample import load_sample
from general365.errors import DataError, UserError
from test_data_official import OFFICIAL, write_jsonl


def run(capsys, *argv):
    code = main(["dataset", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def one_error(capsys, *argv):
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert len(err.splitlines()) == 1, err
    assert err.startswith("general365 dataset: error: ")
    return err


def tree(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# --- 1. a source with no rows ----------------------------------------------------------


@pytest.mark.parametrize("name,content", [("empty.jsonl", ""), ("blank.jsonl", "\n  \n\n"),
                                          ("empty.json", "[]"), ("data.json", '{"data": []}')])
def test_a_source_with_no_rows_is_refused(capsys, tmp_path, name, content):
    src = tmp_path / name
    src.write_text(content)
    err = one_error(capsys, "validate", "--source", src)
    assert f"{src}: no rows (split 'public'); expected at least one problem" in err
    err = one_error(capsys, "build", "--source", src, "--out", tmp_path / "hub")
    assert "no rows" in err
    assert tree(tmp_path) == [name]


def test_build_folder_refuses_an_empty_split(tmp_path):
    with pytest.raises(UserError, match="split 'test' has no rows"):
        build_folder(tmp_path / "hub", {"public": load_sample()[:4], "test": []},
                     source="sample")
    with pytest.raises(UserError, match="no split to write"):
        build_folder(tmp_path / "hub", {}, source="sample")
    assert tree(tmp_path) == []


# --- 2. not UTF-8: file and line -------------------------------------------------------


def test_a_bad_byte_is_named_by_line_and_column(capsys, tmp_path):
    path = tmp_path / "g.jsonl"
    lines = [json.dumps(r).encode() for r in OFFICIAL[:2]]
    lines.append(b'{"id": "c", "q\xe9": 1}')  # Latin-1, not UTF-8
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(DataError) as info:
        import_source(str(path))
    assert info.value.line == 3
    assert str(info.value) == f"{path}:3: not UTF-8 text (byte 0xe9 at column 15); expected UTF-8 text"
    err = one_error(capsys, "validate", "--source", path)
    assert f"{path}:3: not UTF-8 text" in err and "byte 0xe9 at column 15" in err


def test_a_bad_byte_in_a_linkage_file_with_a_bom(tmp_path):
    path = tmp_path / "links.csv"
    path.write_bytes(b"\xef\xbb\xbfid,seed_id,variant\na,a,0\nb,a,1\xff\n")
    with pytest.raises(DataError, match=r"links\.csv:3: not UTF-8 text \(byte 0xff at column 6\)"):
        read_linkage_file(str(path))


def test_a_raw_line_separator_inside_a_json_string_is_not_a_new_line(tmp_path):
    # JSON allows U+2028 unescaped; str.splitlines() would cut the row there
    rows = [dict(OFFICIAL[0], question="first\u2028second"), dict(OFFICIAL[4], id="x",
                                                                   answer_type="essay")]
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                    encoding="utf-8")
    with pytest.raises(UserError) as info:
        import_source(str(path))
    assert f"{path}:2, id 'x', field 'answer_type'" in str(info.value)
    path.write_text(json.dumps(rows[0], ensure_ascii=False) + "\r\n", encoding="utf-8")
    assert import_source(str(path)).problems[0].question == "first\u2028second"


# --- 3. malformed dataset cards ---------------------------------------------------------


CARDS = [
    ("---\nconfigs: 5\n---\n", "README.md, field 'configs': not a list (got 5)"),
    ("---\nconfigs:\n- config_name: all\n  data_files: 5\n---\n",
     "README.md, field 'configs[0].data_files': bad data_files (got 5)"),
    ("---\nconfigs:\n- config_name: all\n  data_files:\n  - split: public\n    path: 7\n---\n",
     "README.md, field 'configs[0].data_files[0].path': bad path (got 7)"),
    ("---\nconfigs: [a, b]\n---\n", "README.md, field 'configs[0]': not a mapping (got 'a')"),
    ("---\nconfigs:\n- config_name: all\n---\n",
     "README.md, field 'configs[0].data_files': missing"),
    ("---\nconfigs:\n- config_name: all\n  data_files:\n  - {split: public, path: ../x.jsonl}\n"
     "---\n", "field 'configs[0].data_files[0].path': bad path (got '../x.jsonl')"),
    ("---\nconfigs:\n- config_name: [1]\n  data_files: d.jsonl\n---\n",
     "field 'configs[0].config_name': bad config_name"),
    ("---\npretty_name: x\nconfigs: [a:\n---\n", "README.md:3: bad YAML front matter ("),
    ("---\n- a\n- b\n---\n", "README.md:2: front matter is not a mapping"),
    ("---\nconfigs: []\n", "README.md:1: front matter never closed"),
]


def card_folder(tmp_path, card):
    folder = tmp_path / "ds"
    (folder / "data").mkdir(parents=True)
    write_jsonl(folder / "data" / "d.jsonl", OFFICIAL)
    (folder / "README.md").write_text(card)
    return folder


@pytest.mark.parametrize("card,message", CARDS)
def test_a_malformed_card_is_one_line_naming_the_key(capsys, tmp_path, card, message):
    folder = card_folder(tmp_path, card)
    assert message in one_error(capsys, "validate", "--source", folder)
    assert message in one_error(capsys, "push", folder, "--repo", "org/name")
    with pytest.raises(UserError, match="README.md"):
        general365.load_dataset(source=str(folder))


def test_a_card_without_front_matter(capsys, tmp_path):
    folder = card_folder(tmp_path, "# just prose\n")
    code, out, _ = run(capsys, "validate", "--source", folder)  # a plain folder of files
    assert code == 0 and "rows                8" in out
    err = one_error(capsys, "push", folder, "--repo", "org/name")
    assert f"{folder / 'README.md'}, field 'configs': no YAML front matter" in err


def test_the_installed_command_on_a_bad_card_prints_no_traceback(tmp_path):
    folder = card_folder(tmp_path, CARDS[0][0])
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    for argv in (["validate", "--source", str(folder)], ["push", str(folder), "--repo", "o/n"]):
        proc = subprocess.run([sys.executable, "-m", "general365.cli", "dataset", *argv],
                              capture_output=True, text=True, env=env)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert len(proc.stderr.splitlines()) == 1


# --- 4. --overwrite replaces only a folder the build wrote; normal permissions --------


def test_overwrite_never_deletes_a_users_folder(capsys, tmp_path):
    thesis = tmp_path / "thesis"
    thesis.mkdir()
    (thesis / "thesis.txt").write_text("years of work")
    err = one_error(capsys, "build", "--source", "sample", "--out", thesis, "--overwrite")
    assert "not a folder written by `dataset build` (it holds thesis.txt)" in err
    assert (thesis / "thesis.txt").read_text() == "years of work"
    assert tree(tmp_path) == ["thesis", "thesis/thesis.txt"]


def test_overwrite_refuses_a_look_alike(capsys, tmp_path):
    hub = tmp_path / "hub"
    assert run(capsys, "build", "--source", "sample", "--out", hub)[0] == 0
    (hub / "data" / "notes.md").write_text("mine")
    assert "(it holds data/notes.md)" in one_error(
        capsys, "build", "--source", "sample", "--out", hub, "--overwrite")
    (hub / "data" / "notes.md").unlink()
    readme = (hub / "README.md").read_text()
    (hub / "README.md").write_text("---\nconfigs:\n- config_name: mine\n  data_files: d\n"
                                   "---\n")
    assert "its README.md is not the card `dataset build` writes" in one_error(
        capsys, "build", "--source", "sample", "--out", hub, "--overwrite")
    (hub / "README.md").write_text(readme)
    assert run(capsys, "build", "--source", "sample", "--out", hub, "--overwrite")[0] == 0


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_the_folders_written_have_normal_permissions(tmp_path, umask):
    old = os.umask(umask)
    try:
        build_folder(tmp_path / "hub", {"public": load_sample()}, source="sample")
    finally:
        os.umask(old)
    for p in [tmp_path / "hub", *(tmp_path / "hub").rglob("*")]:
        want = (0o777 if p.is_dir() else 0o666) & ~umask
        assert stat.S_IMODE(p.stat().st_mode) == want, p


# --- 5. the push's advice when offline ---------------------------------------------------


def test_push_offline_says_how_to_push_not_how_to_build(capsys, tmp_path):
    hub = tmp_path / "hub"
    assert run(capsys, "build", "--source", "sample", "--out", hub)[0] == 0
    err = one_error(capsys, "push", hub, "--repo", "org/name")
    assert "cannot upload to org/name" in err and "HF_HUB_OFFLINE=1 is set" in err
    assert "unset HF_HUB_OFFLINE" in err
    assert "`general365 dataset push DIR --repo org/name`" in err
    assert "dataset build" not in err


# --- 6. and 7. --out: the current folder, trailing slashes, paths that cannot be written --


@pytest.mark.parametrize("out", [".", "./", "..", "../w"])
@pytest.mark.parametrize("filled", [False, True])
def test_out_cannot_be_the_current_folder(capsys, tmp_path, monkeypatch, out, filled):
    cwd = tmp_path / "w"
    cwd.mkdir()
    if filled:
        (cwd / "ds.jsonl").write_text("\n".join(json.dumps(r) for r in OFFICIAL))
    monkeypatch.chdir(cwd)
    before = tree(tmp_path)
    for extra in ([], ["--overwrite"]):
        err = one_error(capsys, "build", "--source", "sample", "--out", out, *extra)
        assert "that is the current folder (or holds it)" in err
    assert tree(tmp_path) == before


def test_a_trailing_slash_names_the_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "build", "--source", "sample", "--out", "hub/")
    assert code == 0, err
    assert tree(tmp_path / "hub")[0] == "README.md"
    assert [p.name for p in tmp_path.iterdir()] == ["hub"]


@pytest.mark.parametrize("under", ["ds.jsonl/x", "ds.jsonl/a/b"])
def test_out_under_a_regular_file(capsys, tmp_path, under):
    (tmp_path / "ds.jsonl").write_text("x")
    err = one_error(capsys, "build", "--source", "sample", "--out", tmp_path / under)
    assert f"cannot create it: {tmp_path / 'ds.jsonl'} is a file, not a folder" in err


def test_an_os_error_while_writing_is_one_line_and_leaves_nothing(capsys, tmp_path):
    out = tmp_path / "new" / ("x" * 250)  # the temp folder's name is over NAME_MAX
    err = one_error(capsys, "build", "--source", "sample", "--out", out)
    assert f"{out}: cannot write the folder (File name too long" in err
    assert tree(tmp_path) == []  # the parent it made is gone too


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_out_in_a_read_only_folder(capsys, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        err = one_error(capsys, "build", "--source", "sample", "--out", ro / "hub")
    finally:
        ro.chmod(0o755)
    assert f"cannot create it: no permission to write in {ro}" in err
