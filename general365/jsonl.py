"""Reading and writing JSON Lines, the one way every part of general365 does.

Reading is strict, line by line (flat memory for any file size), with exact line numbers in
every error, blank lines skipped. Strict means that what Python's json module would take
but a later step would trip on is refused here, as one DataError naming the file, the line
and the field:

- a key twice in one object (`{"run": 0, "run": 1}`): json keeps the last silently;
- nesting deeper than MAX_DEPTH: json raises RecursionError near 1,000 levels, and a value
  that parsed a little below that limit overflows the stack when it is written back out;
- an integer of more than 4,300 digits: json raises a bare ValueError (CPython's limit);
- a lone surrogate escape (`"\\ud800"`): json makes a str that cannot be encoded as UTF-8,
  so every later write of it (a parquet file, a graded row) would crash;
- `NaN`, `Infinity`, `-Infinity`, and a number too large for a float (`1e999`, read as
  infinity): not JSON (RFC 8259), yet json reads them and writes them back as `NaN`, so a
  graded file that carries the field on is one that jq, JavaScript or any strict reader
  refuses.

Two decoders, one result. The strict decoder (validators.DECODER: json's C parser with a
hook on each object's pairs, then a walk over the value) defines the values and the
errors. Each line is first given to orjson, which reads the long strings of a reasoning
model's output faster and has no such hook: a grade's single read is 1.8-1.9 times as fast
in CPU time, checks included (benchmarks/jsonl_io.py). orjson itself refuses NaN, infinities,
lone surrogates, bad UTF-8 and deep nesting past 1,024 levels, and what it takes that the
strict rules refuse is ruled out by one walk over its value (_quick). Whatever orjson
refuses, or the walk cannot vouch for, is decoded again by the strict decoder: so its
value or its error is what the caller gets, always.

Writing: `line(value)` is every JSON Lines row general365 writes (orjson: UTF-8, compact),
into a file that `fsutil.atomic_write` replaces whole (`write`, or a writer that streams
its rows) or an appender adds to (runners/store.py).
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

# Lines are read through a larger buffer than the default 8 KiB, with which a line of a
# reasoning model's output (tens of kilobytes) is put together from several reads and joins
# (six times slower, measured on 20,000-character lines). Not much larger: a reread
# (iter_jsonl(expect=...)) checks each line against the first read as it reads it, so it
# should not read far ahead of the grading: a rewrite of the file during the grade is then
# caught.
READ_BUFFER = 1 << 16


class NotJSON(DataError):
    """Not JSON at all (a syntax error), as opposed to JSON that breaks a strict rule."""


def parse(text: str, *, path: str | None = None, line: int | None = None,
          expected: str = "one JSON object a line") -> Any:
    """The JSON value of `text`, strictly (see the module's doc); a DataError otherwise."""
    value = _quick(text)
    if value is _UNSURE:
        value = _strict(text, path, line, expected)
    return value


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
        raise DataError("JSON nested too deeply", expected=f"at most {MAX_DEPTH} levels of "
                        "objects and arrays", **where) from None
    except ValueError:   # CPython's limit on integer digits (not a JSONDecodeError)
        raise DataError("an integer of more than 4300 digits",
                        expected="numbers of a sensible size", **where) from None
    bad = problem_in(value)
    if bad is None:
        return value
    kind, field = bad
    if kind == "deep":
        raise DataError("JSON nested too deeply", field=field,
                        expected=f"at most {MAX_DEPTH} levels of objects and arrays", **where)
    if kind == "nonfinite":
        raise DataError("NaN or an infinite number (not JSON)", field=field,
                        expected="finite numbers (write a missing value as null)", **where)
    raise DataError("a lone surrogate escape (\\ud800-\\udfff not in a pair) in a string",
                    field=field, expected="text that is valid Unicode", **where)


# --- the fast path ----------------------------------------------------------------------

_UNSURE = object()

# orjson reads an integer beyond 64 bits as a float (json: an exact int); a float of at
# least this size may be one, so the strict decoder decides.
_WIDE = 9.2e18


def _quick(data: str | bytes) -> Any:
    """orjson's value of `data` where it is the strict decoder's too, else _UNSURE.

    Beyond what orjson refuses itself, the strict rules refuse nesting past MAX_DEPTH and
    a key twice in an object, and the strict decoder reads wide integers exactly: the walk
    (_tally) sees the depth and the floats. A repeated key leaves no trace in the value
    but a count: each key of the line has its own colon after it, and every other colon
    of the line is inside a string. So where no colon is written as an escape (\\u003a),
    the line's colons number the value's keys plus the colons in its strings exactly when
    no key was dropped for a later one, and more when one was. (The counts and the search
    for an escape are scans at C speed; orjson has no hook on each object's pairs, as the
    strict decoder has.)"""
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

    A line that is not UTF-8 or not (strict) JSON raises a DataError naming the file and
    line; with `errors` given, it is appended there instead and the line skipped (to report
    every bad line of a file at once). Lines are decoded one by one, so a bad byte is
    reported on its own line (a text-mode reader decodes ahead, in blocks, and would blame
    an earlier one).

    `snapshot`: the read is recorded in it, and what was read is one version of the file,
    never the head of one and the tail of another: once the end is reached, FileChanged is
    raised if the lines read are not the file's lines then (a rewrite in place, a
    truncation). Appending is fine: the lines added before the end are read. Checked
    cheaply: the file's status against what it was when opened; only when that changed
    (or the file had just been written then: timestamps move in clock ticks) are the lines
    read again and compared.

    `expect` (a snapshot an earlier read recorded): reread exactly the lines it read, each
    checked against it before it is parsed: a line that differs, or a file now shorter,
    raises FileChanged at that line, so nothing from a changed line is used. Lines added
    since are not read; `expect.grew` then says so.
    """
    crcs = snapshot.crcs if snapshot is not None else None
    with open(path, "rb", buffering=READ_BUFFER) as f:
        opened, opened_at = os.fstat(f.fileno()), time.time_ns()
        if expect is not None:
            lines: Iterator[tuple[int, bytes]] = _same_lines(f, expect, path)
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
            if (now.st_size != size or _changed(opened, now)
                    or opened_at - opened.st_mtime_ns < _TICK_MARGIN_NS):
                _check_same(f, crcs, path)


def _same_lines(f: Any, expect: Snapshot, path: str) -> Iterator[tuple[int, bytes]]:
    for n, raw, appended in _checked_lines(f, expect.crcs, path,
                                           "this line differs from the first read"):
        if appended:
            expect.grew = True
        if raw is None:
            return
        yield n, raw


def _checked_lines(f: Any, crcs: array, path: str,
                   differs: str) -> Iterator[tuple[int, bytes | None, bool]]:
    """The lines of the open file `f`, from where it stands, checked against `crcs` (the
    CRC-32 of each line an earlier read met): (n, raw, appended) for each line that
    matches. FileChanged at a line that differs (`differs` says how), or when the file is
    now shorter. `appended`: rows were added since; the first line past the snapshot comes
    as (n, None, True) and ends the lines (the snapshot is what is read)."""
    last = len(crcs)
    n = 0
    for n, raw in enumerate(f, start=1):
        if n > last:
            yield n, None, True
            return
        if zlib.crc32(raw) == crcs[n - 1]:
            yield n, raw, False
        elif n == last and raw.endswith(b"\n") and zlib.crc32(raw[:-1]) == crcs[-1]:
            # The earlier read met this last line without its newline (the end of the file
            # then); rows were appended since: the same line, now ended.
            yield n, raw[:-1], True
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


def _changed(before: os.stat_result, after: os.stat_result) -> bool:
    return ((before.st_mtime_ns, before.st_ctime_ns)
            != (after.st_mtime_ns, after.st_ctime_ns))


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
    """Lines as files mean them: split at \\n only. (str.splitlines also splits at U+2028,
    U+0085, form feeds..., which JSON allows raw inside strings, and would shift the line
    numbers that errors name.)"""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def text_values(text: str, path: str) -> list[tuple[int, Any]]:
    """(line number, parsed value) for each non-blank line of JSON Lines text already read
    whole (data/readers.read_text decodes a source file at once, for its error column and
    utf-8-sig): the same strict parse as iter_jsonl."""
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
    """`value` as one JSON Lines row: UTF-8, compact, newline-ended, as orjson writes it
    (a float that is not finite as null: json's `NaN` is not JSON, and no strict reader,
    this module's included, would read the row back). What orjson refuses (an integer
    beyond 64 bits, a key that is not a str, a lone surrogate, which a server's reply can
    hold and UTF-8 cannot) json writes, in the same layout, a lone surrogate as `?`."""
    try:
        return orjson.dumps(value, default=default, option=_LINE)
    except TypeError:   # orjson.JSONEncodeError
        text = json.dumps(_nulled(value), ensure_ascii=False, default=default,
                          separators=(",", ":"))
        return (text + "\n").encode("utf-8", "replace")


def _nulled(value: Any) -> Any:
    """`value` with every float that is not finite as None, as orjson writes it: json
    would write `NaN`, which no strict reader reads back."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _nulled(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nulled(v) for v in value]
    return value
