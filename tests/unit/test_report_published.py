"""The paper's numbers as bundled: row counts, cells, ranking, and the known quirks."""

from __future__ import annotations

import os

import pytest

from general365.reporting import published as pub
from general365.reporting.summary import ranked, summarize_published
from general365.schema import Category


def test_table1_transcription():
    t = pub.table1()
    assert len(t) == 26
    assert sum(m.group == "reasoning" for m in t) == 23
    assert [m.name for m in t if m.group == "chat"] == [
        "Qwen3-Max-Instruct", "LongCat-Flash-2512", "DeepSeek-V3.2-Chat"]
    by = {m.name: m for m in t}
    assert len(by) == 26
    g = by["Gemini-3-Pro"]
    assert g.overall == pytest.approx(0.628)
    assert list(g.categories) == [c.value for c in Category]
    assert [round(100 * g.categories[c.value], 1) for c in Category] == \
        [65.3, 64.3, 57.6, 66.8, 55.7, 68.8, 50.8, 54.5]
    assert by["DeepSeek-V3.2-Chat"].categories["Implicit Information"] == pytest.approx(0.296)
    assert by["GLM-5-Thinking"].categories["Branching & Enumeration"] == pytest.approx(0.691)
    assert by["Gemini-2.5-Flash"].overall == pytest.approx(0.396)
    assert by["Claude-Sonnet-4.5"].categories["Probability & Uncertainty"] == pytest.approx(0.352)


def test_table1_ranking_is_the_papers():
    t = pub.table1()
    # the paper ranks by Overall within each group; our ranking reproduces its order
    assert [m.name for m in ranked([summarize_published(m) for m in t])] == [m.name for m in t]
    assert [m.paper_rank for m in t] == list(range(1, 27))
    for group in ("reasoning", "chat"):
        overall = [m.overall for m in t if m.group == group]
        assert overall == sorted(overall, reverse=True)


def test_table2_public_subset():
    t2 = pub.table2()
    assert len(t2) == 25
    by = {m.name: m for m in t2}
    assert "LongCat-Flash-Thinking-2509" not in by  # absent from the paper's Table 2
    assert by["Gemini-3-Pro"].overall == pytest.approx(0.613)
    assert by["Kimi-K2.5-Thinking"].overall == pytest.approx(0.571)
    assert by["o3-mini"].overall == pytest.approx(0.444)
    assert all(m.benchmark == "public" and m.categories == {} for m in t2)
    assert by["DeepSeek-V3.2-Chat"].group == "chat"
    # Table 2's full column repeats Table 1's Overall, except one printed difference
    full = {r["model"]: float(r["full"]) / 100 for r in pub.read_csv("table2_public.csv")}
    t1 = {m.name: m.overall for m in pub.table1()}
    differ = {k for k, v in full.items() if v != pytest.approx(t1[k])}
    assert differ == {"LongCat-Flash-2512"}
    assert (full["LongCat-Flash-2512"], t1["LongCat-Flash-2512"]) == \
        (pytest.approx(0.413), pytest.approx(0.417))


def test_table3_stability():
    t3 = pub.table3()
    assert [s.name for s in t3] == ["DeepSeek-V3.2-Thinking", "Kimi-K2-Thinking",
                                    "GLM-4.7-Thinking", "LongCat-Flash-Thinking-2601",
                                    "LongCat-Flash-2512"]
    t1 = {m.name: m.overall for m in pub.table1()}
    for s in t3:
        assert len(s.runs) == 4
        assert s.delta == pytest.approx(max(s.runs) - min(s.runs), abs=1e-9)
        assert s.runs[3] == pytest.approx(t1[s.name])  # "Rep 4 (Acc)" is Table 1's figure


def test_source_note_is_shipped():
    text = open(os.path.join(pub.PUBLISHED_DIR, "SOURCE.md"), encoding="utf-8").read()
    assert "Table 1" in text and "Table 2" in text and "Table 3" in text
    assert pub.published("none") == []
