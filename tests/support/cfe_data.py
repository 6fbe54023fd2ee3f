"""Where the tests find the CFE-Bench release (owned by the CFE-Bench work).

The data is never copied into the repository (its licence is non-commercial: see SOURCE.md
beside it). Looked for, in order: $CFE_BENCH_DATA; `../shared/data/cfe-bench` beside this
checkout; the same beside the main checkout when this one is a git worktree (its `.git`
file names the main repository). Tests that need it skip, saying where they looked.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ENV = "CFE_BENCH_DATA"
RELATIVE = Path("..") / "shared" / "data" / "cfe-bench"
ROOT = Path(__file__).resolve().parents[2]


def _main_checkout(root: Path) -> Path | None:
    git = root / ".git"
    if not git.is_file():
        return None
    try:
        line = git.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = Path(line.split(":", 1)[1].strip())
    if not gitdir.is_absolute():
        gitdir = (root / gitdir).resolve()
    # <main>/.git/worktrees/<name> -> <main>
    if gitdir.parent.name == "worktrees":
        return gitdir.parent.parent.parent
    return None


def candidates() -> list[Path]:
    out = []
    if os.environ.get(ENV):
        out.append(Path(os.environ[ENV]).expanduser())
    out.append(ROOT / RELATIVE)
    main = _main_checkout(ROOT)
    if main is not None:
        out.append(main / RELATIVE)
    return out


def find() -> Path | None:
    for c in candidates():
        if (c / "CFE_text.json").is_file() and (c / "CFE_mm.json").is_file():
            return c.resolve()
    return None


def require() -> Path:
    found = find()
    if found is None:
        pytest.skip("CFE-Bench data not found (looked in: "
                    + ", ".join(str(c) for c in candidates())
                    + f"; set ${ENV} to the release folder)")
    return found


@pytest.fixture(scope="session")
def cfe_dir() -> Path:
    return require()


@pytest.fixture(scope="session")
def cfe_data(cfe_dir):
    from general365.tasks.cfe.data import load

    return load(cfe_dir)
