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

import pytest

from general365.cli import main
from support.browser import click, evaluate, open_page
from test_report_cases import alpha_rows, mixed_rows, write_jsonl

pytestmark = pytest.mark.browser

EVIL = '<img src=x onerror="document.title=\'pwned\'">Evil & "Co"'


@pytest.fixture(scope="module")
def page_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("browser")
    evil = [dict(r, model=EVIL) for r in mixed_rows() if r["model"] == "beta"]
    a = write_jsonl(str(folder / "a.jsonl"), alpha_rows())
    b = write_jsonl(str(folder / "b.jsonl"), evil)
    out = folder / "report"
    assert main(["report", a, b, "--out", str(out), "--bootstrap", "200"]) == 0
    return out


def column(dt, session, name):
    return evaluate(dt, session, f"""(() => {{
        const t = document.getElementById('leaderboard');
        const i = Array.from(t.tHead.rows[0].cells).findIndex(c => c.textContent === {json.dumps(name)});
        return Array.from(t.tBodies[0].rows).map(r => r.cells[i].textContent);
    }})()""")


def test_page_in_headless_chromium(browser, page_dir):
    session = open_page(browser, page_dir / "index.html")

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


# A checkpoint folder given as the model: no space or hyphen to break the line at
LONG = ("/mnt/shared/checkpoints/qwen3_8b_reasoning_sft_lr2e_5_bs256_epochs3_general365_mix_"
        "v2_seed1234_step000120000_merged_bf16_with_chat_template_and_thinking_enabled_final")


@pytest.fixture(scope="module")
def wide_page(tmp_path_factory):
    # a model named by its path (no space to break at), with the paper's 26 models beside it
    folder = tmp_path_factory.mktemp("wide")
    a = write_jsonl(str(folder / "a.jsonl"), [dict(r, model=LONG) for r in alpha_rows()])
    b = write_jsonl(str(folder / "b.jsonl"), mixed_rows())
    out = folder / "report"
    assert main(["report", a, b, "--out", str(out), "--bootstrap", "200"]) == 0
    return out


@pytest.mark.parametrize("width", [1400, 420])
def test_wide_tables_scroll_in_their_box_and_the_page_does_not(browser, wide_page, width):
    session = open_page(browser, wide_page / "index.html")
    browser.call("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
                 session)
    page = evaluate(browser, session, """(() => {
        const d = document.documentElement;
        return {scroll: d.scrollWidth, client: d.clientWidth,
                body: document.body.scrollWidth};
    })()""")
    assert page["scroll"] <= page["client"] and page["body"] <= page["client"], page
    for table in ("leaderboard", "table1_categories"):
        box = evaluate(browser, session, f"""(() => {{
            const w = document.getElementById({json.dumps(table)}).closest('.wrap');
            const r = w.getBoundingClientRect();
            w.scrollLeft = 200;
            return {{left: r.left, right: r.right, scroll: w.scrollWidth,
                     client: w.clientWidth, scrolled: w.scrollLeft,
                     overflow: getComputedStyle(w).overflowX}};
        }})()""")
        # wider than its box, which stays on the page and scrolls sideways
        assert box["scroll"] > box["client"], (table, box)
        assert 0 <= box["left"] and box["right"] <= page["client"], (table, box)
        assert box["overflow"] in ("auto", "scroll") and box["scrolled"] > 0, (table, box)
    if width == 1400:
        evaluate(browser, session, "window.scrollTo(0, 0); document.querySelectorAll("
                                   "'.wrap').forEach(w => { w.scrollLeft = 0; })")
        shot = base64.b64decode(browser.call("Page.captureScreenshot", {"format": "png"},
                                             session)["data"])
        (wide_page / "screenshot-1400.png").write_bytes(shot)
        from PIL import Image

        img = Image.open(io.BytesIO(shot)).convert("RGB")
        assert img.size[0] == 1400
        # nothing is drawn in the page's right margin (16 px, left of the window's own
        # scrollbar): the tables end at their box
        right = page["client"]
        margin = img.crop((right - 14, 0, right, img.size[1])).getcolors(maxcolors=1 << 16)
        assert {c for _, c in margin} <= {(255, 255, 255)}, margin[:5]
