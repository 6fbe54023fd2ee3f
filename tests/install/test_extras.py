"""Each verb checks its extras before any work: one line, exit 2, the pip command to run.

A module is made absent the way Python itself blocks an import (sys.modules[name] = None,
which find_spec and import both honour); an old release is a real distribution's metadata
(a dist-info folder first on sys.path). The fresh installs in test_packaging.py check the
same messages where the packages are truly not installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from general365 import extras
from general365.errors import MissingExtra, UserError


def _hide(monkeypatch, *modules: str) -> None:
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)


def test_nothing_missing_passes():
    extras.require("demo", ["transformers", "plots", "judge", "openai"])
    extras.require("grade", [])


def test_one_missing_module_names_its_extra(monkeypatch):
    _hide(monkeypatch, "matplotlib")
    with pytest.raises(MissingExtra) as e:
        extras.require("report", ["plots"])
    msg = str(e.value)
    assert isinstance(e.value, UserError) and "\n" not in msg
    assert msg == ("report needs the plots extra (matplotlib is not installed); install with: "
                   "pip install 'general365[plots]'")


def test_every_missing_extra_in_one_command(monkeypatch):
    _hide(monkeypatch, "tokenizers", "matplotlib", "openai")
    with pytest.raises(MissingExtra) as e:
        extras.require("run", ["transformers", "judge", "plots"])
    msg = str(e.value)
    assert "pip install 'general365[transformers,judge,plots]'" in msg
    assert "tokenizers, openai, matplotlib are not installed" in msg


def test_present_extras_are_not_named(monkeypatch):
    _hide(monkeypatch, "matplotlib")
    with pytest.raises(MissingExtra, match=r"general365\[plots\]'$"):
        extras.require("demo", ["transformers", "plots"])


def test_a_release_below_the_floor_is_named(monkeypatch, tmp_path):
    # A real (tiny) installed distribution that shadows the real tokenizers' metadata.
    from importlib import metadata

    floor = next(r for r in metadata.requires("general365")
                 if r.startswith("tokenizers") and 'extra == "transformers"' in r)
    info = tmp_path / "tokenizers-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tokenizers\nVersion: 0.1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(MissingExtra) as e:
        extras.require("demo", ["transformers"])
    msg = str(e.value)
    assert "tokenizers 0.1.0 is installed, general365 needs >=" in msg, msg
    assert floor.split(";")[0].replace("tokenizers", "") in msg
    assert "pip install -U 'general365[transformers]'" in msg


def test_backend_extra():
    assert extras.backend_extra("openai") == ["openai"]
    assert extras.backend_extra("vllm") == ["vllm"]
    assert extras.backend_extra("transformers") == ["transformers"]
    assert extras.backend_extra("nope") == []     # the verb's own check names the backends


def test_unknown_extra_is_a_bug_not_a_user_error():
    with pytest.raises(ValueError):
        extras.require("x", ["nope"])


# The verbs, through the command line, with a module blocked in that process only.
def _cli(tmp_path: Path, hidden: list[str], *args: str) -> subprocess.CompletedProcess:
    code = textwrap.dedent(f"""
        import sys
        for m in {hidden!r}:
            sys.modules[m] = None
        from general365.cli import main
        sys.exit(main({list(args)!r}))
    """)
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300,
                          env={**__import__("os").environ, "GENERAL365_CACHE_DIR": str(tmp_path)})


def _responses(tmp_path: Path) -> Path:
    path = tmp_path / "responses.jsonl"
    path.write_text(json.dumps({"id": "a", "run": 0, "response": r"\boxed{1}", "answer": "1",
                                "answer_type": "number"}) + "\n")
    return path


@pytest.mark.parametrize("hidden, args, needle", [
    (["matplotlib"], ["demo", "--out", "d", "--model-dir", "m"], "general365[plots]"),
    (["tokenizers"], ["demo", "--out", "d", "--model-dir", "m"], "general365[transformers]"),
    (["openai"], ["grade", "responses.jsonl", "--out", "g.jsonl", "--judge-model", "j"],
     "general365[judge]"),
    (["matplotlib"], ["report", "responses.jsonl", "--out", "r"], "general365[plots]"),
    (["openai"], ["generate", "--backend", "openai", "--model", "m", "--dataset", "sample",
                  "--out", "d"], "general365[openai]"),
    (["matplotlib", "openai"], ["run", "--backend", "transformers", "--model", "m",
                                "--dataset", "sample", "--out", "d", "--judge-model", "j"],
     "general365[judge,plots]"),
])
def test_each_verb_stops_before_any_work(tmp_path, hidden, args, needle):
    _responses(tmp_path)
    r = _cli(tmp_path, hidden, *args)
    assert r.returncode == 2, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert lines[0].startswith(f"general365 {args[0]}: error: {args[0]} needs the ")
    # nothing was built, generated, graded or written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["responses.jsonl"]


def test_grade_without_a_judge_needs_no_judge_extra(tmp_path):
    _responses(tmp_path)
    r = _cli(tmp_path, ["openai", "httpx"], "grade", "responses.jsonl", "--out", "g.jsonl",
             "--policy", "rule", "--no-progress")
    assert r.returncode == 0, r.stderr[-2000:]
    assert (tmp_path / "g.jsonl").is_file()
