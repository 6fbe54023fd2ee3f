"""A persistent SQLite cache of judge verdicts, so that re-grading makes no repeated calls.

It also holds the answers of other judge tasks (grading/judge_task.py: the analysis'
reasoning similarity), in a table of their own, `answers`, keyed by a hash of (judge
model, task name, task version, vote settings, the messages sent): one `--judge-cache` file
serves both, and a file written with the `answers` table is still read by a general365
that knows only `verdicts`.

Keyed by a hash of (judge model, prompt version, judging settings, question, gold,
prediction): a different model, prompt text or vote setting never reuses another's
verdict. A damaged row (a column that is not the JSON it should be) is a miss: the item is
asked again and the row replaced. Only verdicts are stored, never failures (a failure is
retried on the next run) and never credentials. Every `put` is its own committed
transaction: a verdict is on disk (in the WAL file; synchronous=NORMAL) before the next
request's reply is read, so killing the process loses none. One connection per cache
object; a lock serializes its use.

The file is marked as ours (SQLite `application_id`); a SQLite file of another application
is refused with one line rather than written into.
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
from typing import Any

from ..errors import UserError

CACHE_ENV = "GENERAL365_CACHE_DIR"
CACHE_FILE = "judge.sqlite"

APPLICATION_ID = 0x47333635   # "G365" in the SQLite header: this file is a judge cache
_COLUMNS = ("key", "model", "served_model", "prompt_version", "accuracy", "votes", "raw",
            "created")
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
_INSERT = (f"INSERT OR REPLACE INTO verdicts ({', '.join(_COLUMNS)}) "
           f"VALUES ({', '.join('?' * len(_COLUMNS))})")
_ANSWER_COLUMNS = ("key", "task", "task_version", "model", "served_model", "value", "votes",
                   "raw", "created")
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
_INSERT_ANSWER = (f"INSERT OR REPLACE INTO answers ({', '.join(_ANSWER_COLUMNS)}) "
                  f"VALUES ({', '.join('?' * len(_ANSWER_COLUMNS))})")


class _NotOurs(Exception):
    """The file is an SQLite database, but not a judge cache."""


def _check_is_ours(db: sqlite3.Connection) -> None:
    """Refuse a database of another application before anything is written to it."""
    app = db.execute("PRAGMA application_id").fetchone()[0]
    if app not in (0, APPLICATION_ID):
        raise _NotOurs(f"an SQLite database of another application (application_id {app})")
    tables = sorted(r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%'"))
    if not tables:
        return                                    # new (or empty): ours to initialize
    if "verdicts" not in tables or (app == 0 and tables not in (["verdicts"],
                                                                 ["answers", "verdicts"])):
        # app 0 with exactly our tables: a cache written before the file was marked.
        raise _NotOurs(f"an SQLite database of something else (tables: {', '.join(tables)})")
    _check_columns(db, "verdicts", _COLUMNS)
    if "answers" in tables:
        _check_columns(db, "answers", _ANSWER_COLUMNS)


def _check_columns(db: sqlite3.Connection, table: str, expected: tuple[str, ...]) -> None:
    info = db.execute(f"PRAGMA table_info({table})").fetchall()
    columns = sorted(r[1] for r in info)
    keyed = [r[1] for r in info if r[5]]
    if columns != sorted(expected) or keyed != ["key"]:
        raise _NotOurs(f"an SQLite database whose '{table}' table has the columns "
                       f"{', '.join(r[1] for r in info) or '(none)'}, not a judge cache's")


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


def answer_key(model: str, task: str, task_version: str, settings: str,
               messages: list[dict[str, str]]) -> str:
    """The key of a task's answer: the messages themselves are hashed, so anything that
    changes what the judge is shown (the item, a text limit) changes the key."""
    blob = json.dumps([model, task, task_version, settings, messages], ensure_ascii=False,
                      sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedAnswer:
    """A task's answer as cached: `value` and `votes` are JSON values."""

    value: Any
    votes: list[Any]
    model: str
    served_model: str | None
    raw: str | None


@dataclass(frozen=True)
class CachedVerdict:
    accuracy: bool
    votes: list[bool]
    model: str
    served_model: str | None
    raw: str | None


_DAMAGED = object()


def _decoded(text: Any) -> Any:
    """A stored JSON column's value; _DAMAGED for one that is not JSON text (a file edited
    by hand or by another tool, a row half-written by a careless copy)."""
    if not isinstance(text, str):
        return _DAMAGED
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _DAMAGED


class JudgeCache:
    """`get`/`put` verdicts by key (each put committed at once); `close` when done."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_cache_path()
        self._lock = threading.Lock()
        db = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: autocommit, so each INSERT is committed by itself.
            db = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False,
                                 isolation_level=None)
            _check_is_ours(db)
            # WAL lets two grading processes share one cache file without "database locked";
            # NORMAL syncs at checkpoints, not at every commit (~0.2 ms instead of ~10 ms
            # per verdict): a killed process loses nothing, a power cut may lose the last
            # verdicts but never corrupts the file.
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_SCHEMA)
            db.execute(_ANSWERS)
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        except _NotOurs as exc:
            db.close()
            raise UserError(f"judge cache {self.path}: {exc}; give another --judge-cache "
                            f"file (or --judge-cache none)") from None
        except (OSError, sqlite3.Error) as exc:
            if db is not None:
                db.close()
            raise UserError(f"judge cache {self.path}: cannot open ({exc}); "
                            f"expected a writable SQLite file (or pass --no-judge-cache)") from None
        self._db = db

    def _run(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:   # disk full, I/O error, locked past the timeout
                raise UserError(f"judge cache {self.path}: {exc}") from None

    def get(self, key: str) -> CachedVerdict | None:
        rows = self._run("SELECT accuracy, votes, model, served_model, raw FROM verdicts "
                         "WHERE key=?", (key,))
        if not rows:
            return None
        acc, votes, model, served, raw = rows[0]
        votes = _decoded(votes)
        if not isinstance(votes, list) or not isinstance(model, str):
            return None   # a damaged row is a miss: asked again, and the row replaced
        return CachedVerdict(bool(acc), [bool(v) for v in votes], model, served, raw)

    def put(self, key: str, verdict: CachedVerdict, prompt_version: str) -> None:
        self._run(_INSERT, (key, verdict.model, verdict.served_model, prompt_version,
                            int(verdict.accuracy), json.dumps(verdict.votes), verdict.raw,
                            time.time()))

    def get_answer(self, key: str) -> CachedAnswer | None:
        rows = self._run("SELECT value, votes, model, served_model, raw FROM answers "
                         "WHERE key=?", (key,))
        if not rows:
            return None
        value, votes, model, served, raw = rows[0]
        value, votes = _decoded(value), _decoded(votes)
        if value is _DAMAGED or not isinstance(votes, list) or not isinstance(model, str):
            return None   # a damaged row is a miss: asked again, and the row replaced
        return CachedAnswer(value, votes, model, served, raw)

    def put_answer(self, key: str, answer: CachedAnswer, task: str, task_version: str) -> None:
        self._run(_INSERT_ANSWER, (key, task, task_version, answer.model, answer.served_model,
                                   json.dumps(answer.value), json.dumps(answer.votes),
                                   answer.raw, time.time()))

    def flush(self) -> None:
        """Nothing to do: every put is committed as it is made. Kept for callers."""

    def __len__(self) -> int:
        return self._run("SELECT COUNT(*) FROM verdicts")[0][0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "JudgeCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
