"""Reading and writing JSON Lines, the one way every part of general365 does.

Reading is strict, line by line, with file:line in every error, blank lines skipped. What
json would take but a later step would trip on is one DataError naming the file, the line
and the field: a key twice in one object (json keeps the last), nesting past MAX_DEPTH (a
value a little below json's limit overflows the stack when written back), integers of over
4,300 digits, a lone surrogate escape (no later write of it encodes), NaN, infinities and
`1e999` (not JSON: jq, JavaScript or any strict reader refuses the file they come back in).

The strict decoder (validators.DECODER) defines the values and the errors; orjson reads
each line first (a grade's read 1.8-1.9 times as fast, benchmarks/jsonl_io.py), and what it
refuses or _quick cannot vouch for goes to the strict decoder. `line(value)` is every row
general365 writes, into a file that `fsutil.atomic_write` replaces whole (`write`, or a
streaming writer) or an appender adds to (runners/store.py).
"""

from __future__ import annotations

import json
import math
import os
import time
import zlib
from array import array
from typing import Any, Callable, Iterable, Iterator

import orjson

from .errors import DataError
from .fsutil import atomic_write
from .validators import DECODER, MAX_DEPTH, DuplicateKey, problem_in

# The default 8 KiB buffer puts a reasoning model's long line together from several reads
# (six times slower on 20,000-character lines). Not much larger: a reread checks each line
# as it reads it, and must not read far ahead of the grading to catch a rewrite meanwhile.
READ_BUFFER = 1 << 16


class NotJSON(DataError):
    """Not JSON at all (a syntax error), as opposed to JSON that breaks a strict rule."""


def parse(text: str, *, path: str | None = None, line: int | None = None,
          expected: str = "one JSON object a line") -> Any:
    """The JSON value of `text`, strictly (see the module's doc); a DataError otherwise."""
    value = _quick(text)
    return _strict(text, path, line, expected) if value is _UNSURE else value


def _strict(text: str, path: str | None, line: int | None,
            expected: str = "one JSON object a line") -> Any:
    """validators' strict decoder: the value, or a DataError that names what is wrong."""
    where: dict[str, Any] = {"path": path, "line": line}
    try:
        value = DECODER.decode(text)
    except json.JSONDecodeError as exc:
        if text.startswith("\ufeff"):   # invisible in an editor: say what it is
            raise NotJSON("the line begins with a byte-order mark (U+FEFF)",
                          expected="UTF-8 without a BOM", **where) from None
        raise NotJSON(f"not valid JSON ({exc.msg})", expected=expected, **where) from None
    except DuplicateKey as exc:
        raise DataError(f"the key {exc.key!r} appears twice in one object",
                        expected="each key once (which value was meant is ambiguous)",
                        **where) from None
    except RecursionError:
        bad: tuple[str, str | None] | None = ("deep", None)
    except ValueError:   # CPython's limit on integer digits (not a JSONDecodeError)
        raise DataError("an integer of more than 4300 digits",
                        expected="numbers of a sensible size", **where) from None
    else:
        bad = problem_in(value)
    if bad is None:
        return value
    message, expect = _PROBLEMS[bad[0]]
    raise DataError(message, field=bad[1], expected=expect, **where)


# problem_in's findings: (message, expected)
_PROBLEMS = {
    "deep": ("JSON nested too deeply", f"at most {MAX_DEPTH} levels of objects and arrays"),
    "nonfinite": ("NaN or an infinite number (not JSON)",
                  "finite numbers (write a missing value as null)"),
    "surrogate": ("a lone surrogate escape (\\ud800-\\udfff not in a pair) in a string",
                  "text that is valid Unicode"),
}


# --- the fast path ----------------------------------------------------------------------

_UNSURE = object()

# orjson reads an integer beyond 64 bits as a float (json: an exact int); a float of at
# least this size may be one, so the strict decoder decides.
_WIDE = 9.2e18


def _quick(data: str | bytes) -> Any:
    """orjson's value of `data` where it is the strict decoder's too, else _UNSURE.

    The walk (_tally) sees the depth and the floats that may be wide integers. A repeated
    key leaves no trace in the value but a count: each key has its own colon after it and
    every other colon is inside a string, so where no colon is escaped (\\u003a) the
    line's colons number the keys plus the strings' colons exactly when no key was
    dropped for a later one (scans at C speed)."""
    try:
        value = orjson.loads(data)
    except (ValueError, RecursionError):   # orjson.JSONDecodeError; before 3.10, deep nesting
        return _UNSURE
    t = type(value)
    if t is dict or t is list:
        colon, escape = (":", "\\u003") if type(data) is str else (b":", b"\\u003")
        if _tally(value) != data.count(colon) or escape in data:  # type: ignore[arg-type]
            return _UNSURE
    elif t is float and not -_WIDE < value < _WIDE:
        return _UNSURE
    return value


def _tally(value: dict | list) -> int:
    """The keys of every object in `value` and the colons of every string (keys too); -1
    for a container deeper than MAX_DEPTH or a float that may have been a wide integer."""
    count = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > MAX_DEPTH:
            return -1
        if type(v) is dict:
            count += len(v)
            for k in v:
                count += k.count(":")
            v = v.values()
        for x in v:
            t = type(x)
            if t is str:
                count += x.count(":")
            elif t is dict or t is list:
                stack.append((x, depth + 1))
            elif t is float and not -_WIDE < x < _WIDE:
                return -1
    return count


# --- reading a file ---------------------------------------------------------------------


class FileChanged(DataError):
    """The file is not what an earlier read of it saw (see Snapshot)."""


class Snapshot:
    """What a read of a file saw, for checking the file against it later: the CRC-32 of
    each raw line (4 bytes a line), and, after a reread, whether the file had grown."""

    def __init__(self) -> None:
        self.crcs = array("I")
        self.grew = False


def iter_jsonl(path: str, *, errors: list[DataError] | None = None,
               snapshot: Snapshot | None = None,
               expect: Snapshot | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for each non-blank line of `path`, read strictly.

    A bad line (not UTF-8, not strict JSON) raises a DataError naming the file and line, or
    with `errors` given is appended there and skipped. Lines are decoded one by one, so a
    bad byte is blamed on its own line.

    `snapshot`: the read is recorded in it, and is one version of the file: at the end,
    FileChanged if the lines read are not the file's lines then (appending is fine). The
    lines are read again only when the file's status changed since it was opened (or it
    had just been written then: timestamps move in clock ticks).

    `expect` (an earlier read's snapshot): reread exactly its lines, each checked before it
    is parsed: FileChanged at a line that differs or a file now shorter. Lines added since
    are not read; `expect.grew` then says so.
    """
    crcs = snapshot.crcs if snapshot is not None else None
    with open(path, "rb", buffering=READ_BUFFER) as f:
        opened, opened_at = os.fstat(f.fileno()), time.time_ns()
        if expect is not None:
            lines: Iterator[tuple[int, bytes]] = _checked_lines(
                f, expect.crcs, path, "this line differs from the first read", expect)
        else:
            lines = enumerate(f, start=1)
        size = 0
        for n, raw in lines:
            if crcs is not None:
                size += len(raw)
                crcs.append(zlib.crc32(raw))
            value = _quick(raw)
            if value is not _UNSURE:
                yield n, value
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                err = DataError(f"not UTF-8 text (byte {exc.start + 1} of the line)",
                                path=path, line=n, expected="UTF-8 JSON Lines")
            else:
                if not text.strip(_BLANK):
                    continue
                try:
                    yield n, _strict(text, path, n)
                    continue
                except DataError as exc:
                    err = exc
            if errors is None:
                if crcs is not None:   # a line cut by a rewrite is the rewrite's error
                    _check_same(f, crcs, path)
                raise err
            errors.append(err)
        if crcs is not None:
            now = os.fstat(f.fileno())
            if (now.st_size != size or now.st_mtime_ns != opened.st_mtime_ns
                    or now.st_ctime_ns != opened.st_ctime_ns
                    or opened_at - opened.st_mtime_ns < _TICK_MARGIN_NS):
                _check_same(f, crcs, path)


def _checked_lines(f: Any, crcs: array, path: str, differs: str,
                   seen: Snapshot | None = None) -> Iterator[tuple[int, bytes]]:
    """The lines of the open file `f`, from where it stands, checked against `crcs` as
    iter_jsonl's `expect` says (`differs`: how a line that differs is described)."""
    last = len(crcs)
    n = 0
    for n, raw in enumerate(f, start=1):
        if n > last:
            if seen is not None:
                seen.grew = True
            return
        if zlib.crc32(raw) == crcs[n - 1]:
            yield n, raw
        elif n == last and raw.endswith(b"\n") and zlib.crc32(raw[:-1]) == crcs[-1]:
            # The earlier read met this last line without its newline (the end of the file
            # then); rows were appended since: the same line, now ended.
            if seen is not None:
                seen.grew = True
            yield n, raw[:-1]
        else:
            raise FileChanged(f"the file changed while it was being read ({differs})",
                              path=path, line=n, expected=_UNCHANGED)
    if n < last:
        raise FileChanged("the file changed while it was being read (it is now shorter)",
                          path=path, line=n + 1, expected=_UNCHANGED)


_UNCHANGED = "a file that nothing rewrites while it is read (appending is fine)"

# A file modified less than this before it was opened may be modified again within the
# same timestamp tick (kernels stamp files with a coarse clock): its status cannot prove it
# unchanged.
_TICK_MARGIN_NS = 2_000_000_000


def _check_same(f: Any, crcs: array, path: str) -> None:
    """Read the open file `f` again from its start: FileChanged unless its first lines are
    the ones whose CRCs `crcs` holds (lines after them, appended since, are not read)."""
    f.seek(0)
    for _ in _checked_lines(f, crcs, path, "this line is not the one read"):
        pass


# A blank line holds only JSON's whitespace; str.strip() would also take a form feed, a
# no-break space, U+2028..., and skip a line that is no JSON without a word.
_BLANK = " \t\r\n"


def split_lines(text: str) -> list[str]:
    """Lines as files mean them: split at \\n only (str.splitlines also splits at U+2028,
    form feeds..., which JSON allows raw in strings, and would shift the line numbers)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def text_values(text: str, path: str) -> list[tuple[int, Any]]:
    """iter_jsonl's values of JSON Lines text already read whole (data/readers.read_text)."""
    return [(n, parse(line, path=path, line=n))
            for n, line in enumerate(split_lines(text), start=1) if line.strip(_BLANK)]


# --- writing ----------------------------------------------------------------------------

# Dates and dataclasses go to `default` as json.dumps sends them (orjson has its own
# spellings of them); a str subclass (a str enum) is written as its text by both.
_LINE = (orjson.OPT_APPEND_NEWLINE | orjson.OPT_PASSTHROUGH_DATETIME
         | orjson.OPT_PASSTHROUGH_DATACLASS)


def write(path: str, rows: Iterable[Any], *, what: str = "") -> int:
    """Replace the file `path` whole with `rows`, a line each (fsutil.atomic_write: whole
    or not at all); the count."""
    count = 0
    with atomic_write(path, what=what) as f:
        for row in rows:
            f.write(line(row))
            count += 1
    return count


def line(value: Any, default: Callable[[Any], Any] | None = None) -> bytes:
    """`value` as one JSON Lines row: UTF-8, compact, newline-ended, as orjson writes it (a
    float that is not finite as null: `NaN` is not JSON). What orjson refuses (an integer
    beyond 64 bits, a key that is not a str, a lone surrogate) json writes in the same
    layout, a lone surrogate as `?`."""
    try:
        return orjson.dumps(value, default=default, option=_LINE)
    except TypeError:   # orjson.JSONEncodeError
        text = json.dumps(_nulled(value), ensure_ascii=False, default=default,
                          separators=(",", ":"))
        return (text + "\n").encode("utf-8", "replace")


def _nulled(value: Any) -> Any:
    """`value` with every float that is not finite as None, as orjson writes it."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _nulled(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nulled(v) for v in value]
    return value
