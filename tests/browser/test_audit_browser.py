"""The audit's review page in headless Chromium: real mouse clicks mark verdicts right and
wrong, a typed note, the export downloads a labels file that `audit score` reads, a reload
keeps the marks, model text stays text, and nothing is fetched from the network.

Chromium is driven over its DevTools pipe by test_report_browser's small client (no extra
package)."""

from __future__ import annotations

import json
import os
import time

import pytest

from general365.cli import main
from test_audit import graded_row, read_jsonl, write_jsonl
from support.browser import click, evaluate, open_page, reload

pytestmark = pytest.mark.browser

EVIL = '<img src=x onerror="document.title=\'pwned\'">Evil & "Co"'


@pytest.fixture(scope="module")
def review_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("audit-page")
    rows = [graded_row(i, st, "rule", "number", model="m")
            for i, st in enumerate(["correct", "incorrect", "correct", "no_answer", "correct"])]
    rows.append(graded_row(9, "correct", "judge", "number", model="m",
                           response=f"<think>x</think>{EVIL} \\boxed{{9}}",
                           detail="rule: incorrect; judge: ok",
                           judge={"model": "j", "raw": '{"accuracy": true}'}))
    graded = write_jsonl(folder / "graded.jsonl", rows)
    out = folder / "review"
    assert main(["audit", "sample", graded, "--n", "5", "--out", str(out)]) == 0
    return out


def item_of(dt, session, rid: str) -> int:
    """The review item number of the graded row `rid` (the order is the sample's)."""
    return evaluate(dt, session, f"""(() => {{
        const s = Array.from(document.querySelectorAll('section.item'))
            .find(s => s.querySelector('h2').textContent.includes(' \\u00b7 {rid} \\u00b7 '));
        return parseInt(s.getAttribute('data-item'));
    }})()""")


def state(dt, session, item: int):
    return evaluate(dt, session, f"""(() => {{
        const s = document.getElementById('item-{item}');
        const r = s.querySelector('input.mark-right'), w = s.querySelector('input.mark-wrong');
        return [s.getAttribute('data-label'), r.checked, w.checked,
                s.querySelector('textarea.note').value];
    }})()""")


def test_mark_export_reload_and_score(browser, review_dir, tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.call("Browser.setDownloadBehavior", {"behavior": "allow",
                                                 "downloadPath": str(downloads)})
    s = open_page(browser, review_dir / "review.html")

    review = read_jsonl(review_dir / "review.jsonl")
    assert evaluate(browser, s, "document.querySelectorAll('section.item').length") == len(review)
    assert evaluate(browser, s, "document.getElementById('progress').textContent") == \
        f"0 of {len(review)} marked (0 wrong)"
    # model text stays text
    assert evaluate(browser, s, "document.title") == "General365 grading audit"
    assert evaluate(browser, s, "document.images.length") == 0
    assert EVIL in evaluate(browser, s, "document.body.innerText")

    right, wrong, cleared = item_of(browser, s, "p0"), item_of(browser, s, "p9"), item_of(browser, s, "p1")
    click(browser, s, f"#item-{right} input.mark-right")
    click(browser, s, f"#item-{wrong} input.mark-wrong")
    click(browser, s, f"#item-{wrong} textarea.note")
    browser.call("Input.insertText", {"text": "the judge accepted 9; the gold is 8"}, s)
    click(browser, s, f"#item-{cleared} input.mark-wrong")
    click(browser, s, f"#item-{cleared} button.clear")
    assert state(browser, s, right) == ["right", True, False, ""]
    assert state(browser, s, wrong) == ["wrong", False, True, "the judge accepted 9; the gold is 8"]
    assert state(browser, s, cleared) == ["", False, False, ""]
    assert evaluate(browser, s, "document.getElementById('progress').textContent") == \
        f"2 of {len(review)} marked (1 wrong)"

    # the filter shows only what was marked wrong
    evaluate(browser, s, """(() => {const f = document.getElementById('filter');
        f.value = 'wrong'; f.dispatchEvent(new Event('change')); })()""")
    shown = evaluate(browser, s, "Array.from(document.querySelectorAll('section.item'))"
                                 ".filter(x => !x.hidden).map(x => x.id)")
    assert shown == [f"item-{wrong}"]

    # export: a real download of the labels file
    click(browser, s, "#export")
    deadline = time.monotonic() + 30
    while True:
        done = [f for f in os.listdir(downloads) if f.endswith(".jsonl")]
        if done:
            break
        assert time.monotonic() < deadline, f"no download: {os.listdir(downloads)}"
        time.sleep(0.2)
    [name] = done
    sample_id = json.loads((review_dir / "sample.json").read_text())["sample_id"]
    assert name == f"labels-{sample_id}.jsonl"
    labels = read_jsonl(downloads / name)
    expected = {right: ("p0", "right", ""),
                wrong: ("p9", "wrong", "the judge accepted 9; the gold is 8")}
    assert [(r["id"], r["label"], r["note"]) for r in labels] == \
        [expected[k] for k in sorted(expected)]  # in review order
    assert all("final" not in r and "response_tail" not in r for r in labels)
    assert all(r["sample_id"] == sample_id and r["stratum_size"] >= 1 for r in labels)
    assert evaluate(browser, s, "document.getElementById('exported').value") == \
        (downloads / name).read_text()

    # a reload keeps the marks (localStorage, under the sample's id)
    reload(browser, s)
    assert state(browser, s, right) == ["right", True, False, ""]
    assert state(browser, s, wrong) == ["wrong", False, True, "the judge accepted 9; the gold is 8"]

    # a fresh browser (no stored marks) picks the marks up from the exported file
    evaluate(browser, s, "localStorage.clear()")
    reload(browser, s)
    assert state(browser, s, wrong) == ["", False, False, ""]
    root = browser.call("DOM.getDocument", {}, s)["root"]["nodeId"]
    node = browser.call("DOM.querySelector", {"nodeId": root, "selector": "#import"}, s)["nodeId"]
    browser.call("DOM.setFileInputFiles", {"files": [str(downloads / name)], "nodeId": node}, s)
    deadline = time.monotonic() + 30
    while evaluate(browser, s, "document.getElementById('status').textContent") != \
            "imported 2 label(s)":
        assert time.monotonic() < deadline, "the labels file was never imported"
        time.sleep(0.1)
    assert state(browser, s, wrong) == ["wrong", False, True, "the judge accepted 9; the gold is 8"]
    assert state(browser, s, right) == ["right", True, False, ""]

    # nothing but the file itself (and the export's blob) was requested
    urls = [e["params"]["request"]["url"] for e in browser.events
            if e.get("method") == "Network.requestWillBeSent"]
    assert urls and all(u.startswith(("file:", "data:", "blob:")) for u in urls), urls

    # the exported file is a labels file: score it
    out = tmp_path / "score"
    assert main(["audit", "score", str(downloads / name), "--out", str(out)]) == 0
    data = json.loads((out / "score.json").read_text())
    assert data["labelled"] == 2
    assert (data["overall"]["tp"], data["overall"]["fp"]) == (1, 1)
    assert data["method"]["judge"]["fp"] == 1 and data["method"]["rule"]["tp"] == 1
