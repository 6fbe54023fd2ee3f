"""Fresh installs for the packaging tests: the wheel built once (from the sdist, as a user's
pip would build it), installed with uv into new virtual environments, one per extra, and
commands run there as a user would run them: from another folder, with none of this
checkout's environment, offline for the Hub.

uv is a dev dependency (pip install uv); its cache (~/.cache/uv) makes a repeated
environment take seconds. torch is taken only as a CPU build from a local wheel folder (pip's
find-links, or GENERAL365_TORCH_WHEELS): PyPI's Linux torch pulls several GB of CUDA.
"""

from __future__ import annotations

import configparser
import glob
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# What a user's shell would not have: this checkout's venv, its sys.path, its caches.
_DROP_ENV = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE",
             "CONDA_PREFIX", "HF_HOME", "HF_MODULES_CACHE", "XDG_CACHE_HOME", "MPLCONFIGDIR",
             "GENERAL365_CACHE_DIR")
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false", "HF_HUB_DISABLE_TELEMETRY": "1"}


def uv() -> list[str] | None:
    """The uv command (the module beside this interpreter, else one on PATH), or None."""
    try:
        import uv as _uv  # noqa: F401

        return [sys.executable, "-m", "uv"]
    except ImportError:
        found = shutil.which("uv")
        return [found] if found else None


def find_python(version: str) -> str | None:
    """An interpreter for `version` ("3.10"): pyenv's, else one on PATH. uv is never let
    download one (the machines here reach no download host but the package index)."""
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    for candidate in sorted(glob.glob(os.path.join(root, "versions", f"{version}.*", "bin",
                                                   f"python{version}")), reverse=True):
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which(f"python{version}")


def _find_links_dirs() -> list[str]:
    dirs = []
    for value in (os.environ.get("GENERAL365_TORCH_WHEELS"), os.environ.get("PIP_FIND_LINKS")):
        dirs += (value or "").split()
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True,
                             text=True, timeout=60).stdout
        for m in re.finditer(r"find-links='([^']*)'", out):
            dirs += m.group(1).split()
    except (OSError, subprocess.TimeoutExpired):
        pass
    return [d for d in dict.fromkeys(dirs) if os.path.isdir(d)]


def local_cpu_torch(python_tag: str) -> tuple[str, str] | None:
    """(folder, version) of a local CPU torch wheel for `python_tag` ("cp311"), or None."""
    for d in _find_links_dirs():
        for path in sorted(glob.glob(os.path.join(d, f"torch-*+cpu-{python_tag}-*.whl"))):
            return d, os.path.basename(path).split("-")[1]
    return None


@dataclass(frozen=True)
class Artifacts:
    wheel: Path
    sdist: Path


def build(out: Path) -> Artifacts:
    """sdist, then the wheel built from that sdist (so a file missing from the sdist shows)."""
    cmd = uv()
    assert cmd, "uv is not installed: pip install uv (it is in the dev extra)"
    r = subprocess.run([*cmd, "build", "--quiet", "--out-dir", str(out), str(REPO)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"uv build failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    (wheel,) = out.glob("general365-*.whl")
    (sdist,) = out.glob("general365-*.tar.gz")
    return Artifacts(wheel, sdist)


def build_once(run_tmp: Path) -> Artifacts:
    """build(), once per test run (test_packaging and test_install share it): the first
    pytest-xdist worker to ask builds into run_tmp (the `run_tmp` fixture), the others reuse."""
    from support.models import locked

    with locked(run_tmp / "dist") as out:
        wheels, sdists = list(out.glob("general365-*.whl")), list(out.glob("general365-*.tar.gz"))
        if len(wheels) == len(sdists) == 1:
            return Artifacts(wheels[0], sdists[0])
        shutil.rmtree(out, ignore_errors=True)      # what a failed build left
        return build(out)


def declared(extras: tuple[str, ...] = ()) -> list[str]:
    """setup.cfg's requirement lines for the base install plus `extras`."""
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    lines = cfg.get("options", "install_requires").splitlines()
    for extra in extras:
        lines += cfg.get("options.extras_require", extra).splitlines()
    return [x.strip() for x in lines if x.strip() and not x.strip().startswith("#")]


@dataclass
class Env:
    """A virtual environment holding the wheel, and a scratch home for what it writes."""

    root: Path
    home: Path
    label: str

    @property
    def python(self) -> str:
        return str(self.root / "bin" / "python")

    def environ(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _DROP_ENV}
        env.update(OFFLINE)
        env["PATH"] = f"{self.root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["HF_HOME"] = str(self.home / "hf")
        env["XDG_CACHE_HOME"] = str(self.home / "cache")
        env["MPLCONFIGDIR"] = str(self.home / "mpl")
        env["GENERAL365_CACHE_DIR"] = str(self.home / "general365")
        return env

    def run(self, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
        """`general365 ARGS...` as installed (the console script), from the scratch home."""
        return subprocess.run([str(self.root / "bin" / "general365"), *args], cwd=self.home,
                              env=self.environ(), capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)

    def py(self, code: str, timeout: int = 600) -> subprocess.CompletedProcess:
        return subprocess.run([self.python, "-c", code], cwd=self.home, env=self.environ(),
                              capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)

    def versions(self) -> dict[str, str]:
        r = subprocess.run([*uv(), "pip", "list", "--python", self.python, "--format", "json"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return {d["name"].lower(): d["version"] for d in json.loads(r.stdout)}


def make_env(where: Path, label: str, python: str, wheel: Path, extras: tuple[str, ...] = (),
             lowest: bool = False) -> Env:
    """A new venv at where/label with `wheel[extras]` installed by uv.

    lowest: every dependency that setup.cfg declares for these extras at the lowest release
    the declared ranges allow together (uv --resolution lowest-direct): the floors, tested.
    torch, where an extra needs it, is the local CPU build whatever the floor (see above).
    """
    cmd = uv()
    root, home = where / label, where / f"{label}-home"
    home.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([*cmd, "venv", "--quiet", "--no-python-downloads", "--python", python,
                        str(root)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"uv venv {label}: {r.stderr[-2000:]}"
    target = f"{wheel}[{','.join(extras)}]" if extras else str(wheel)
    install = [*cmd, "pip", "install", "--quiet", "--python", str(root / "bin" / "python"),
               "--no-python-downloads", target]
    reqs = declared(extras)
    if any(re.match(r"torch\b", x) for x in reqs):
        tag = "cp" + "".join(python_version(python).split(".")[:2])
        torch = local_cpu_torch(tag)
        assert torch, f"no local CPU torch wheel for {tag} (GENERAL365_TORCH_WHEELS)"
        folder, version = torch
        constraints = home / "constraints.txt"
        constraints.write_text(f"torch=={version}\n")
        install += ["--find-links", folder, "--constraint", str(constraints)]
    if lowest:
        direct = home / "direct.txt"
        direct.write_text("\n".join(x for x in reqs if not re.match(r"torch\b", x)) + "\n")
        install += ["--resolution", "lowest-direct", "--requirement", str(direct)]
    r = subprocess.run(install, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"uv pip install {label}:\n{r.stderr[-4000:]}"
    return Env(root, home, label)


def python_version(python: str) -> str:
    return subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                          capture_output=True, text=True, timeout=60).stdout.strip()
