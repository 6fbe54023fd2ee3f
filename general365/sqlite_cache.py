"""What the SQLite caches (the judge's, the embeddings') share: where they live, opening a
file that is ours and refusing one that is not with one line, and closing.

A cache marks its file with its own SQLite `application_id`; an unmarked file holding
exactly the cache's tables is one written before the mark, and is ours too.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from .errors import UserError

CACHE_ENV = "GENERAL365_CACHE_DIR"


class NotOurs(Exception):
    """The file is an SQLite database, but not this cache."""


def default_path(name: str) -> Path:
    """$GENERAL365_CACHE_DIR/name, else $XDG_CACHE_HOME or ~/.cache, /general365/name."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser() / name
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "general365" / name


def check_columns(db: sqlite3.Connection, table: str, columns: tuple[str, ...],
                  keys: list[str], what: str) -> None:
    """Refuse `table` unless it has exactly `columns` and the primary key `keys`."""
    info = db.execute(f"PRAGMA table_info({table})").fetchall()
    keyed = sorted((r[5], r[1]) for r in info if r[5])
    if sorted(r[1] for r in info) != sorted(columns) or [k for _, k in keyed] != keys:
        raise NotOurs(f"an SQLite database whose '{table}' table has the columns "
                      f"{', '.join(r[1] for r in info) or '(none)'}, not {what}'s")


class SqliteCache:
    """A cache file shared by threads under one lock. A subclass defines `_check(db, app,
    tables)` (raise NotOurs unless the non-empty `tables` of a file marked `app`, ours or 0,
    are its own) and `_set_up(db)` (create its tables where they are missing); `label` names
    the file in messages ("judge cache"), `hints` say what to give instead after a refusal
    and after a failure to open."""

    def __init__(self, path: Path, label: str, application_id: int, hints: tuple[str, str],
                 **connect) -> None:
        self.path, self.label, self.application_id = path, label, application_id
        self._lock = threading.Lock()
        db = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(self.path), check_same_thread=False, **connect)
            self._check_is_ours(db)
            self._set_up(db)
            db.execute(f"PRAGMA application_id={self.application_id}")
            db.commit()
        except NotOurs as exc:
            db.close()
            raise UserError(f"{self.label} {self.path}: {exc}; {hints[0]}") from None
        except (OSError, sqlite3.Error) as exc:
            if db is not None:
                db.close()
            raise UserError(f"{self.label} {self.path}: cannot open ({exc}); expected a "
                            f"writable SQLite file ({hints[1]})") from None
        self._db = db

    def _check_is_ours(self, db: sqlite3.Connection) -> None:
        """Refuse a database of another application before anything is written to it."""
        app = db.execute("PRAGMA application_id").fetchone()[0]
        if app not in (0, self.application_id):
            raise NotOurs(f"an SQLite database of another application (application_id {app})")
        tables = sorted(r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite_%'"))
        if tables:                                # new (or empty): ours to initialize
            self._check(db, app, tables)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
