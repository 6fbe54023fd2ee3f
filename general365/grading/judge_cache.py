"""A persistent SQLite cache of judge verdicts, so that re-grading makes no repeated calls.

Keyed by a hash of (judge model, prompt version, judging settings, question, gold,
prediction): a different model, prompt text or vote setting never reuses another's
verdict. Only verdicts are stored, never failures (a failure is retried on the next run)
and never credentials. One connection per cache object; callers on one event loop share
it, and a lock serializes writes, which are committed in batches.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError

CACHE_ENV = "GENERAL365_CACHE_DIR"
CACHE_FILE = "judge.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    served_model TEXT,
    prompt_version TEXT NOT NULL,
    accuracy INTEGER NOT NULL,
    votes TEXT NOT NULL,
    raw TEXT,
    created REAL NOT NULL
)
"""


def default_cache_path() -> Path:
    """$GENERAL365_CACHE_DIR/judge.sqlite, else $XDG_CACHE_HOME or ~/.cache, /general365."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser() / CACHE_FILE
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "general365" / CACHE_FILE


def cache_key(model: str, prompt_version: str, settings: str, question: str, gold: str,
              prediction: str) -> str:
    # JSON of the tuple, not a plain join: ("a|b", "c") and ("a", "b|c") must differ.
    blob = json.dumps([model, prompt_version, settings, question, gold, prediction],
                      ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedVerdict:
    accuracy: bool
    votes: list[bool]
    model: str
    served_model: str | None
    raw: str | None


class JudgeCache:
    """`get`/`put` verdicts by key; `flush` commits pending writes; `close` when done."""

    def __init__(self, path: str | os.PathLike | None = None, *, commit_every: int = 64):
        self.path = Path(path) if path is not None else default_cache_path()
        self.commit_every = commit_every
        self._lock = threading.Lock()
        self._pending = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False)
            # WAL lets two grading processes share one cache file without "database locked".
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise UserError(f"judge cache {self.path}: cannot open ({exc}); "
                            f"expected a writable SQLite file (or pass --no-judge-cache)") from None

    def get(self, key: str) -> CachedVerdict | None:
        with self._lock:
            row = self._db.execute(
                "SELECT accuracy, votes, model, served_model, raw FROM verdicts WHERE key=?",
                (key,)).fetchone()
        if row is None:
            return None
        return CachedVerdict(bool(row[0]), [bool(v) for v in json.loads(row[1])], row[2],
                             row[3], row[4])

    def put(self, key: str, verdict: CachedVerdict, prompt_version: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, verdict.model, verdict.served_model, prompt_version,
                 int(verdict.accuracy), json.dumps(verdict.votes), verdict.raw, time.time()))
            self._pending += 1
            if self._pending >= self.commit_every:
                self._db.commit()
                self._pending = 0

    def flush(self) -> None:
        with self._lock:
            if self._pending:
                self._db.commit()
                self._pending = 0

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]

    def close(self) -> None:
        self.flush()
        with self._lock:
            self._db.close()

    def __enter__(self) -> "JudgeCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
