"""The `general365` program as a whole: verbs, one-line errors, pipes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from general365.cli import VERBS, main

EXE = Path(sys.executable).with_name("general365")


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_verb_has_help(verb, capsys):
    with pytest.raises(SystemExit) as exc:
        main([verb, "--help"])
    assert exc.value.code == 0
    assert "usage: general365 " + verb in capsys.readouterr().out


def test_python_dash_m_runs_the_program():
    r = subprocess.run([sys.executable, "-m", "general365", "--version"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("general365 ")


def test_an_unwritable_output_is_one_line_exit_2(tmp_path):
    src = tmp_path / "r.jsonl"
    src.write_text(json.dumps({"id": "a", "run": 0, "response": r"\boxed{1}", "answer": "1",
                               "answer_type": "number"}) + "\n")
    blocker = tmp_path / "afile"
    blocker.write_text("a file, not a folder")
    r = subprocess.run([str(EXE), "grade", str(src), "--policy", "rule",
                        "--out", str(blocker / "g.jsonl")], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert str(blocker) in r.stderr


def test_a_closed_pipe_ends_quietly(tmp_path):
    # `general365 ... | head -1`: the program takes the default SIGPIPE action (ends quietly,
    # as Unix tools do) instead of a BrokenPipeError traceback. A large output makes the
    # write outlast the reader.
    src = tmp_path / "r.jsonl"
    src.write_text("".join(json.dumps({"id": f"p{i}", "run": 0, "response": "x"}) + "\n"
                           for i in range(3)))
    code = ("import sys\n"
            "from general365 import cli\n"
            "def noisy(args):\n"
            "    for i in range(200000): print('line', i)\n"
            "    return 0\n"
            "cli.VERBS['demo'] = ('general365.cli.demo', 'x')\n"
            "import general365.cli.demo as d\n"
            "d.main = noisy\n"
            "sys.argv = ['general365', 'demo']\n"
            "sys.exit(cli.console_main())\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.readline()
    p.stdout.close()
    _, err = p.communicate(timeout=300)
    assert err == b"", err[-500:]   # quiet: no traceback, no "Broken pipe" error line
