"""`general365 report` into an existing folder is all or nothing (issue 13, items 6 and 12):
a path in the way changes nothing; a kill at any step leaves the old report or the new one;
what a killed report left is swept by the next; SIGTERM cleans up; other files stay; a
report of models graded on different problems says so."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from general365.cli import main
from general365.fsutil import exchange


def graded_rows(model: str, n: int, correct_every: int) -> list[dict]:
    return [{"id": f"p{i:03d}", "run": 0, "model": model, "status": "correct"
             if i % correct_every == 0 else "incorrect", "correct": i % correct_every == 0,
             "method": "rule", "answer_type": "number", "categories": ["Complex Constraints"],
             "output_tokens": 100 + i} for i in range(n)]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def snapshot(folder: Path) -> dict[str, bytes] | None:
    if not folder.is_dir():
        return None
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else b"<dir>")
            for p in sorted(folder.rglob("*"))}


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def report_argv(graded: Path, out: Path) -> list[str]:
    return ["report", str(graded), "--out", str(out), "--published", "none",
            "--bootstrap", "200"]


@pytest.fixture
def old_report(tmp_path) -> tuple[Path, Path]:
    """A report folder written by a report of model `old`, with a user's own files."""
    parent = tmp_path / "reports"
    parent.mkdir()
    out = parent / "report"
    graded = write_jsonl(tmp_path / "old.jsonl", graded_rows("old", 20, 2))
    assert main(report_argv(graded, out)) == 0
    (out / "notes.txt").write_text("my notes")
    (out / "tables" / "mine.csv").write_text("a,b\n")
    return parent, out


@pytest.mark.parametrize("in_the_way", ["figures", "tables", "index.html"])
def test_a_path_in_the_way_changes_nothing(tmp_path, capsys, old_report, in_the_way):
    parent, out = old_report
    target = out / in_the_way
    if target.is_dir():
        shutil.rmtree(target)
        target.write_text("a file where the report writes a folder")
    else:
        target.unlink()
        target.mkdir()
    before = snapshot(out)
    capsys.readouterr()
    new = write_jsonl(tmp_path / "new.jsonl", graded_rows("new", 20, 3))
    code = main(report_argv(new, out))
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.startswith("general365 report: error:")]
    assert len(lines) == 1 and f"{target}: is a " in lines[0] and "nothing was changed" in lines[0]
    assert snapshot(out) == before
    assert leftovers(parent) == []


def test_the_users_files_are_kept_as_they_are(tmp_path, capsys, old_report):
    parent, out = old_report
    inode = (out / "notes.txt").stat().st_ino
    new = write_jsonl(tmp_path / "new.jsonl", graded_rows("new", 20, 3))
    assert main(report_argv(new, out)) == 0
    assert (out / "notes.txt").read_text() == "my notes"
    assert (out / "notes.txt").stat().st_ino == inode          # the same file, not a copy
    assert (out / "tables" / "mine.csv").read_text() == "a,b\n"
    assert json.loads((out / "report.json").read_text())["models"][0]["name"] == "new"
    assert leftovers(parent) == []


CHILD = r"""
import os, shutil, signal, sys
try:
    import general365.fsutil as fs
except ImportError:
    fs = None

kill_at, argv = int(sys.argv[1]), sys.argv[2:]
count = [0]

def counted(fn):
    # Only general365's own calls are steps (matplotlib's font cache renames too).
    def wrapper(*a, **kw):
        if sys._getframe(1).f_globals.get("__name__", "").startswith("general365"):
            count[0] += 1
            if count[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
        return fn(*a, **kw)
    return wrapper

for name in ("rename", "replace", "link", "unlink"):
    setattr(os, name, counted(getattr(os, name)))
shutil.rmtree = counted(shutil.rmtree)
if fs is not None:
    fs.exchange = counted(fs.exchange)

from general365.cli import main
sys.exit(main(argv))
"""


@pytest.mark.slow
def test_a_report_killed_at_every_step_leaves_old_or_new_and_the_rerun_cleans_up(
        tmp_path, capsys, old_report):
    parent, out = old_report
    a, b = tmp_path / "probe-a", tmp_path / "probe-b"
    a.mkdir(), b.mkdir()
    if not exchange(str(a), str(b)):
        pytest.skip("this filesystem cannot exchange two paths")
    old = snapshot(out)
    pristine = tmp_path / "pristine"
    shutil.copytree(out, pristine)     # copy2: the old report's files keep their mtimes
    new_graded = write_jsonl(tmp_path / "new.jsonl", graded_rows("new", 20, 3))
    argv = report_argv(new_graded, out)
    users = {"notes.txt", "tables/mine.csv"}

    finished = False
    for k in range(1, 60):
        if snapshot(out) != old:   # back to the old report for the next kill
            shutil.rmtree(out)
            shutil.copytree(pristine, out)
        time.sleep(0.02)
        started = time.time()
        child = subprocess.run([sys.executable, "-c", CHILD, str(k), *argv],
                               capture_output=True, text=True, timeout=300)
        if child.returncode == 0:
            finished = True
            break
        assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
        now = snapshot(out)
        assert now is not None, f"killed before step {k}: no report folder"
        assert now["notes.txt"] == b"my notes" and now["tables/mine.csv"] == b"a,b\n"
        # The report's own files are all the old ones (as they were) or all new ones.
        owned = [p for p in out.rglob("*") if p.is_file()
                 and str(p.relative_to(out)) not in users]
        stale = [p for p in owned if p.stat().st_mtime < started]
        if stale:
            assert len(stale) == len(owned) and now == old, f"killed before step {k}: a mix"
        else:
            assert json.loads(now["report.json"])["models"][0]["name"] == "new"
        assert main(argv) == 0, capsys.readouterr().err[-3000:]   # the same command again
        capsys.readouterr()
        assert leftovers(parent) == [], (k, leftovers(parent))
        assert json.loads((out / "report.json").read_text())["models"][0]["name"] == "new"
    assert finished and k > 2
    assert leftovers(parent) == []


def test_sigterm_mid_report_leaves_nothing_behind(tmp_path, old_report):
    parent, out = old_report
    before = snapshot(out)
    # Big enough that building it takes a while (figures, bootstrap).
    big = write_jsonl(tmp_path / "big.jsonl", graded_rows("big", 900, 3))
    exe = Path(sys.executable).with_name("general365")
    head = [str(exe)] if exe.exists() else [sys.executable, "-m", "general365.cli"]
    proc = subprocess.Popen([*head, "report", str(big), "--out", str(out), "--published",
                             "none", "--bootstrap", "20000"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None \
                and not [n for n in leftovers(parent) if n.startswith(".general365-report")]:
            time.sleep(0.01)
        assert proc.poll() is None, "the report ended before it could be stopped"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err[-2000:]
    assert "terminated" in err and "Traceback" not in err
    assert leftovers(parent) == []
    assert snapshot(out) == before


def test_models_graded_on_different_problems_are_ranked_with_a_warning(tmp_path, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", graded_rows("model-a", 30, 2))
    b = write_jsonl(tmp_path / "b.jsonl", graded_rows("model-b", 20, 2))
    out = tmp_path / "report"
    assert main(["report", str(a), str(b), "--out", str(out), "--published", "none",
                 "--bootstrap", "200"]) == 0
    printed = capsys.readouterr().out
    warning = "graded on different problem sets (model-a 30, model-b 20 problems; 20 in common)"
    assert warning in printed
    assert warning in (out / "report.md").read_text()
    assert any(warning in n for n in json.loads((out / "report.json").read_text())
               ["settings"]["notes"])
    assert warning in (out / "index.html").read_text()
    # The same problems: no such warning.
    c = write_jsonl(tmp_path / "c.jsonl", graded_rows("model-c", 30, 3))
    assert main(["report", str(a), str(c), "--out", str(tmp_path / "r2"), "--published",
                 "none", "--bootstrap", "200"]) == 0
    assert "different problem sets" not in capsys.readouterr().out


def test_a_report_into_the_current_folder_or_a_folder_of_the_users_moves_files_in(
        tmp_path, capsys, monkeypatch):
    # Never swapped whole: a shell in the folder would be left in a deleted one, and a
    # folder with sub-folders of the user's own is not relinked. The files are moved in,
    # after the same checks.
    home = tmp_path / "home"
    (home / "projects").mkdir(parents=True)
    (home / "projects" / "keep.txt").write_text("mine")
    inode = home.stat().st_ino
    graded = write_jsonl(tmp_path / "g.jsonl", graded_rows("m", 20, 2))
    assert main(report_argv(graded, home)) == 0
    assert home.stat().st_ino == inode and (home / "projects" / "keep.txt").read_text() == "mine"
    assert (home / "index.html").is_file() and (home / "figures").is_dir()
    monkeypatch.chdir(home / "projects")
    assert main(report_argv(graded, home)) == 0 and home.stat().st_ino == inode
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert main(report_argv(graded, Path("."))) == 0
    assert here.stat().st_ino == os.stat(".").st_ino and (here / "report.json").is_file()
    (here / "figures").rename(here / "figs")
    (here / "figures").write_text("in the way")
    capsys.readouterr()
    assert main(report_argv(graded, Path("."))) == 2
    assert "is a file where the report writes a folder" in capsys.readouterr().err
    assert (here / "figures").read_text() == "in the way"
    assert leftovers(tmp_path) == []
