"""`dataset build` replaces its folder in one step, and a build killed at any step is
recovered by the next run (issue 13, item 6).

Each child is the real command in a fresh interpreter, killed with SIGKILL just before its
k-th filesystem step (a rename, an exchange, a tree removal), for every k until a run gets
through: the kill lands exactly between two steps, which no timing could promise. The
steps are counted by wrapping the os calls in the child; the calls themselves are real.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from general365.cli import main
from general365.fsutil import exchange

CHILD = r"""
import os, shutil, signal, sys
try:
    import general365.fsutil as fs
except ImportError:   # a checkout from before fsutil: its renames are still counted
    fs = None

kill_at, no_exchange, argv = int(sys.argv[1]), sys.argv[2] == "1", sys.argv[3:]
count = [0]

def step():
    count[0] += 1
    if count[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)

def counted(fn):
    def wrapper(*a, **kw):
        step()
        return fn(*a, **kw)
    return wrapper

os.rename = counted(os.rename)
os.replace = counted(os.replace)
shutil.rmtree = counted(shutil.rmtree)
if fs is not None:
    real_exchange = fs.exchange
    fs.exchange = counted((lambda a, b: False) if no_exchange else real_exchange)

from general365.cli import main
sys.exit(main(argv))
"""


def rows(prefix: str, n: int) -> list[dict]:
    return [{"id": f"{prefix}{i}", "question": f"What is {i}+1?", "answer": str(i + 1),
             "answer_type": "number"} for i in range(n)]


def write_jsonl(path: Path, data: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
    return path


def snapshot(folder: Path) -> dict[str, bytes] | None:
    if not folder.is_dir():
        return None
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def run_child(kill_at: int, no_exchange: bool, argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CHILD, str(kill_at), "1" if no_exchange
                           else "0", *argv], capture_output=True, text=True, timeout=300)


def has_split(files: dict[str, bytes], split: str) -> bool:
    return any(name.startswith(f"data/seed/{split}-") for name in files)


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


@pytest.mark.slow
@pytest.mark.parametrize("no_exchange", [False, True], ids=["exchange", "two-renames"])
def test_build_add_killed_at_every_step_ends_old_or_new_and_a_rerun_recovers(
        tmp_path, capsys, no_exchange):
    if not no_exchange:
        a, b = tmp_path / "probe-a", tmp_path / "probe-b"
        a.mkdir(), b.mkdir()
        if not exchange(str(a), str(b)):
            pytest.skip("this filesystem cannot exchange two paths (the fallback is tested)")
    public = write_jsonl(tmp_path / "public.jsonl", rows("pub-", 3))
    test = write_jsonl(tmp_path / "test.jsonl", rows("tst-", 4))
    parent = tmp_path / "out"
    parent.mkdir()
    out = parent / "hub"
    first = subprocess.run([sys.executable, "-m", "general365.cli", "dataset", "build",
                            "--source", str(public), "--out", str(out)],
                           capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    old = snapshot(out)
    pristine = tmp_path / "pristine"
    shutil.copytree(out, pristine)
    add = ["dataset", "build", "--source", str(test), "--split", "test", "--out", str(out),
           "--add"]

    new = None
    kills = 0
    for k in range(1, 30):
        # Start from the old folder each time.
        if snapshot(out) != old:
            shutil.rmtree(out)
            shutil.copytree(pristine, out)
            assert snapshot(out) == old
        child = run_child(k, no_exchange, add)
        if child.returncode == 0:
            new = snapshot(out)
            break
        assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
        kills += 1
        now = snapshot(out)
        if no_exchange and now is None:
            # Between the two renames there is no folder, only the old one set aside.
            assert [n for n in leftovers(parent) if n.startswith(".hub.old-")]
        else:
            assert now is not None, f"killed before step {k}: no folder at {out}"
            assert now == old or has_split(now, "test"), (k, sorted(now))
        # The same command again: it recovers, then adds the split.
        assert main(add) == 0, (k, capsys.readouterr().err[-3000:])
        capsys.readouterr()
        assert leftovers(parent) == [], (k, leftovers(parent))
        both = snapshot(out)
        assert has_split(both, "test") and has_split(both, "public"), sorted(both)
    assert new is not None and kills >= 2
    assert leftovers(parent) == []
