"""The measures, each checked against a brute-force or hand-worked value: skeletons,
nearest neighbours, the diversity numbers, t-SNE's perplexity rule and normalisation."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from general365.analysis import neighbours as N
from general365.analysis import tsne as T
from general365.analysis.datasets import GENERAL365, AnalysisSet, Item
from general365.analysis.neighbours import diversity, local_collapse
from general365.analysis.skeleton import skeletons


def unit(a):
    a = np.asarray(a, dtype=np.float32)
    return a / np.linalg.norm(a, axis=1, keepdims=True)


# --- skeletons ------------------------------------------------------------------------------


def test_skeleton_masks_numbers_and_names_only():
    texts = ["Alice has 12 apples and gives Bruno 3.5 of them at 8:30.",
             "Chen has 7 apples and gives Dara 1,000 of them at 9:15.",
             "The apples are red. Each apple weighs 0.2 kg; the alice-blue box is empty."]
    out = skeletons(texts)
    assert out[0] == "Name has 0 apples and gives Name 0 of them at 0."
    assert out[0] == out[1]
    # "The" is kept (the set has "the"); "Each" is taken for a name: no lower-case "each"
    # anywhere in these three texts (a realistic set has one)
    assert out[2].startswith("The apples are red. Name apple weighs 0 kg; the alice-blue")
    # a name is masked only when it never occurs in lower case in the set
    assert skeletons(["Rose bought a rose."]) == ["Rose bought a rose."]
    assert skeletons(["I saw NASA and Ünal."]) == ["I saw NASA and Name."]


# --- nearest neighbours ---------------------------------------------------------------------


def brute(x, k):
    dense = x.toarray() if sp.issparse(x) else np.asarray(x)
    s = dense @ dense.T
    np.fill_diagonal(s, -np.inf)
    idx = np.array([sorted(range(len(s)), key=lambda j: (-s[i, j], j))[:k]
                    for i in range(len(s))])
    return idx, np.take_along_axis(s, idx, axis=1)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("k", [1, 4, 29])
def test_neighbours_match_brute_force_across_blocks(monkeypatch, sparse, k):
    monkeypatch.setattr(N, "BLOCK", 7)   # several blocks, the last one short
    rng = np.random.default_rng(0)
    x = unit(rng.normal(size=(30, 6)))
    x[5] = x[3]                          # a tie: 3 and 5 identical
    x = sp.csr_matrix(x) if sparse else x
    nb = N.nearest_neighbours(x, k=k)
    idx, sims = brute(x, k)
    assert nb.index.tolist() == idx.tolist()
    assert np.allclose(nb.similarity, sims, atol=1e-6)
    assert nb.nearest[3] == 5 and nb.nearest[5] == 3
    dense = x.toarray() if sparse else x
    s = dense @ dense.T
    assert nb.mean_pairwise == pytest.approx((s.sum() - np.trace(s)) / (30 * 29), abs=1e-6)


def test_k_is_capped_and_two_items_work():
    nb = N.nearest_neighbours(unit([[1, 0], [0.6, 0.8]]), k=10)
    assert nb.index.tolist() == [[1], [0]]
    assert nb.nearest_similarity.tolist() == pytest.approx([0.6, 0.6])
    with pytest.raises(ValueError):
        N.nearest_neighbours(unit([[1, 0]]))


# --- diversity numbers ------------------------------------------------------------------------


def test_diversity_numbers_by_hand():
    # two clusters of exact copies (0,1,2) and (3,4) plus an orthogonal loner (5)
    x = unit([[1, 0, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1]])
    s = AnalysisSet("t", "t", "questions", [Item(f"i{i}", f"q{i}") for i in range(6)])
    nb = N.nearest_neighbours(x, k=2)
    d = diversity(s, x, nb, threshold=0.9)
    assert d.nn_similarity.tolist() == pytest.approx([1, 1, 1, 1, 1, 0])
    assert d.near_duplicates.tolist() == [True] * 5 + [False]
    # pairs: 3 + 1 identical of 15 -> B = 4/15; k=2 densities: 1,1,1,.5,.5,0; densest 10% -> 1 item
    assert nb.mean_pairwise == pytest.approx(4 / 15)
    collapse, order = local_collapse(nb)
    assert collapse == pytest.approx(1.0) and order.tolist()[:3] == [0, 1, 2]
    out = d.to_dict()
    assert out["near_duplicate_share"] == pytest.approx(5 / 6)
    assert out["near_duplicate_count"] == 5
    assert out["nn_similarity_mean"] == pytest.approx(5 / 6)
    hist = out["nn_similarity_histogram"]
    assert sum(hist["counts"]) == 6 and hist["counts"][-1] == 5 and len(hist["edges"]) == 41
    assert out["near_copy_share"] is None and out["variant_seed_similarity_mean"] is None


def test_a_set_of_copies_is_fully_collapsed():
    x = unit(np.tile(np.random.default_rng(3).normal(size=(1, 384)), (7, 1)))
    nb = N.nearest_neighbours(x, k=3)
    assert local_collapse(nb)[0] == 1.0
    assert nb.nearest_similarity == pytest.approx(np.ones(7), abs=1e-5)


def test_local_collapse_is_zero_for_a_spread_set():
    # a regular simplex: every pair equally similar, no neighbourhood tighter than another
    x = unit(np.eye(8) - 1 / 8)
    nb = N.nearest_neighbours(x, k=3)
    collapse, _ = local_collapse(nb)
    assert collapse == pytest.approx(0.0, abs=1e-6)


def test_variants_flagged_against_their_own_seed():
    # a-v1 is its seed with the names and numbers swapped; b-v1 keeps its seed's story and
    # turns its question round (the largest for the smallest): a new question
    lift = ("{} takes the lift from floor {} to floor {}. The lift moves {} floors a minute. "
            "How many minutes does the ride take?")
    load = ("Each of {} crates holds at most {} kg, and no crate may hold two sacks. Sacks "
            "weigh {} kg and {} kg. What is the {} number of crates that can carry all the "
            "sacks?")
    items = [Item("a", lift.format("Ann", 2, 14, 3), seed_id="a", variant=0),
             Item("a-v1", lift.format("Bo", 1, 9, 2), seed_id="a", variant=1),
             Item("b", load.format(8, 40, 15, 25, "smallest"), seed_id="b", variant=0),
             Item("b-v1", load.format(8, 40, 15, 25, "largest"), seed_id="b", variant=1),
             Item("c-v1", "q", seed_id="c", variant=1)]   # its seed is not in the set
    x = unit([[1, 0, 0], [0.99, 0.141, 0], [0, 1, 0], [0.6, 0.8, 0], [0, 0, 1]])
    s = AnalysisSet("t", "t", GENERAL365, items)
    d = diversity(s, x, N.nearest_neighbours(x, k=2), threshold=0.95)
    assert [(l.variant_id, l.seed_id, l.near_copy) for l in d.links] == [
        ("a-v1", "a", True), ("b-v1", "b", False)]
    # the embedder's cosine is kept beside the structure score that decides
    assert d.links[1].similarity == pytest.approx(0.8, abs=1e-6)
    assert d.links[0].structure == pytest.approx(1.0) and d.links[1].structure < 0.9
    assert d.missing_seeds == 1 and d.near_copy_share == 0.5
    assert d.to_dict()["families_with_near_copy"] == 1


# --- t-SNE --------------------------------------------------------------------------------------


def test_perplexity_rule_and_normalisation():
    assert T.perplexity_for(1460) == 30.0
    assert T.perplexity_for(91) == 30.0
    assert T.perplexity_for(40) == pytest.approx(13.0)
    c = T.normalise(np.array([[0.0, 5.0], [10.0, 5.0], [5.0, 5.0]]))
    assert c.tolist() == [[-1.0, 0.0], [1.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("method", ["opentsne", "sklearn"])
def test_tsne_separates_clusters_in_unit_square(method):
    rng = np.random.default_rng(1)
    centres = unit(rng.normal(size=(3, 20))) * 5
    x = np.vstack([c + 0.05 * rng.normal(size=(15, 20)) for c in centres])
    r = T.tsne_2d(unit(x), method=method, seed=0)
    assert r.method == method and r.perplexity == pytest.approx(44 / 3)
    assert "perplexity 14.67 (the largest valid for 45 items) instead of 30" in r.note
    c = r.coords
    assert c.shape == (45, 2) and c.min() == pytest.approx(-1) and c.max() == pytest.approx(1)
    # every point is nearer its own cluster's centre than another cluster's
    means = [c[i * 15:(i + 1) * 15].mean(axis=0) for i in range(3)]
    for i in range(45):
        d = [np.linalg.norm(c[i] - m) for m in means]
        assert int(np.argmin(d)) == i // 15
    # the same seed gives the same picture
    assert np.allclose(T.tsne_2d(unit(x), method=method, seed=0).coords, c)


def test_tsne_small_and_degenerate_sets():
    r = T.tsne_2d(unit(np.eye(4)))
    assert r.coords is None and "t-SNE skipped: 4 items" in r.note
    same = T.tsne_2d(unit(np.ones((6, 3))))
    assert same.coords.tolist() == [[0.0, 0.0]] * 6 and "all items embed identically" in same.note
    sparse = T.tsne_2d(sp.csr_matrix(unit(np.eye(7) + 0.1)), method="sklearn")
    assert sparse.coords.shape == (7, 2)
