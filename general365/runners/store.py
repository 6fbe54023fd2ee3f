"""The run store: `responses.jsonl` (append-only) and `run.json` in one folder, resumable
after a kill at any moment (docs/running.md): one `os.write` per record on an O_APPEND
descriptor (at worst one torn last line, cut on open); every record carries its full key, so
a folder never serves one model's or setting's answers to another."""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import stat
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from ..errors import DataError, UserError
from ..fsutil import check_target, keep_from_forks, release, write_text
from ..jsonl import NotJSON
from ..jsonl import line as jsonl_line
from ..jsonl import parse as parse_json
from ..schema import Response
from .base import Generation, GenerationRequest, SamplingSettings

log = logging.getLogger(__name__)

RESPONSES = "responses.jsonl"
RUN_JSON = "run.json"


def model_key(model: str, revision: str | None = None) -> str:
    """The model's identity in the store: a revision, where known, is part of it."""
    return f"{model}@{revision}" if revision else model


def settings_hash(settings: SamplingSettings) -> str:
    return hashlib.sha256(settings.key().encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class RecordKey:
    model: str
    settings: str      # settings_hash(SamplingSettings) -- the seed is not part of it
    prompt_hash: str
    id: str
    run: int

    @classmethod
    def of(cls, request: GenerationRequest, model: str) -> "RecordKey":
        return cls(model, settings_hash(request.sampling), request.prompt_hash(),
                   request.problem_id, request.run)

    @classmethod
    def from_record(cls, d: dict[str, Any], *, path: str, line: int) -> "RecordKey":
        missing = [k for k in ("model", "settings_hash", "prompt_hash") if not d.get(k)]
        if missing:
            raise DataError(
                "record has no store key (was this file written by `general365 generate`?)",
                path=path, line=line, row_id=str(d.get("id")), field=missing[0],
                expected="model, settings_hash and prompt_hash on every record")
        return cls(d["model"], d["settings_hash"], d["prompt_hash"], str(d["id"]),
                   int(d["run"]))


def build_record(generation: Generation, request: GenerationRequest, model: str,
                 inline: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A `responses.jsonl` row: the Response and key fields, and the problem's inline ones."""
    d = Response(
        id=request.problem_id, run=request.run, response=generation.response, model=model,
        reasoning=generation.reasoning, output_tokens=generation.output_tokens,
        reasoning_tokens=generation.reasoning_tokens, finish_reason=generation.finish_reason,
        sampling=generation.sampling or request.sampling.to_dict()).to_dict()
    d.update(settings_hash=settings_hash(request.sampling), prompt_hash=request.prompt_hash())
    if generation.prompt_tokens is not None:
        d["prompt_tokens"] = generation.prompt_tokens
    if inline:
        d.update(inline)
    return d


@dataclass
class OpenReport:
    records: int = 0
    torn_bytes: int = 0   # bytes cut off the end (a torn last line), 0 if none


class RunStore:
    """One run folder. Use as a context manager, or call `open()` and `close()`."""

    def __init__(self, run_dir: str, *, fsync_every: int = 64, fsync_seconds: float = 2.0):
        self.run_dir = run_dir
        self.path = os.path.join(run_dir, RESPONSES)
        self.run_json = os.path.join(run_dir, RUN_JSON)
        self.fsync_every = fsync_every
        self.fsync_seconds = fsync_seconds
        self._keys: dict[tuple[str, int], RecordKey] = {}
        self._fd: int | None = None
        self._created_file = self._created_dir = False
        self._unsynced = 0
        self._last_sync = time.monotonic()
        self.appended = 0

    def open(self) -> OpenReport:
        """Take the folder's lock, then read it: a second process is refused here, before it
        loads a model."""
        self._created_dir = not os.path.isdir(self.run_dir)
        for _attempt in range(20):
            os.makedirs(self.run_dir, exist_ok=True)
            created = True
            try:
                try:
                    fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT
                                 | os.O_EXCL, 0o644)
                except FileExistsError:
                    check_target(self.path)
                    created = False
                    # O_NONBLOCK: a FIFO put there after the check fails (ENXIO) instead
                    # of hanging until a reader comes; a regular file ignores the flag.
                    fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
            except FileNotFoundError:   # removed in between (see close(discard=True))
                continue
            except OSError as exc:
                raise UserError(f"{self.path}: cannot write ({exc.strerror or exc})") from None
            if not stat.S_ISREG(os.fstat(fd).st_mode):   # a device swapped in meanwhile
                os.close(fd)
                check_target(self.path)
                raise UserError(f"{self.path}: not a regular file")
            try:
                # Two writers on one folder would interleave runs; the OS drops the lock
                # when a process dies, so a killed run never leaves the folder locked.
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise UserError(f"{self.path}: another process is writing to this run "
                                "folder (wait for it to finish, or use another --out)")
            # The lock is on the file we opened: if a process that held it removed that
            # file before letting go (an empty file it had created), start again.
            try:
                if os.path.samestat(os.fstat(fd), os.stat(self.path)):
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        else:
            raise UserError(f"{self.path}: the file keeps being replaced by another process")
        self._fd, self._created_file = keep_from_forks(fd), created
        try:
            return self._load()
        except BaseException:
            self.close(discard=True)
            raise

    def _load(self) -> OpenReport:
        with open(self.path, "rb") as f:
            data = f.read()
        # A line that ended with its newline was written whole (one write per line); only
        # the last may also be torn with a newline inside it: then it is unreadable.
        good_end = data.rfind(b"\n") + 1   # 0 when there is no newline at all
        lines = data[:good_end].split(b"\n")[:-1]
        report = OpenReport()
        cut_at = good_end
        for i, raw in enumerate(lines, start=1):
            if raw.strip():
                try:
                    d = parse_json(raw.decode("utf-8"), path=self.path, line=i)
                except (UnicodeDecodeError, NotJSON):
                    if i < len(lines) or good_end < len(data):
                        raise DataError("not a JSON line (the file is damaged mid-way, not "
                                        "just torn at the end)", path=self.path, line=i,
                                        expected="one JSON object a line") from None
                    cut_at = good_end - len(raw) - 1   # it is the last line
                    break
                self._add_existing(d, line=i)
                report.records += 1
        if cut_at < len(data):
            report.torn_bytes = len(data) - cut_at
            # INFO, not WARNING: the caller tells the user once (`generate` prints it).
            log.info("%s: dropped a torn last line (%d bytes) left by an interrupted run",
                     self.path, report.torn_bytes)
            with open(self.path, "r+b") as f:
                f.truncate(cut_at)
                f.flush()
                os.fsync(f.fileno())
        return report

    def _add_existing(self, d: Any, *, line: int) -> None:
        resp = Response.from_dict(d, path=self.path, line=line)   # validates the row
        key = RecordKey.from_record(d, path=self.path, line=line)
        if (resp.id, resp.run) in self._keys:
            raise DataError("duplicated (id, run)", path=self.path, line=line,
                            row_id=resp.id, field="run", value=resp.run,
                            expected="each (id, run) once")
        self._keys[(resp.id, resp.run)] = key

    def __len__(self) -> int:
        return len(self._keys)

    def pending(self, requests: Iterable[GenerationRequest], model: str
                ) -> tuple[list[GenerationRequest], int]:
        """(requests still to generate, how many are done); a record for the same (id, run)
        under another key refuses the folder (grading keys on (id, run))."""
        todo: list[GenerationRequest] = []
        done = 0
        for req in requests:
            key = RecordKey.of(req, model)
            have = self._keys.get((key.id, key.run))
            if have is None:
                todo.append(req)
            elif have == key:
                done += 1
            else:
                raise UserError(self._mismatch(have, key))
        return todo, done

    def _mismatch(self, have: RecordKey, want: RecordKey) -> str:
        if have.model != want.model:
            what = f"model {have.model!r}, not {want.model!r}"
        elif have.settings != want.settings:
            what = "other sampling settings (see its run.json)"
        else:
            what = "another prompt (system prompt, template or question changed)"
        return (f"{self.path}: id {want.id!r} run {want.run} was generated with {what}; "
                f"a run folder holds one model under one setting: use a new --out")

    def append(self, record: dict[str, Any], key: RecordKey) -> None:
        if self._fd is None:
            raise RuntimeError("RunStore.append before open()")
        view = memoryview(jsonl_line(record, default=str))
        written = 0
        # One write of the whole line; the loop only matters if the OS writes partially
        # (a full disk), where the remainder continues the same line.
        try:
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
                written += n
        except OSError as exc:
            if written:   # half a line would be a torn line: cut it now (we hold the lock)
                try:
                    os.ftruncate(self._fd, os.fstat(self._fd).st_size - written)
                except OSError:
                    pass   # left torn: the next open cuts it
            raise self._write_error(exc) from None
        self._keys[(key.id, key.run)] = key
        self.appended += 1
        self._unsynced += 1
        now = time.monotonic()
        if self._unsynced >= self.fsync_every or now - self._last_sync >= self.fsync_seconds:
            self.sync()

    def _write_error(self, exc: OSError) -> UserError:
        return UserError(f"{self.path}: cannot write ({exc.strerror or exc}); the records "
                         "before it are kept: make room and rerun the same command to resume")

    def sync(self) -> None:
        if self._fd is not None and self._unsynced:
            try:
                os.fsync(self._fd)
            except OSError as exc:
                raise self._write_error(exc) from None
        self._unsynced = 0
        self._last_sync = time.monotonic()

    def close(self, *, discard: bool = False) -> None:
        """Release the lock; with `discard`, first remove what this store created and never
        wrote to."""
        if self._fd is None:
            return
        try:
            self.sync()
            if discard and self._created_file and not self.appended \
                    and os.fstat(self._fd).st_size == 0:
                os.unlink(self.path)   # under the lock: no other writer has it open
                if self._created_dir:
                    try:
                        os.rmdir(self.run_dir)
                    except OSError:
                        pass   # something else is in it now: not ours to remove
        finally:
            release(self._fd)
            self._fd = None

    def __enter__(self) -> "RunStore":
        self.open()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def write_run_json(self, data: dict[str, Any]) -> None:
        text = json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
        write_text(self.run_json, text.encode("utf-8", "replace"))

    def check_paths(self) -> None:
        """Refuse a responses.jsonl or run.json that is not a plain file."""
        for path, what in ((self.path, "a file of JSON lines (the run's responses)"),
                           (self.run_json, "a JSON file (the run's provenance)")):
            if os.path.lexists(path) and not os.path.isfile(path):
                kind = "a folder" if os.path.isdir(path) else "not a regular file"
                raise DataError(f"is {kind}", path=path, expected=what)

    def read_run_json(self) -> dict[str, Any] | None:
        if not os.path.lexists(self.run_json):
            return None
        self.check_paths()
        expected = "the JSON object `general365 generate` writes"
        try:
            with open(self.run_json, encoding="utf-8") as f:
                data = parse_json(f.read(), path=self.run_json, expected=expected)
        except UnicodeDecodeError:
            raise DataError("not UTF-8 text", path=self.run_json, expected=expected) from None
        # A later session extends the record (its sessions list), so its shape must hold.
        if not isinstance(data, dict):
            raise DataError("not a JSON object", path=self.run_json,
                            value=type(data).__name__, expected=expected)
        if not isinstance(data.get("sessions", []), list):
            raise DataError("not a list", path=self.run_json, field="sessions",
                            value=type(data["sessions"]).__name__,
                            expected="a list of the run's sessions")
        return data


def iter_records(path: str) -> Iterator[dict[str, Any]]:
    """The records of a responses file, read strictly; skips a torn last line."""
    with open(path, "rb") as f:
        data = f.read()
    for n, raw in enumerate(data[: data.rfind(b"\n") + 1].split(b"\n"), start=1):
        if raw.strip():
            yield parse_json(raw.decode("utf-8"), path=path, line=n)
