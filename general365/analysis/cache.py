"""A persistent SQLite cache of embeddings, keyed by (embedder identity, text hash): each
batch is committed, so a killed run resumes without loss. The file is marked as ours
(`application_id`): another application's file, or ours with other tables or columns, is
refused before anything is written; a damaged row is a miss (embedded again)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from ..errors import UserError
from ..sqlite_cache import NotOurs, SqliteCache, check_columns, default_path
from ..validators import is_int

CACHE_FILE = "embeddings.sqlite"
APPLICATION_ID = 0x47334542   # "G3EB" in the SQLite header: this file is an embedding cache
_COLUMNS = ("model", "text_hash", "dim", "vector")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, text_hash)
)
"""


def _vector(dim, blob) -> np.ndarray | None:
    """A stored row's vector; None for a damaged one (then a miss)."""
    if not isinstance(blob, bytes) or not is_int(dim) or dim < 1 or len(blob) != 4 * dim:
        return None
    vec = np.frombuffer(blob, dtype=np.float32)
    return vec if np.isfinite(vec).all() else None


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache(SqliteCache):
    def __init__(self, path: str | os.PathLike | None = None):
        super().__init__(Path(path).expanduser() if path is not None
                         else default_path(CACHE_FILE), "embedding cache", APPLICATION_ID,
                         ("give another --embed-cache file (or --no-embed-cache)",
                          "or pass --no-embed-cache"), timeout=60)

    def _check(self, db: sqlite3.Connection, app: int, tables: list[str]) -> None:
        if tables != ["embeddings"]:   # app 0 with our one table: a cache made before the mark
            raise NotOurs(f"an SQLite database of something else (tables: {', '.join(tables)})")
        check_columns(db, "embeddings", _COLUMNS, ["model", "text_hash"], "an embedding cache")

    def _set_up(self, db: sqlite3.Connection) -> None:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(_SCHEMA)

    def get_many(self, model: str, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        wanted = list(dict.fromkeys(hashes))
        with self._lock:
            for start in range(0, len(wanted), 500):   # SQLite's bound-parameter limit
                chunk = wanted[start:start + 500]
                marks = ",".join("?" * len(chunk))
                try:
                    rows = self._db.execute(
                        f"SELECT text_hash, dim, vector FROM embeddings WHERE model=? AND "
                        f"text_hash IN ({marks})", (model, *chunk)).fetchall()
                except sqlite3.Error as exc:   # a damaged file, an I/O error
                    raise UserError(f"embedding cache {self.path}: cannot read ({exc}); "
                                    "give another --embed-cache file (or --no-embed-cache)"
                                    ) from None
                # a torn or damaged row is treated as a miss
                out.update((h, v) for h, dim, blob in rows if (v := _vector(dim, blob)) is not None)
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
            try:
                return self._db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
            except sqlite3.Error as exc:
                raise UserError(f"embedding cache {self.path}: cannot read ({exc})") from None
