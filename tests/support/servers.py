"""Fixtures: a local fault-injecting OpenAI-compatible server (owned by the judge work).

A real server cannot return a 429, a 500 or a garbage body on demand, so the retry, re-ask
and timeout paths of every OpenAI-compatible client here (the judge, the API runner) are
tested against this small fake. Everything else (the SDK, HTTP, JSON, sockets) is real.

Usage in a test::

    def test_retry(fault_server):
        fault_server.set_script(sequence(Behaviour.error(429, retry_after=0), Behaviour.reply("hi")))
        client = openai.OpenAI(base_url=fault_server.base_url, api_key="x", max_retries=0)
        ...
        assert len(fault_server.requests) == 2

The script is a callable ``script(request_json, n) -> Behaviour`` called once per
``POST /v1/chat/completions``; ``n`` is the 0-based ordinal of that request among all chat
requests this server has received (so ``n == 0`` is the first). It runs on the server's
handler thread, concurrently with other requests, so keep it free of unguarded shared state.

What a Behaviour can do (combine freely; precedence: drop > status > malformed > reply):

- ``Behaviour.reply(content, reasoning_content=None, finish_reason="stop", ...)``: a normal
  chat completion with usage token counts (given, or counted as whitespace-separated words).
  ``content`` may be a list of strings for requests with ``n > 1`` (one choice each).
  A request with ``"stream": true`` gets the same reply as server-sent events.
- ``Behaviour.error(status, retry_after=None, message=...)``: an OpenAI-style error body with
  that status (429, 500, 503, 400, ...), with a ``Retry-After`` header when given.
- ``Behaviour.slow(seconds, ...)`` or ``delay=`` on any behaviour: wait before answering
  (past the client's timeout, to test timeouts; shutdown interrupts the wait).
- ``Behaviour.malformed(body=...)``: status 200, ``application/json``, a body that is not JSON.
- ``Behaviour.empty()``: a well-formed completion whose content is ``""``.
- ``Behaviour.drop()``: close the connection without sending any response.
- ``Behaviour.trickle(content, interval=0.25, count=None)`` (``trickle_interval=`` and
  ``trickle_count=`` on any reply):
  send the headers at once, then the body one byte every ``interval`` seconds (the first
  ``count`` bytes; the rest at once). ``.trickled`` records, per trickled reply, how many
  body bytes went out before it ended and whether the client took all of them.

Server-wide settings (constructor arguments or attributes):

- ``max_model_len``: reported in ``/v1/models`` (as vLLM does), so that clients count
  prompts with ``/tokenize``; None (default) reports none.
- ``tokenize``: ``callable(request_json) -> (status, body)`` answering ``POST /tokenize``
  (``body`` bytes are sent as they are, anything else as JSON); None (default): 404.
- ``chat_on_any_post``: answer every POST, whatever its path, as a chat request (a
  gateway that does so); default False.
- ``models_status``: answer ``GET /v1/models`` with this error status (401, 500, ...)
  instead of the listing; None (default) lists the model.
- ``models_delay``: seconds to wait before answering ``GET /v1/models``; default 0.

Every request is recorded: ``.requests`` holds the JSON bodies of the chat requests in the
order they arrived; ``.calls`` holds every request (any path) as a :class:`RecordedRequest`
with method, path, headers (lower-case names), body and arrival time (``time.monotonic()``).
"""

from __future__ import annotations

import itertools
import json
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

import pytest

__all__ = ["Behaviour", "FaultServer", "RecordedRequest", "Script", "sequence", "fault_server"]


@dataclass(frozen=True)
class Behaviour:
    """What the server does with one chat request (see the module docstring)."""

    content: str | list[str] | None = "ok"
    reasoning_content: str | None = None
    finish_reason: str = "stop"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    model: str | None = None          # the served model id in the reply; default: the server's
    status: int = 200
    retry_after: float | str | None = None
    message: str = "injected error"
    delay: float = 0.0
    malformed_body: bytes | None = None
    drop_connection: bool = False
    headers: tuple[tuple[str, str], ...] = ()
    trickle_interval: float = 0.0         # seconds between body bytes; 0 = all at once
    trickle_count: int | None = None      # bytes sent one by one (None: the whole body)

    @classmethod
    def reply(cls, content: str | list[str] | None, **kw: Any) -> "Behaviour":
        return cls(content=content, **kw)

    @classmethod
    def error(cls, status: int, retry_after: float | str | None = None, **kw: Any) -> "Behaviour":
        return cls(status=status, retry_after=retry_after, **kw)

    @classmethod
    def slow(cls, seconds: float, content: str | None = "ok", **kw: Any) -> "Behaviour":
        return cls(content=content, delay=seconds, **kw)

    @classmethod
    def malformed(cls, body: bytes = b'{"choices": [ this is not json', **kw: Any) -> "Behaviour":
        return cls(malformed_body=body, **kw)

    @classmethod
    def empty(cls, **kw: Any) -> "Behaviour":
        return cls(content="", **kw)

    @classmethod
    def drop(cls, **kw: Any) -> "Behaviour":
        return cls(drop_connection=True, **kw)

    @classmethod
    def trickle(cls, content: str | None = "ok", interval: float = 0.25,
                count: int | None = None, **kw: Any) -> "Behaviour":
        return cls(content=content, trickle_interval=interval, trickle_count=count, **kw)


Script = Callable[[dict, int], Behaviour]


def sequence(*behaviours: Behaviour) -> Script:
    """A script answering the n-th request with the n-th behaviour, the last one thereafter."""
    if not behaviours:
        raise ValueError("sequence() needs at least one behaviour")

    def script(_request: dict, n: int) -> Behaviour:
        return behaviours[min(n, len(behaviours) - 1)]

    return script


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any                 # parsed JSON, or the raw text when the body was not JSON
    at: float = field(default_factory=time.monotonic)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive, so a client's connection pool is exercised
    server: "_Server"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: pytest shows failures
        pass

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without NODELAY, Nagle plus the
        # client's delayed ACK adds ~40 ms to every reply and throughput tests measure that.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send(self, status: int, payload: bytes, content_type: str = "application/json",
              extra: tuple[tuple[str, str], ...] = (), trickle: Behaviour | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if trickle is None or trickle.trickle_interval <= 0:
            self.wfile.write(payload)
            return
        self.wfile.flush()
        slow = len(payload) if trickle.trickle_count is None else trickle.trickle_count
        sent, owner = 0, self.server.owner
        try:
            while sent < min(slow, len(payload)):
                if owner._stopping.wait(trickle.trickle_interval):
                    return
                self.wfile.write(payload[sent:sent + 1])
                self.wfile.flush()
                sent += 1
            self.wfile.write(payload[sent:])
            self.wfile.flush()
            sent = len(payload)
        finally:
            with owner._lock:
                owner.trickled.append((sent, len(payload)))

    def _json(self, status: int, obj: Any, extra: tuple[tuple[str, str], ...] = (),
              trickle: Behaviour | None = None) -> None:
        self._send(status, json.dumps(obj).encode(), extra=extra, trickle=trickle)

    def _route(self) -> str:
        # The path without its query (a key may come in the query); .calls keep it whole.
        return self.path.partition("?")[0].rstrip("/")

    def do_GET(self) -> None:
        owner = self.server.owner
        owner._record(self.command, self.path, _lower(self.headers), None)
        path = self._route()
        if (path == "/v1/models" and owner.models_delay > 0
                and owner._stopping.wait(owner.models_delay)):
            return  # server shutting down: abandon the request
        if path == "/v1/models" and owner.models_status is not None:
            self._json(owner.models_status, {"error": {"message": "models refused",
                                                       "type": "injected"}})
        elif path == "/v1/models":
            entry = {"id": owner.model, "object": "model", "created": 0,
                     "owned_by": "fault-server"}
            if owner.max_model_len is not None:
                entry["max_model_len"] = owner.max_model_len
            self._json(200, {"object": "list", "data": [entry]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        owner = self.server.owner
        body = self._read_body()
        path = self._route()
        if path == "/tokenize" and owner.tokenize is not None and not owner.chat_on_any_post:
            owner._record(self.command, self.path, _lower(self.headers), body)
            status, reply = owner.tokenize(body if isinstance(body, dict) else {})
            if isinstance(reply, bytes):
                self._send(status, reply)
            else:
                self._json(status, reply)
            return
        if path != "/v1/chat/completions" and not owner.chat_on_any_post:
            owner._record(self.command, self.path, _lower(self.headers), body)
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        n = owner._record(self.command, self.path, _lower(self.headers), body, chat=True)
        request = body if isinstance(body, dict) else {}
        try:
            behaviour = owner.script(request, n)
        except Exception as exc:  # a broken script is a test bug: make it loud, not a hang
            self._json(599, {"error": {"message": f"script raised {exc!r}", "type": "script"}})
            raise
        if behaviour.delay > 0 and owner._stopping.wait(behaviour.delay):
            return  # server shutting down: abandon the request
        try:
            self._respond(behaviour, request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout): that is the point of a slow reply

    def _respond(self, b: Behaviour, request: dict) -> None:
        if b.drop_connection:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        extra = b.headers
        if b.status != 200:
            if b.retry_after is not None:
                extra = extra + (("Retry-After", str(b.retry_after)),)
            kind = "rate_limit_exceeded" if b.status == 429 else "server_error"
            self._json(b.status, {"error": {"message": b.message, "type": kind,
                                            "code": b.status}}, extra)
            return
        if b.malformed_body is not None:
            self._send(200, b.malformed_body, extra=extra, trickle=b)
            return
        model = b.model or self.server.owner.model
        contents = b.content if isinstance(b.content, list) else \
            [b.content] * max(1, int(request.get("n") or 1))
        if request.get("stream"):
            self._stream(b, contents[0], model, request)
            return
        words = sum(len((c or "").split()) for c in contents)
        completion = b.completion_tokens if b.completion_tokens is not None else words
        prompt = b.prompt_tokens if b.prompt_tokens is not None else _count_prompt(request)
        choices = []
        for i, c in enumerate(contents):
            message: dict[str, Any] = {"role": "assistant", "content": c}
            if b.reasoning_content is not None:
                message["reasoning_content"] = b.reasoning_content
            choices.append({"index": i, "message": message, "finish_reason": b.finish_reason,
                            "logprobs": None})
        self._json(200, {
            "id": f"chatcmpl-fault-{next(_ids)}", "object": "chat.completion",
            "created": int(time.time()), "model": model, "choices": choices,
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion},
        }, extra, trickle=b)

    def _stream(self, b: Behaviour, content: str | None, model: str, request: dict) -> None:
        # Connection: close and no length: the body ends when the socket does (valid HTTP/1.1).
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        for k, v in b.headers:
            self.send_header(k, v)
        self.end_headers()
        cid, created = f"chatcmpl-fault-{next(_ids)}", int(time.time())

        def event(delta: dict, finish: str | None = None, usage: dict | None = None) -> None:
            chunk = {"id": cid, "object": "chat.completion.chunk", "created": created,
                     "model": model, "choices": [] if usage else
                     [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if usage:
                chunk["usage"] = usage
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.flush()

        event({"role": "assistant", "content": ""})
        for piece in _pieces(b.reasoning_content):
            event({"reasoning_content": piece})
        for piece in _pieces(content):
            event({"content": piece})
        event({}, finish=b.finish_reason)
        if (request.get("stream_options") or {}).get("include_usage"):
            completion = b.completion_tokens if b.completion_tokens is not None \
                else len((content or "").split())
            prompt = b.prompt_tokens if b.prompt_tokens is not None else _count_prompt(request)
            event({}, usage={"prompt_tokens": prompt, "completion_tokens": completion,
                             "total_tokens": prompt + completion})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


_ids = itertools.count(1)


def _lower(headers: Any) -> dict[str, str]:
    # Clients differ in header case (httpx sends lower case); record one form.
    return {k.lower(): v for k, v in headers.items()}


def _pieces(text: str | None, size: int = 8) -> Iterator[str]:
    text = text or ""
    for i in range(0, len(text), size):
        yield text[i:i + size]


def _count_prompt(request: dict) -> int:
    return sum(len(str(m.get("content") or "").split())
               for m in request.get("messages") or [] if isinstance(m, dict))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256   # the default (5) drops bursts of concurrent connects
    owner: "FaultServer"

    def handle_error(self, request, client_address) -> None:
        # A client that hangs up (a run stopped on purpose) is not the server's error: its
        # traceback would land in the stderr that the tests read for the client's one line.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class FaultServer:
    """The running server: ``base_url`` (ends in ``/v1``), ``set_script``, ``requests``."""

    def __init__(self, model: str = "fault-model", script: Script | None = None, *,
                 max_model_len: int | None = None,
                 tokenize: Callable[[dict], tuple[int, Any]] | None = None,
                 chat_on_any_post: bool = False, models_status: int | None = None,
                 models_delay: float = 0.0):
        self.model = model
        self.models_status = models_status   # answer GET /v1/models with this error status
        self.models_delay = models_delay     # seconds before answering GET /v1/models
        self.script: Script = script or (lambda _req, _n: Behaviour.reply("ok"))
        self.max_model_len = max_model_len
        self.tokenize = tokenize
        self.chat_on_any_post = chat_on_any_post
        self.requests: list[dict] = []
        self.calls: list[RecordedRequest] = []
        self.trickled: list[tuple[int, int]] = []   # (body bytes sent, body length)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        host, port = self._httpd.server_address[:2]
        self.base_url = f"http://{host}:{port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name="fault-server", daemon=True)

    def start(self) -> "FaultServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "FaultServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def set_script(self, script: Script) -> None:
        self.script = script

    def wait_trickled(self, n: int, timeout: float = 30.0) -> list[tuple[int, int]]:
        """The first `n` trickled replies, once they have ended: a client that hung up is
        noticed only at the next byte written."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.trickled) >= n:
                    return list(self.trickled[:n])
            time.sleep(0.05)
        raise AssertionError(f"{len(self.trickled)} trickled replies ended, expected {n}")

    def reset(self) -> None:
        """Forget recorded requests (the request ordinal ``n`` restarts at 0)."""
        with self._lock:
            self.requests.clear()
            self.calls.clear()
            self.trickled.clear()

    def _record(self, method: str, path: str, headers: dict, body: Any,
                chat: bool = False) -> int:
        with self._lock:
            self.calls.append(RecordedRequest(method, path, headers, body))
            if not chat:
                return -1
            self.requests.append(body if isinstance(body, dict) else {"_raw": body})
            return len(self.requests) - 1


@pytest.fixture
def fault_server() -> Iterator[FaultServer]:
    """A fresh fault-injecting server per test, stopped (and its waits cut short) after it."""
    with FaultServer() as server:
        yield server
