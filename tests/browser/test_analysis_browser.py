"""The analysis page in headless Chromium (driven over its DevTools pipe, as the report's
page test does): the figures decode, a real click sorts the overview table, nothing is
fetched from the network, a hostile dataset name stays text, and the screenshot is not
blank."""

from __future__ import annotations

import base64
import io
import json

import pytest

from general365.cli import main
from support.templated import write_templated
from support.browser import click, evaluate, open_page

pytestmark = pytest.mark.browser

# No '=' in it: NAME=SOURCE splits at the first one.
EVIL = '<script>document.title ? alert(1) : 0</script>Evil & "Co"'


@pytest.fixture(scope="module")
def page_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("analysis-page")
    tpl = write_templated(folder / "templated.jsonl")
    out = folder / "out"
    assert main(["analyze", "sample", f"{EVIL}={tpl}", "--embedder", "tfidf", "--out",
                 str(out), "--no-progress"]) == 0
    return out


def _column(dt, session, name):
    return evaluate(dt, session, f"""(() => {{
        const t = document.getElementById('datasets');
        const i = Array.from(t.tHead.rows[0].cells)
            .findIndex(c => c.textContent === {json.dumps(name)});
        return Array.from(t.tBodies[0].rows).map(r => r.cells[i].textContent);
    }})()""")


def test_analysis_page_in_headless_chromium(browser, page_dir):
    session = open_page(browser, page_dir / "index.html")

    assert evaluate(browser, session, "document.title") == "General365 benchmark analysis"
    assert evaluate(browser, session, "document.scripts.length") == 1   # ours only
    assert _column(browser, session, "Dataset") == ["sample", EVIL]

    # a click on "Near-duplicate share (%)" sorts it descending (numbers), the next ascending
    header = "Near-duplicate share (%)"
    idx = evaluate(browser, session, f"""Array.from(document.getElementById('datasets')
        .tHead.rows[0].cells).findIndex(c => c.textContent === {json.dumps(header)}) + 1""")
    assert idx > 0
    click(browser, session, f"#datasets thead th:nth-child({idx})")
    assert _column(browser, session, "Dataset") == [EVIL, "sample"]
    assert _column(browser, session, header)[0] == "100.0"
    click(browser, session, f"#datasets thead th:nth-child({idx})")
    assert _column(browser, session, "Dataset") == ["sample", EVIL]

    # the figures are inline images that decoded
    imgs = evaluate(browser, session, """Array.from(document.images).map(i => [
        i.complete, i.naturalWidth, i.src.slice(0, 5), i.alt])""")
    assert len(imgs) == 3 and all(ok and w > 100 and src == "data:" for ok, w, src, _ in imgs)
    assert any("Figure 6" in alt for *_, alt in imgs)

    # the measures are explained, the notes and settings are there
    text = evaluate(browser, session, "document.body.innerText")
    assert "Local collapse" in text and "near-duplicate threshold 0.9" in text
    assert "Each variant's similarity to its seed" in text

    urls = [e["params"]["request"]["url"] for e in browser.events
            if e.get("method") == "Network.requestWillBeSent"]
    assert urls and all(u.startswith(("file:", "data:")) for u in urls), urls

    evaluate(browser, session, "window.scrollTo(0, 0)")
    shot = base64.b64decode(browser.call("Page.captureScreenshot", {"format": "png"},
                                         session)["data"])
    (page_dir / "screenshot.png").write_bytes(shot)
    from PIL import Image

    img = Image.open(io.BytesIO(shot)).convert("RGB")
    colors = img.getcolors(maxcolors=1 << 20)
    assert colors is not None and len(colors) > 20
    white = sum(n for n, c in colors if c == (255, 255, 255))
    assert white < 0.97 * img.size[0] * img.size[1]
