"""Headless Chromium for the tests of our self-contained pages (leaderboard, analysis,
audit review, expansion review): the `browser` fixture and the few DevTools calls the tests
make. Loaded as a plugin by tests/conftest.py.

Chromium is driven over its debugging pipe (no websocket package, no network port). Where
it is not installed the browser tests skip and say where they looked; scripts/test.sh
installs Debian's `chromium`.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

CHROMIUM = next((p for p in (os.environ.get("CHROMIUM"), shutil.which("chromium"),
                             shutil.which("chromium-browser"), shutil.which("google-chrome"),
                             "/usr/bin/chromium") if p and os.path.isfile(p)), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000", "--remote-debugging-pipe"]


def _high_fd(fd: int) -> int:
    import fcntl

    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class DevTools:
    """A minimal DevTools-protocol client over Chromium's debugging pipe."""

    def __init__(self, binary: str, profile: str):
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()
        # The child's ends must not be 3 or 4 themselves, or one dup2 below would overwrite
        # the other before it is used.
        to_child_r, from_child_w = (_high_fd(to_child_r), _high_fd(from_child_w))
        # A tiny Python step puts the pipe ends on 3 and 4 and becomes Chromium (the shell
        # cannot: dash takes only one-digit descriptors in redirections).
        step = ("import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); "
                "os.execv(sys.argv[3], sys.argv[3:])")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", step, str(to_child_r), str(from_child_w), binary, *FLAGS,
             f"--user-data-dir={profile}", "about:blank"],
            pass_fds=(to_child_r, from_child_w), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next = 0
        self.events: list[dict] = []

    def _read(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._r], [], [], left)[0]:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the debugging pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 60.0) -> dict:
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module (skips where none is installed)."""
    if CHROMIUM is None:
        pytest.skip("Chromium not found (looked for $CHROMIUM, chromium, chromium-browser, "
                    "google-chrome, /usr/bin/chromium); scripts/test.sh installs Debian's "
                    "`chromium`")
    profile = tempfile.mkdtemp(prefix="g365-chromium-")
    dt = DevTools(CHROMIUM, profile)
    try:
        yield dt
    finally:
        dt.close()
        shutil.rmtree(profile, ignore_errors=True)


def evaluate(dt: DevTools, session: str, expr: str):
    r = dt.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                     "awaitPromise": True}, session)
    if "exceptionDetails" in r:
        raise AssertionError(f"page script failed: {r['exceptionDetails']}")
    return r["result"].get("value")


def click(dt: DevTools, session: str, selector: str) -> None:
    box = evaluate(dt, session, f"""(() => {{
        const el = document.querySelector({json.dumps(selector)});
        el.scrollIntoView({{block: 'center'}});
        const r = el.getBoundingClientRect();
        return {{x: r.left + r.width / 2, y: r.top + r.height / 2}};
    }})()""")
    for kind in ("mousePressed", "mouseReleased"):
        dt.call("Input.dispatchMouseEvent", {"type": kind, "x": box["x"], "y": box["y"],
                                             "button": "left", "clickCount": 1}, session)


def wait_ready(dt: DevTools, session: str) -> None:
    """Until the page's script has run (our pages set data-ready="1" on <html> at the end)."""
    deadline = time.monotonic() + 60
    while evaluate(dt, session, "document.documentElement && "
                                "document.documentElement.getAttribute('data-ready')") != "1":
        assert time.monotonic() < deadline, "the page's script never ran"
        time.sleep(0.1)


def reload(dt: DevTools, session: str) -> None:
    """Reload the page and wait until the new document's script has run. The old document's
    mark goes first: a slow reload would otherwise let wait_ready see it and return before
    the new page has restored anything."""
    evaluate(dt, session, "document.documentElement.removeAttribute('data-ready')")
    dt.call("Page.reload", {}, session)
    wait_ready(dt, session)


def open_page(dt: DevTools, page: str | Path) -> str:
    """Open the local file `page` in a new tab, wait until its script has run; its session."""
    target = dt.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = dt.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    dt.call("Network.enable", {}, session)
    dt.call("Page.enable", {}, session)
    dt.call("Page.navigate", {"url": Path(page).resolve().as_uri()}, session)
    wait_ready(dt, session)
    return session
