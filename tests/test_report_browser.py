"""The leaderboard page in a real browser: headless Chromium loads index.html from the file,
a real mouse click on a header sorts the table, nothing is fetched from the network, user
text stays text, and a screenshot is taken and checked to be non-blank.

Chromium is driven over its DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON
messages ending in NUL on file descriptors 3 and 4), so no extra package is needed.
"""

from __future__ import annotations

import base64
import io
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from general365.cli import main
from test_report_cases import alpha_rows, mixed_rows, write_jsonl

pytestmark = pytest.mark.browser

CHROMIUM = next((p for p in (os.environ.get("CHROMIUM"), shutil.which("chromium"),
                             shutil.which("chromium-browser"), shutil.which("google-chrome"),
                             "/usr/bin/chromium") if p and os.path.isfile(p)), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000", "--remote-debugging-pipe"]
EVIL = '<img src=x onerror="document.title=\'pwned\'">Evil & "Co"'


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
def page_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("browser")
    evil = [dict(r, model=EVIL) for r in mixed_rows() if r["model"] == "beta"]
    a = write_jsonl(str(folder / "a.jsonl"), alpha_rows())
    b = write_jsonl(str(folder / "b.jsonl"), evil)
    out = folder / "report"
    assert main(["report", a, b, "--out", str(out), "--bootstrap", "200"]) == 0
    return out


@pytest.fixture(scope="module")
def browser():
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


def column(dt, session, name):
    return evaluate(dt, session, f"""(() => {{
        const t = document.getElementById('leaderboard');
        const i = Array.from(t.tHead.rows[0].cells).findIndex(c => c.textContent === {json.dumps(name)});
        return Array.from(t.tBodies[0].rows).map(r => r.cells[i].textContent);
    }})()""")


def test_page_in_headless_chromium(browser, page_dir):
    url = (page_dir / "index.html").resolve().as_uri()
    target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.call("Target.attachToTarget",
                           {"targetId": target, "flatten": True})["sessionId"]
    browser.call("Network.enable", {}, session)
    browser.call("Page.enable", {}, session)
    browser.call("Page.navigate", {"url": url}, session)
    deadline = time.monotonic() + 60
    while evaluate(browser, session,
                   "document.documentElement && document.documentElement.getAttribute('data-ready')") != "1":
        assert time.monotonic() < deadline, "the page's script never ran"
        time.sleep(0.2)

    # user text stays text: no injected element ran, the name shows as written
    assert evaluate(browser, session, "document.title") == "General365 leaderboard"
    names = column(browser, session, "Model")
    assert EVIL in names and "alpha" in names and "Gemini-3-Pro" in names
    assert len(names) == 2 + 26

    # a real click on "Model" sorts by name (text: ascending first) ...
    click(browser, session, "#leaderboard thead th:nth-child(2)")
    after = column(browser, session, "Model")
    assert after != names
    expected = evaluate(browser, session,
                        f"{json.dumps(names)}.slice().sort((a, b) => a.localeCompare(b))")
    assert after == expected
    # ... and two clicks on "Overall" sort it descending, then ascending
    overall_th = "#leaderboard thead th:nth-child(5)"
    assert evaluate(browser, session,
                    f"document.querySelector({json.dumps(overall_th)}).textContent") == "Overall"
    click(browser, session, overall_th)
    desc = [float(x) for x in column(browser, session, "Overall")]
    assert desc == sorted(desc, reverse=True)
    click(browser, session, overall_th)
    asc = [float(x) for x in column(browser, session, "Overall")]
    assert asc == sorted(asc)
    # 37.6% and 39.6% (the paper's lowest two), then the user's 40.0%
    assert column(browser, session, "Model")[:3] == ["DeepSeek-V3.2-Chat", "Gemini-2.5-Flash",
                                                     EVIL]
    assert evaluate(browser, session,
                    f"document.querySelector({json.dumps(overall_th)}).getAttribute('aria-sort')"
                    ) == "ascending"

    # the figures are inline images that decoded
    sizes = evaluate(browser, session, """Array.from(document.images).map(i => [
        i.complete, i.naturalWidth, i.src.slice(0, 5)])""")
    assert len(sizes) == 3 and all(ok and w > 100 and src == "data:" for ok, w, src in sizes)

    # nothing but the file itself and data: URLs was requested
    urls = [e["params"]["request"]["url"] for e in browser.events
            if e.get("method") == "Network.requestWillBeSent"]
    assert urls and all(u.startswith(("file:", "data:")) for u in urls), urls

    # a screenshot that is not blank
    evaluate(browser, session, "window.scrollTo(0, 0)")
    shot = base64.b64decode(browser.call("Page.captureScreenshot", {"format": "png"},
                                         session)["data"])
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    (page_dir / "screenshot.png").write_bytes(shot)
    from PIL import Image

    img = Image.open(io.BytesIO(shot)).convert("RGB")
    assert img.size[0] >= 800 and img.size[1] >= 600
    colors = img.getcolors(maxcolors=1 << 20)
    assert colors is not None and len(colors) > 20        # text, table stripes, highlights
    white = sum(n for n, c in colors if c == (255, 255, 255))
    assert white < 0.97 * img.size[0] * img.size[1]      # not an empty white page
