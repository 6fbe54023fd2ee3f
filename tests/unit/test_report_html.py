"""The page's text, without a browser: self-contained, escaped, complete."""

from __future__ import annotations

import json
import re

from general365.cli import main
from test_report_cases import alpha_rows, mixed_rows, write_jsonl

EVIL = '</script><script>alert("x")</script><b>bold</b> & co'


def test_page_is_self_contained_and_escaped(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    write_jsonl(str(run_dir / "graded.jsonl"),
                [dict(r, model=EVIL, judge={"model": "judge<i>", "raw": "", "votes": []})
                 for r in alpha_rows()])
    (run_dir / "run.json").write_text(json.dumps({
        "model": EVIL, "backend": "openai", "dataset": {"source": "<hub>"},
        "sampling": {"preset": "reasoning"}}), encoding="utf-8")
    other = write_jsonl(str(tmp_path / "b.jsonl"), mixed_rows())
    out = tmp_path / "report"
    assert main(["report", str(run_dir / "graded.jsonl"), other, "--out", str(out),
                 "--bootstrap", "200"]) == 0
    page = (out / "index.html").read_text(encoding="utf-8")
    # user text never becomes markup
    assert EVIL not in page and "<b>bold</b>" not in page and "judge<i>" not in page
    assert "&lt;/script&gt;&lt;script&gt;alert(&quot;x&quot;)" in page
    assert page.count("<script>") == 1 and page.count("</script>") == 1
    # nothing is loaded from anywhere: no external URLs in src/href, no <link>, a strict CSP
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "<link" not in page and "@import" not in page
    assert "default-src &#x27;none&#x27;" in page
    assert page.count('src="data:image/svg+xml;base64,') == 3
    # the parts the brief asks for
    for needle in ('id="leaderboard"', 'id="statuses"', 'id="stability"', "Provenance",
                   "run.json backend", "openai", "judge_models", "no_answer", "judge_failed",
                   "Gemini-3-Pro"):
        assert needle in page, needle
