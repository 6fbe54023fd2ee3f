"""Issue 19, items 1 and 10: how general365 writes files, attacked.

- `--out` onto a device node or a FIFO: refused in one line (exit 2), the node left as it
  was, for every verb that writes a file (grade, expand select, expand review, cfe
  variables). The nodes are real (os.mkfifo, os.mknod: root only; skipped elsewhere).
- A kill mid-write: the folder holds the old outputs or the new ones, never a mix, and the
  rerun removes what the killed run left (audit sample, analyze).
- A full disk (a real small tmpfs, as in test_disk_full.py): one line naming the path,
  exit 2, nothing half-written (audit sample, analyze, cfe variables).
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from general365.cli import main
from support.expansion import sample_families
from test_disk_full import one_error, small_disk  # noqa: F401  (a fixture)

NULL_DEVICE = os.makedev(1, 3)   # what /dev/null is: writing to it would be harmless


def write_jsonl(path: Path, rows) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return str(path)


def make_node(path: Path, kind: str) -> Path:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, NULL_DEVICE)
        except PermissionError as exc:
            pytest.skip(f"cannot make a character device here (needs root): {exc}")
    return path


def assert_untouched(path: Path, kind: str) -> None:
    st = os.lstat(path)
    if kind == "fifo":
        assert stat.S_ISFIFO(st.st_mode), "the FIFO was replaced"
    else:
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev == NULL_DEVICE, "the device was replaced"
    assert sorted(n for n in os.listdir(path.parent) if n.startswith(".")) == []


def refused(capsys, verb: str, path: Path) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err, err[-3000:]
    lines = [ln for ln in err.splitlines() if ln.startswith(f"general365 {verb}: error:")]
    assert len(lines) == 1, err
    assert str(path) in lines[0] and "not a regular file" in lines[0], lines[0]
    return lines[0]


KINDS = ["fifo", "device"]


# --- item 1: --out onto a device node or a FIFO -------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_grade_out_onto_a_device_or_fifo_is_refused(tmp_path, capsys, kind):
    src = write_jsonl(tmp_path / "r.jsonl", [
        {"id": f"p{i}", "run": 0, "response": f"\\boxed{{{i}}}", "answer": str(i),
         "answer_type": "number"} for i in range(3)])
    node = make_node(tmp_path / "out", kind)
    assert main(["grade", src, "--policy", "rule", "--out", str(node), "--no-progress",
                 "--workers", "1"]) == 2
    refused(capsys, "grade", node)
    assert_untouched(node, kind)


def test_grade_out_through_a_link_to_a_fifo_is_refused(tmp_path, capsys):
    src = write_jsonl(tmp_path / "r.jsonl", [
        {"id": "p0", "run": 0, "response": "\\boxed{0}", "answer": "0",
         "answer_type": "number"}])
    fifo = make_node(tmp_path / "pipe", "fifo")
    link = tmp_path / "graded.jsonl"
    link.symlink_to(fifo)
    assert main(["grade", src, "--policy", "rule", "--out", str(link), "--no-progress",
                 "--workers", "1"]) == 2
    refused(capsys, "grade", link)
    assert link.is_symlink() and stat.S_ISFIFO(os.stat(link).st_mode)


def _expansion_folder(tmp_path: Path) -> Path:
    from general365.expand.candidates import ExpansionCandidate
    from general365.expand.candidates import write_candidates

    fam = sample_families()["g365s-017"]
    seed = fam[0]
    folder = tmp_path / "exp"
    folder.mkdir()
    write_jsonl(folder / "seeds.jsonl", [seed.to_dict()])
    write_candidates(str(folder / "candidates.jsonl"), [
        ExpansionCandidate(seed_id=seed.id, candidate=0, model="m",
                           categories=[c.value for c in seed.categories],
                           fields={"question": fam[1].question, "reasoning": "r",
                                   "answer": fam[1].answer, "answer_type": "number",
                                   "float_round": fam[1].float_round, "change": "c"})])
    return folder


@pytest.mark.parametrize("kind", KINDS)
def test_expand_select_out_onto_a_device_or_fifo_is_refused(tmp_path, capsys, kind):
    folder = _expansion_folder(tmp_path)
    decisions = write_jsonl(tmp_path / "d.jsonl", [
        {"seed_id": "g365s-017", "candidate": 0, "decision": "accept"}])
    where = tmp_path / "sel"
    where.mkdir()
    node = make_node(where / "variants.jsonl", kind)
    assert main(["expand", "select", str(folder), "--decisions", decisions, "--out",
                 str(node), "--overwrite"]) == 2
    refused(capsys, "expand", node)
    assert_untouched(node, kind)
    assert os.listdir(where) == ["variants.jsonl"]


@pytest.mark.parametrize("kind", KINDS)
def test_expand_review_out_onto_a_device_or_fifo_is_refused(tmp_path, capsys, kind):
    folder = _expansion_folder(tmp_path)
    where = tmp_path / "page"
    where.mkdir()
    node = make_node(where / "review.html", kind)
    assert main(["expand", "review", str(folder), "--out", str(node)]) == 2
    refused(capsys, "expand", node)
    assert_untouched(node, kind)


def _cfe_graded(path: Path, rows: int = 1, pad: int = 0) -> str:
    from general365.schema import Response
    from general365.tasks.cfe.data import CFEProblem, Variable, VariableType
    from general365.tasks.cfe.grade import grade

    p = CFEProblem("q", "How long, and what colour?",
                   (Variable("length", VariableType.NUMERIC, "in m", "2.5"),
                    Variable("colour", VariableType.OTHER, "a colour", "red")))
    graded = grade([(Response("q", run, "work " * pad + "length = 2.5\ncolour = red",
                              model="m"), p) for run in range(rows)], policy="rule")
    return write_jsonl(path, [g.record() for g in graded])


@pytest.mark.parametrize("kind", KINDS)
def test_cfe_variables_out_onto_a_device_or_fifo_is_refused(tmp_path, capsys, kind):
    graded = _cfe_graded(tmp_path / "graded.jsonl")
    where = tmp_path / "vars"
    where.mkdir()
    node = make_node(where / "variables.jsonl", kind)
    assert main(["cfe", "variables", graded, "--out", str(node)]) == 2
    refused(capsys, "cfe", node)
    assert_untouched(node, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_a_run_folders_responses_jsonl_that_is_a_device_or_fifo_is_refused(tmp_path, kind):
    # The run store appends rather than replaces: opening a FIFO for writing would hang
    # until a reader came, and a device would swallow every record.
    run = tmp_path / "run"
    run.mkdir()
    node = make_node(run / "responses.jsonl", kind)
    code = ("import sys\nfrom general365.cli import main\nfrom general365.errors import "
            "UserError\nfrom general365.runners.store import RunStore\ntry:\n"
            f"    RunStore({str(run)!r}).open()\nexcept UserError as e:\n"
            "    print(e); sys.exit(2)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")])}
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=120, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"opening a run folder whose responses.jsonl is a {kind} hangs")
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"{node}: is a" in done.stdout and "not a regular file" in done.stdout
    assert_untouched(node, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_audit_sample_onto_a_device_or_fifo_in_its_folder_is_refused(tmp_path, capsys, kind):
    from test_audit import mixed_file

    graded = mixed_file(tmp_path)
    out = tmp_path / "audit"
    out.mkdir()
    node = make_node(out / "review.jsonl", kind)
    assert main(["audit", "sample", graded, "--n", "5", "--out", str(out)]) == 2
    refused(capsys, "audit", node)
    assert_untouched(node, kind)
    assert os.listdir(out) == ["review.jsonl"] and hidden(tmp_path) == []


def test_atomic_write_interrupted_leaves_the_target_and_no_temporary(tmp_path):
    from general365.fsutil import atomic_write

    target = tmp_path / "kept.json"
    target.write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with atomic_write(str(target)) as f:
            f.write("half of the new")
            raise KeyboardInterrupt
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["kept.json"]


# --- item 10: a kill mid-write ------------------------------------------------------------

CHILD = r"""
import os, shutil, signal, sys
import general365.fsutil as fs

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

for name in ("rename", "replace", "link", "unlink", "mkdir"):
    setattr(os, name, counted(getattr(os, name)))
shutil.rmtree = counted(shutil.rmtree)
fs.exchange = counted(fs.exchange)

from general365.cli import main
sys.exit(main(argv))
"""


def killed_at(k: int, argv: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", CHILD, str(k), *argv], capture_output=True,
                          text=True, timeout=600, env=env)


def hidden(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob(".*"))


def sample_ids(out: Path) -> set[str]:
    """The sample each of the audit's three files is of."""
    manifest = json.loads((out / "sample.json").read_text())["sample_id"]
    rows = {json.loads(line)["sample_id"]
            for line in (out / "review.jsonl").read_text().splitlines()}
    html = (out / "review.html").read_text()
    page = {s for s in rows | {manifest} if f"Sample {s}." in html}
    return {manifest} | rows | page if len(page) == 1 else {"the page names no sample"}


def test_audit_sample_killed_at_every_step_leaves_old_or_new_and_the_rerun_cleans_up(
        tmp_path, capsys):
    from test_audit import mixed_file

    graded = mixed_file(tmp_path)
    parent = tmp_path / "work"
    out = parent / "audit"
    parent.mkdir()
    (parent / "audit").mkdir()
    (out / "notes.txt").write_text("mine")
    assert main(["audit", "sample", graded, "--n", "20", "--seed", "1", "--out", str(out)]) == 0
    old = sample_ids(out)
    assert len(old) == 1
    pristine = {p.name: p.read_bytes() for p in out.iterdir()}
    argv = ["audit", "sample", graded, "--n", "20", "--seed", "2", "--out", str(out)]
    finished = False
    for k in range(1, 80):
        child = killed_at(k, argv)
        if child.returncode == 0:
            finished = True
            break
        assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
        now = sample_ids(out)
        assert len(now) == 1, f"killed at step {k}: the files are of two samples: {now}"
        assert (out / "notes.txt").read_text() == "mine"
        assert main(argv) == 0, capsys.readouterr().err[-3000:]   # the same command again
        capsys.readouterr()
        assert hidden(parent) == [], (k, hidden(parent))
        new = sample_ids(out)
        assert len(new) == 1 and new != old
        for name, data in pristine.items():   # back to the old sample for the next kill
            (out / name).write_bytes(data)
    assert finished and k > 2
    assert hidden(parent) == []


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 4])
def test_analyze_killed_leaves_nothing_the_rerun_does_not_remove(tmp_path, capsys, k):
    parent = tmp_path / "work"
    parent.mkdir()
    out = parent / "analysis"
    argv = ["analyze", "sample", "--embedder", "tfidf", "--out", str(out), "--no-progress",
            "--tsne", "off", "--no-embed-cache"]
    child = killed_at(k, argv)
    assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
    assert main(argv) == 0, capsys.readouterr().err[-3000:]
    assert sorted(os.listdir(parent)) == ["analysis"]
    assert hidden(out) == [] and (out / "analysis.json").is_file()


# --- item 10: a full disk names the path --------------------------------------------------


def test_audit_sample_on_a_full_disk_names_the_folder_and_keeps_the_old_sample(
        tmp_path, small_disk, capsys):  # noqa: F811
    from test_audit import graded_row

    rows = [graded_row(i, "correct" if i % 3 else "incorrect", "rule", "number",
                       model="m", response="work " * 400 + f"\\boxed{{{i}}}")
            for i in range(600)]
    graded = write_jsonl(tmp_path / "graded.jsonl", rows)
    out = small_disk / "audit"
    assert main(["audit", "sample", graded, "--n", "2", "--seed", "1", "--out", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    assert main(["audit", "sample", graded, "--n", "500", "--seed", "2", "--out",
                 str(out)]) == 2
    line = one_error(capsys.readouterr().err, "audit")
    assert f"{out}: cannot write the audit (No space left on device" in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert os.listdir(small_disk) == ["audit"]


def test_analyze_on_a_full_disk_names_the_folder_and_leaves_nothing(small_disk, capsys):  # noqa: F811
    out = small_disk / "analysis"
    assert main(["analyze", "sample", "--embedder", "tfidf", "--out", str(out),
                 "--no-progress", "--tsne", "off", "--no-embed-cache"]) == 2
    line = one_error(capsys.readouterr().err, "analyze")
    assert f"{out}: cannot write the analysis (No space left on device" in line
    assert os.listdir(small_disk) == []


def test_cfe_variables_on_a_full_disk_names_the_file_and_leaves_nothing(
        tmp_path, small_disk, capsys):  # noqa: F811
    graded = _cfe_graded(tmp_path / "graded.jsonl", rows=200, pad=200)
    out = small_disk / "variables.jsonl"
    assert main(["cfe", "variables", graded, "--out", str(out)]) == 2
    line = one_error(capsys.readouterr().err, "cfe")
    assert f"{out}: cannot write (No space left on device)" in line
    assert os.listdir(small_disk) == []
