"""The judge's persistent SQLite cache: `verdicts` (the verdict, the layout older files have)
and `answers` (every other JudgeTask), keyed by a hash of all that can change an answer. Every
`put` commits at once (WAL); only answers are stored, never failures nor credentials; a file
not marked as ours (SQLite `application_id`) is refused, never written into."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..sqlite_cache import NotOurs, SqliteCache, check_columns, default_path

CACHE_FILE = "judge.sqlite"

APPLICATION_ID = 0x47333635   # "G365" in the SQLite header: this file is a judge cache
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
_ANSWERS = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    task TEXT NOT NULL,
    task_version TEXT NOT NULL,
    model TEXT NOT NULL,
    served_model TEXT,
    value TEXT NOT NULL,
    votes TEXT NOT NULL,
    raw TEXT,
    created REAL NOT NULL
)
"""


def _columns(schema: str) -> tuple[str, ...]:
    """The columns of a CREATE TABLE above (one a line)."""
    return tuple(line.split()[0] for line in schema.strip().splitlines()[1:-1])


_COLUMNS = {"verdicts": _columns(_SCHEMA), "answers": _columns(_ANSWERS)}
_INSERT = {t: f"INSERT OR REPLACE INTO {t} ({', '.join(c)}) VALUES ({', '.join('?' * len(c))})"
           for t, c in _COLUMNS.items()}


def default_cache_path() -> Path:
    """$GENERAL365_CACHE_DIR/judge.sqlite, else $XDG_CACHE_HOME or ~/.cache, /general365."""
    return default_path(CACHE_FILE)


def cache_key(*parts: Any) -> str:
    """The hash of `parts` (JSON of the list, not a plain join: ("a|b", "c") differs)."""
    blob = json.dumps(list(parts), ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedAnswer:
    """`value`: a verdict's bool, or another task's JSON value."""

    value: Any
    votes: list[Any]
    model: str
    served_model: str | None
    raw: str | None


class JudgeCache(SqliteCache):
    def __init__(self, path: str | os.PathLike | None = None):
        # isolation_level=None: autocommit, so each INSERT is committed by itself
        super().__init__(Path(path) if path is not None else default_cache_path(),
                         "judge cache", APPLICATION_ID,
                         ("give another --judge-cache file (or --judge-cache none)",
                          "or pass --no-judge-cache"), timeout=30, isolation_level=None)

    def _check(self, db: sqlite3.Connection, app: int, tables: list[str]) -> None:
        if "verdicts" not in tables or (app == 0 and tables not in (["verdicts"],
                                                                     ["answers", "verdicts"])):
            # app 0 with exactly our tables: a cache written before the file was marked.
            raise NotOurs(f"an SQLite database of something else (tables: {', '.join(tables)})")
        for table in (t for t in _COLUMNS if t in tables):
            check_columns(db, table, _COLUMNS[table], ["key"], "a judge cache")

    def _set_up(self, db: sqlite3.Connection) -> None:
        # WAL: two grading processes share one file. NORMAL syncs at checkpoints (~0.2 ms,
        # not ~10 ms, a verdict): a power cut may lose the last verdicts, never the file.
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(_SCHEMA)
        db.execute(_ANSWERS)

    def _run(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:   # disk full, I/O error, locked past the timeout
                raise UserError(f"judge cache {self.path}: {exc}") from None

    def get(self, key: str, verdict: bool = True) -> CachedAnswer | None:
        """The verdict (or, verdict=False, the task's answer) cached under `key`."""
        rows = self._run(f"SELECT {'accuracy' if verdict else 'value'}, votes, model, "
                         f"served_model, raw FROM {'verdicts' if verdict else 'answers'} "
                         "WHERE key=?", (key,))
        if not rows:
            return None
        value, votes, model, served, raw = rows[0]
        try:   # a damaged row (a file edited by hand or by another tool) is a miss
            value = bool(value) if verdict else json.loads(value)
            votes = json.loads(votes)
        except (TypeError, ValueError, RecursionError):
            return None
        if not isinstance(votes, list) or not isinstance(model, str):
            return None
        return CachedAnswer(value, [bool(v) for v in votes] if verdict else votes, model,
                            served, raw)

    def put(self, key: str, answer: CachedAnswer, version: str, task: str | None = None) -> None:
        """Store a verdict of prompt `version` (task None), or an answer to `task`."""
        a = answer
        if task is None:
            row = (key, a.model, a.served_model, version, int(a.value), json.dumps(a.votes),
                   a.raw, time.time())
        else:
            row = (key, task, version, a.model, a.served_model, json.dumps(a.value),
                   json.dumps(a.votes), a.raw, time.time())
        self._run(_INSERT["verdicts" if task is None else "answers"], row)

    def __len__(self) -> int:
        return self._run("SELECT COUNT(*) FROM verdicts")[0][0]
