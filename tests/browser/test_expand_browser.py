"""The expansion review page in headless Chromium: real clicks accept and reject candidates,
an edit fixes a gold that did not parse, a typed note, the export downloads a decisions
file that `expand select` takes, a reload keeps the decisions, an import restores them,
model text stays text, and nothing is fetched from the network.

Chromium is driven over its DevTools pipe by test_report_browser's small client."""

from __future__ import annotations

import json
import os
import time

import pytest

from general365.cli import main
from support.expansion import expansion_script, sample_families
from support.servers import Behaviour, FaultServer
from support.browser import click, evaluate, open_page, reload

pytestmark = pytest.mark.browser

EVIL = '<img src=x onerror="document.title=\'pwned\'">Evil & "Co"'


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("expand-page")
    ids = tmp / "ids.txt"
    ids.write_text("g365s-001\n")
    scripted = expansion_script()

    def script(request, n):
        if request["seed"] // 1000003 == 2:   # candidate 2: hostile text
            return Behaviour.reply(json.dumps({
                "question": EVIL + " Put your final answer in \\boxed{}.", "reasoning": EVIL,
                "answer": "12", "answer_type": "number", "float_round": 0, "change": EVIL}))
        return scripted(request, n)

    out = tmp / "exp"
    with FaultServer(script=script) as server:
        assert main(["expand", "sample", "--model", server.model, "--backend", "openai",
                     "--base-url", server.base_url, "--out", str(out), "--candidates", "4",
                     "--ids", str(ids), "--max-tokens", "400", "--no-progress"]) == 0
    assert main(["expand", "review", str(out)]) == 0
    return out


def item(dt, s, candidate: int) -> int:
    return evaluate(dt, s, f"parseInt(document.querySelector('article.cand[data-candidate="
                           f"\"{candidate}\"]').getAttribute('data-item'))")


def state(dt, s, i: int):
    return evaluate(dt, s, f"""(() => {{
        const a = document.getElementById('cand-{i}');
        return [a.getAttribute('data-decision'), a.querySelector('input.decide-accept').checked,
                a.querySelector('input.decide-reject').checked,
                a.querySelector('textarea.note').value];
    }})()""")


def progress(dt, s) -> str:
    return evaluate(dt, s, "document.getElementById('progress').textContent")


def test_accept_reject_edit_export_and_select(browser, folder, tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.call("Browser.setDownloadBehavior", {"behavior": "allow",
                                                 "downloadPath": str(downloads)})
    s = open_page(browser, folder / "review.html")

    assert evaluate(browser, s, "document.querySelectorAll('section.family').length") == 1
    assert evaluate(browser, s, "document.querySelectorAll('article.cand').length") == 4
    assert progress(browser, s) == "0 of 4 decided (0 accepted, 0 rejected)"
    # model text stays text; flags and their reasons are shown
    assert evaluate(browser, s, "document.title") == "General365 variant review"
    assert evaluate(browser, s, "document.images.length") == 0
    assert EVIL in evaluate(browser, s, "document.body.innerText")
    text = evaluate(browser, s, "document.getElementById('cand-3').innerText")
    assert "gold_unparseable" in text and "'many'" in text

    c0, c2, c3 = item(browser, s, 0), item(browser, s, 2), item(browser, s, 3)
    click(browser, s, f"#cand-{c0} input.decide-accept")
    click(browser, s, f"#cand-{c2} input.decide-reject")
    click(browser, s, f"#cand-{c2} textarea.note")
    browser.call("Input.insertText", {"text": "hostile"}, s)
    # edit the gold of candidate 3 (it did not parse): an edit accepts it
    gold = sample_families()["g365s-001"][3].answer
    click(browser, s, f"#cand-{c3} button.edit")
    click(browser, s, f"#cand-{c3} input.edit-answer")
    evaluate(browser, s, f"document.querySelector('#cand-{c3} input.edit-answer').select()")
    browser.call("Input.insertText", {"text": gold}, s)
    assert state(browser, s, c0) == ["accept", True, False, ""]
    assert state(browser, s, c2) == ["reject", False, True, "hostile"]
    assert state(browser, s, c3) == ["accept", True, False, ""]
    assert "edited: answer" in evaluate(browser, s, f"document.getElementById('cand-{c3}')"
                                                    ".querySelector('h3').textContent")
    assert progress(browser, s) == "3 of 4 decided (2 accepted, 1 rejected)"

    evaluate(browser, s, """(() => {const f = document.getElementById('filter');
        f.value = 'undecided'; f.dispatchEvent(new Event('change')); })()""")
    shown = evaluate(browser, s, "Array.from(document.querySelectorAll('article.cand'))"
                                 ".filter(x => !x.hidden).map(x => x.getAttribute('data-candidate'))")
    assert shown == ["1"]

    click(browser, s, "#export")
    deadline = time.monotonic() + 30
    while not (downloads / "decisions.jsonl").exists():
        assert time.monotonic() < deadline, f"no download: {os.listdir(downloads)}"
        time.sleep(0.2)
    time.sleep(0.3)
    exported = downloads / "decisions.jsonl"
    rows = [json.loads(x) for x in exported.read_text().splitlines()]
    assert rows == [
        {"seed_id": "g365s-001", "candidate": 0, "decision": "accept", "note": ""},
        {"seed_id": "g365s-001", "candidate": 2, "decision": "reject", "note": "hostile"},
        {"seed_id": "g365s-001", "candidate": 3, "decision": "accept", "answer": gold,
         "note": ""}]

    # a reload keeps the decisions; a fresh browser takes them from the exported file
    reload(browser, s)
    assert state(browser, s, c2) == ["reject", False, True, "hostile"]
    evaluate(browser, s, "localStorage.clear()")
    reload(browser, s)
    assert progress(browser, s) == "0 of 4 decided (0 accepted, 0 rejected)"
    root = browser.call("DOM.getDocument", {}, s)["root"]["nodeId"]
    node = browser.call("DOM.querySelector", {"nodeId": root, "selector": "#import"}, s)["nodeId"]
    browser.call("DOM.setFileInputFiles", {"files": [str(exported)], "nodeId": node}, s)
    deadline = time.monotonic() + 30
    while evaluate(browser, s, "document.getElementById('status').textContent") != \
            "imported 3 decision(s)":
        assert time.monotonic() < deadline, "the decisions file was never imported"
        time.sleep(0.1)
    assert state(browser, s, c3) == ["accept", True, False, ""]
    assert evaluate(browser, s, f"document.querySelector('#cand-{c3} input.edit-answer')"
                                ".value") == gold

    urls = [e["params"]["request"]["url"] for e in browser.events
            if e.get("method") == "Network.requestWillBeSent"]
    assert urls and all(u.startswith(("file:", "data:", "blob:")) for u in urls), urls
    assert evaluate(browser, s, "document.title") == "General365 variant review"

    # the exported file is what select takes
    out = tmp_path / "variants.jsonl"
    assert main(["expand", "select", str(folder), "--decisions", str(exported),
                 "--per-seed", "3", "--out", str(out)]) == 0
    got = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in got] == ["g365s-001", "g365s-001-v1", "g365s-001-v2"]
    assert gold in {r["answer"] for r in got[1:]}
