"""A persistent SQLite cache of embeddings, keyed by (embedder identity, text hash).

A rerun embeds only texts it has not seen; a run killed half-way keeps every batch it
finished (each batch is committed), so the next run resumes without loss or duplication.
Two processes may share the file (WAL, a busy timeout). The identity names the model and,
for a local model folder, a fingerprint of its files (see embed.py), so that a changed
model never reuses another's vectors.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from ..errors import UserError

CACHE_ENV = "GENERAL365_CACHE_DIR"   # the folder the judge cache uses too
CACHE_FILE = "embeddings.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, text_hash)
)
"""


def default_cache_path() -> Path:
    """$GENERAL365_CACHE_DIR/embeddings.sqlite, else $XDG_CACHE_HOME or ~/.cache, /general365."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser() / CACHE_FILE
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "general365" / CACHE_FILE


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path).expanduser() if path is not None else default_cache_path()
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise UserError(f"embedding cache {self.path}: cannot open ({exc}); expected a "
                            "writable SQLite file (or pass --no-embed-cache)") from None

    def get_many(self, model: str, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        wanted = list(dict.fromkeys(hashes))
        with self._lock:
            for start in range(0, len(wanted), 500):   # SQLite's bound-parameter limit
                chunk = wanted[start:start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT text_hash, dim, vector FROM embeddings WHERE model=? AND "
                    f"text_hash IN ({marks})", (model, *chunk)).fetchall()
                for h, dim, blob in rows:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape[0] == dim:   # a torn or foreign row is treated as a miss
                        out[h] = vec
        return out

    def put_many(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Store and commit at once: what is stored survives a kill."""
        rows = [(model, h, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes())
                for h, v in vectors.items()]
        with self._lock:
            try:
                self._db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)",
                                     rows)
                self._db.commit()
            except sqlite3.Error as exc:
                raise UserError(f"embedding cache {self.path}: cannot write ({exc})") from None

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "EmbeddingCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
