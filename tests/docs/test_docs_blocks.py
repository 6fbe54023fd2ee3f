"""Every ```python and ```bash block of README.md and docs/*.md runs as written, or says why
it cannot here.

A block that cannot run in the tests carries, on the line above its opening fence, an HTML
comment (invisible on GitHub and PyPI) that starts with one of SKIP_KINDS:

    <!-- skip: needs a GPU -->
    ```bash
    general365 run --backend vllm --model Qwen/Qwen3-8B ...
    ```

Every other block runs: Python in its own interpreter, bash under `bash -e`, each in a
fresh folder, offline (a connection that is not to this machine is refused), with
`general365` and `python` on PATH meaning this checkout's, and MODEL naming the tiny local
model (the blocks that train or generate read the model from $MODEL, as the docs say). The
folder holds the files the docs name as the reader's own (`doc_files`): two graded runs
(runs/a, runs/b), a person's labels of run a (labels.jsonl), a question set
(my_questions.jsonl) and a dataset file (path/to/file.parquet), all made here from the
bundled sample.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FILES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(python|bash)\s*$")
MARK = re.compile(r"<!--\s*skip:\s*(.+?)\s*-->")
# Why a block may not run in the tests: nothing else.
SKIP_KINDS = ("needs a GPU", "needs the network", "needs a paid API", "runs a full evaluation",
              "needs your own files", "a synopsis", "an excerpt")
BLOCK_TIMEOUT_S = 600


@dataclass(frozen=True)
class Block:
    path: str
    line: int
    lang: str
    code: str
    skip: str | None

    @property
    def name(self) -> str:
        return f"{self.path}:{self.line}"


def blocks() -> list[Block]:
    out = []
    for path in FILES:
        lines = path.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            m = FENCE.match(lines[i])
            if m:
                j = i + 1
                while not lines[j].startswith("```"):
                    j += 1
                k = i - 1
                while k >= 0 and not lines[k].strip():
                    k -= 1
                mark = MARK.fullmatch(lines[k].strip()) if k >= 0 else None
                out.append(Block(path.relative_to(REPO).as_posix(), i + 1, m.group(1),
                                 "\n".join(lines[i + 1:j]) + "\n",
                                 mark.group(1) if mark else None))
                i = j
            i += 1
    return out


BLOCKS = blocks()


def test_the_blocks_are_found_and_every_skip_says_why_in_the_agreed_words():
    assert len(BLOCKS) > 30
    for b in BLOCKS:
        if b.skip is not None:
            assert b.skip.startswith(SKIP_KINDS), (b.name, b.skip)


def test_the_readme_shows_the_harness_commands_and_grpo():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "lm_eval --model hf" in readme and "--include_path" in readme
    assert "inspect eval general365/general365_sample" in readme
    grpo = next(b for b in BLOCKS if b.path == "README.md" and "GRPOTrainer(" in b.code)
    assert grpo.skip is None and '"prompt"' in grpo.code and "use_cpu=True" in grpo.code


@pytest.fixture(scope="module")
def shims(tmp_path_factory) -> Path:
    """`general365` and `python` as this checkout's, first on PATH."""
    folder = tmp_path_factory.mktemp("bin")
    for name, target in (("general365", f'exec "{sys.executable}" -m general365 "$@"'),
                         ("python", f'exec "{sys.executable}" "$@"')):
        shim = folder / name
        shim.write_text(f"#!/bin/sh\n{target}\n")
        shim.chmod(0o755)
    return folder


@pytest.fixture(scope="module")
def doc_files(tmp_path_factory) -> Path:
    """The reader's own files the docs name, made from the bundled sample: runs/a and runs/b
    (graded runs of my-model and other-model, each right on alternate problems),
    labels.jsonl, my_questions.jsonl and path/to/file.parquet."""
    import json

    import general365

    folder = tmp_path_factory.mktemp("doc-files")
    problems = general365.load_problems(source="sample")
    for name, run, parity in (("my-model", "a", 0), ("other-model", "b", 1)):
        (folder / "runs" / run).mkdir(parents=True)
        responses = folder / "runs" / run / "responses.jsonl"
        responses.write_text("".join(
            json.dumps({"id": p.id, "run": 0, "model": name, "response":
                        f"<think>...</think> \\boxed{{{p.answer if (i + parity) % 2 == 0 else 'x'}}}"})
            + "\n" for i, p in enumerate(problems)), encoding="utf-8")
        general365.grade_file(str(responses), str(folder / "runs" / run / "graded.jsonl"),
                              dataset="sample", policy="rule")
    (folder / "my_questions.jsonl").write_text("".join(
        json.dumps({"id": f"q{i}", "question": q}) + "\n" for i, q in enumerate(
            ["How many ways can four people sit at a round table?",
             "A clock loses 3 minutes an hour; when does it next show the right time?",
             "Which of five boxes holds the key, if exactly one label lies?",
             "What is the probability that two dice sum to 7?"])), encoding="utf-8")
    # a person's labels of run a's verdicts (docs/audit.md): all right but every tenth
    graded = [json.loads(line) for line in
              (folder / "runs" / "a" / "graded.jsonl").read_text().splitlines()]
    (folder / "labels.jsonl").write_text("".join(
        json.dumps({"id": g["id"], "model": g["model"], "status": g["status"],
                    "label": "wrong" if i % 10 == 0 else "right"}) + "\n"
        for i, g in enumerate(graded) if g["status"] != "ungraded"), encoding="utf-8")
    (folder / "path" / "to").mkdir(parents=True)
    general365.load_dataset("all", source="sample").to_parquet(
        str(folder / "path" / "to" / "file.parquet"))
    return folder


def _env(shims: Path, model: Path) -> dict[str, str]:
    env = dict(os.environ)
    dead = "http://127.0.0.1:9"
    env.update({"PATH": f"{shims}{os.pathsep}{env.get('PATH', '')}", "MODEL": str(model),
                "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH"))
                                              if p),
                "HTTP_PROXY": dead, "HTTPS_PROXY": dead, "http_proxy": dead,
                "https_proxy": dead, "NO_PROXY": "127.0.0.1,localhost",
                "no_proxy": "127.0.0.1,localhost", "HF_HUB_OFFLINE": "1",
                "HF_DATASETS_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1",
                "TOKENIZERS_PARALLELISM": "false", "MPLBACKEND": "Agg"})
    return env


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_block_runs_as_written(block, tmp_path, shims, tiny_model_dir, doc_files):
    if block.skip is not None:
        pytest.skip(block.skip)
    if block.lang == "python":
        script = tmp_path / "block.py"
        script.write_text(block.code, encoding="utf-8")
        cmd = [sys.executable, str(script)]
    else:
        cmd = ["bash", "-e", "-c", block.code]
    import shutil

    work = tmp_path / "work"
    shutil.copytree(doc_files, work)
    proc = subprocess.run(cmd, cwd=work, env=_env(shims, tiny_model_dir), capture_output=True,
                          text=True, timeout=BLOCK_TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, (f"{block.name} failed ({proc.returncode}):\n"
                                  f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
