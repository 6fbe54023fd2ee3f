"""Reading JSON the one way every part of general365 does: strictly, line by line (flat
memory for any file size), exact line numbers in every error, blank lines skipped.

Strict means that what Python's json module would take but a later step would trip on is
refused here, as one DataError naming the file, the line and the field:

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

Kept cheap, since grade reads every row of a big file this way: one parse (the C parser,
with a hook that sees each object's key/value pairs before they become a dict), then one
walk over the value's containers for the depth; strings are examined with `isascii()`,
O(1) in CPython, and only a non-ASCII string is encoded to look for a surrogate. (Counting
key tokens in the text, to parse without the hook, measured slower than the hook.)
"""

from __future__ import annotations

import json
import os
import re
import time
import zlib
from array import array
from typing import Any, Callable, Iterator, Mapping

from .errors import DataError

# Deep enough for any record general365 reads (a few levels) with a wide margin; shallow
# enough that writing the value back out can never reach Python's recursion limit.
MAX_DEPTH = 100

# Lines are read through a larger buffer than the default 8 KiB, with which a line of a
# reasoning model's output (tens of kilobytes) is put together from several reads and joins
# (six times slower, measured on 20,000-character lines). Not much larger: the second pass
# (iter_same_lines) checks each line against the first pass as it reads it, so it should
# not read far ahead of the grading: a rewrite of the file during the grade is then caught.
READ_BUFFER = 1 << 16


class NotJSON(DataError):
    """Not JSON at all (a syntax error), as opposed to JSON that breaks a strict rule."""


class _DuplicateKey(Exception):
    def __init__(self, key: str):
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k)
            seen.add(k)
    return d


class _NonFinite:
    """What a NaN or an infinity parses to here: a marker that the walk over the value
    (_check) reports with its field. (Raised from the parse hook, the error could not name
    the field.)"""

    def __init__(self, text: str):
        self.text = text


def _finite_float(text: str) -> float | _NonFinite:
    x = float(text)
    return x if x - x == 0.0 else _NonFinite(text)   # False for inf and nan only


_EXACT = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_NonFinite,
                          parse_float=_finite_float)


def _bad_text(s: str) -> bool:
    if s.isascii():   # O(1) in CPython: an ASCII str cannot hold a surrogate
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _check(value: Any) -> tuple[str, str | None] | None:
    """(problem, top-level field) for the first container deeper than MAX_DEPTH, lone
    surrogate (in a key or a string) or NaN/infinity in `value`, or None. Iterative: a deep value cannot
    overflow the stack here."""
    stack: list[tuple[Any, int, str | None]] = [(value, 1, None)]
    while stack:
        v, depth, top = stack.pop()
        if depth > MAX_DEPTH:
            return "deep", top
        if type(v) is dict:
            for k, x in v.items():
                field = top or k
                if not k.isascii() and _bad_text(k):
                    return "surrogate", field
                t = type(x)
                if t is str:
                    if not x.isascii() and _bad_text(x):
                        return "surrogate", field
                elif t is dict or t is list:
                    stack.append((x, depth + 1, field))
                elif t is _NonFinite:
                    return "nonfinite", field
        else:
            for x in v:
                t = type(x)
                if t is str:
                    if not x.isascii() and _bad_text(x):
                        return "surrogate", top
                elif t is dict or t is list:
                    stack.append((x, depth + 1, top))
                elif t is _NonFinite:
                    return "nonfinite", top
    return None


def parse(text: str, *, path: str | None = None, line: int | None = None,
          expected: str = "one JSON object a line") -> Any:
    """The JSON value of `text`, strictly (see the module's doc); a DataError otherwise."""
    where: dict[str, Any] = {"path": path, "line": line}
    return _checked(_decode(_EXACT.decode, text, where, expected), where)


def _decode(decode: Callable[..., Any], text: str, where: dict[str, Any],
            expected: str = "one JSON object a line", *args: Any) -> Any:
    """decode(text, *args), its errors as DataErrors (the strict decoder's and the string
    scanner's)."""
    try:
        return decode(text, *args)
    except json.JSONDecodeError as exc:
        raise NotJSON(f"not valid JSON ({exc.msg})", expected=expected, **where) from None
    except _DuplicateKey as exc:
        raise DataError(f"the key {exc.key!r} appears twice in one object",
                        expected="each key once (which value was meant is ambiguous)",
                        **where) from None
    except RecursionError:
        raise DataError("JSON nested too deeply", expected=f"at most {MAX_DEPTH} levels of "
                        "objects and arrays", **where) from None
    except ValueError:   # CPython's limit on integer digits (not a JSONDecodeError)
        raise DataError("an integer of more than 4300 digits",
                        expected="numbers of a sensible size", **where) from None


def _checked(value: Any, where: dict[str, Any]) -> Any:
    """`value`, once no container in it is too deep and no string holds a lone surrogate."""
    t = type(value)
    if t is dict or t is list:
        bad = _check(value)
    elif t is str and _bad_text(value):
        bad = ("surrogate", None)
    elif t is _NonFinite:
        bad = ("nonfinite", None)
    else:
        bad = None
    if bad is not None:
        kind, field = bad
        if kind == "deep":
            raise DataError("JSON nested too deeply", field=field,
                            expected=f"at most {MAX_DEPTH} levels of objects and arrays",
                            **where)
        if kind == "nonfinite":
            raise DataError("NaN or an infinite number (not JSON)", field=field,
                            expected="finite numbers (write a missing value as null)",
                            **where)
        raise DataError("a lone surrogate escape (\\ud800-\\udfff not in a pair) in a string",
                        field=field, expected="text that is valid Unicode", **where)
    return value


class Fingerprint:
    """What a first pass over a file saw, for a second pass to reread exactly that: the
    CRC-32 of each raw line (4 bytes a line), and, after the second pass, whether the file
    had grown since."""

    def __init__(self) -> None:
        self.crcs = array("I")
        self.grew = False

    def __len__(self) -> int:
        return len(self.crcs)


def iter_jsonl(path: str, *, errors: list[DataError] | None = None,
               fingerprint: Fingerprint | None = None,
               reader: Callable[..., Any] = parse,
               unchanged: bool = False) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for each non-blank line of `path`.

    A line that is not UTF-8 or not (strict) JSON raises a DataError naming the file and
    line; with `errors` given, it is appended there instead and the line skipped (to report
    every bad line of a file at once). Lines are decoded one by one, so a bad byte is
    reported on its own line (a text-mode reader decodes ahead, in blocks, and would blame
    an earlier one). With `fingerprint`, the CRC-32 of each raw line, blank lines included,
    is recorded in it: `iter_same_lines` later rereads exactly these lines. `reader`:
    parse, or parse_strict_verbatim (the same checks, and the value's long strings).

    `unchanged=True` (for a reader whose single pass is all it reads: grade's rule policy):
    once the end is reached, FileChanged is raised if the lines read are not the file's
    lines then, so that what was read is one version of the file, never the head of one and
    the tail of another (a rewrite in place, a truncation, while it was read). Appending
    is fine: the lines added before the end are read. Checked cheaply: the file's status
    against what it was when opened, and only when that changed (or the file had just been
    written then: timestamps move in clock ticks) are the lines read again and compared.
    """
    if unchanged and fingerprint is None:
        fingerprint = Fingerprint()
    crcs = fingerprint.crcs if fingerprint is not None else None
    with open(path, "rb", buffering=READ_BUFFER) as f:
        opened, opened_at = os.fstat(f.fileno()), time.time_ns()
        size = 0
        for n, raw in enumerate(f, start=1):
            size += len(raw)
            if crcs is not None:
                crcs.append(zlib.crc32(raw))
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                err = DataError(f"not UTF-8 text (byte {exc.start + 1} of the line)",
                                path=path, line=n, expected="UTF-8 JSON Lines")
            else:
                if not text.strip():
                    continue
                try:
                    value = reader(text, path=path, line=n)
                except DataError as exc:
                    err = exc
                else:
                    yield n, value
                    continue
            if errors is None:
                if unchanged:   # a line cut by a rewrite is the rewrite's error, not the line's
                    _check_same(f, crcs, path)
                raise err
            errors.append(err)
        if unchanged and crcs is not None:
            now = os.fstat(f.fileno())
            if (now.st_size != size or _changed(opened, now)
                    or opened_at - opened.st_mtime_ns < _TICK_MARGIN_NS):
                _check_same(f, crcs, path)


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
            for n, line in enumerate(split_lines(text), start=1) if line.strip()]


class FileChanged(DataError):
    """The file is not what an earlier pass read (see iter_same_lines)."""


def iter_same_lines(path: str, fingerprint: Fingerprint,
                    decode: Callable[[str], Any] = json.loads) -> Iterator[tuple[int, Any]]:
    """The lines an earlier `iter_jsonl(path, fingerprint=...)` read, read again, each
    checked against that pass's CRC before it is parsed: a line that differs, or a file now
    shorter, raises FileChanged at that line, so nothing from a changed line is ever used.
    Lines added since are not read (the first pass is the snapshot); `fingerprint.grew`
    then says so.

    The check is what keeps this cheap: the line was already strictly parsed and checked
    by the first pass, so here the plain parser suffices (`decode`: json.loads, or
    parse_verbatim)."""
    with open(path, "rb", buffering=READ_BUFFER) as f:
        for n, raw, appended in _snapshot_lines(f, fingerprint.crcs, path,
                                                "this line differs from the first pass"):
            if appended:
                fingerprint.grew = True
            if raw is None:
                return
            text = raw.decode("utf-8")
            if text.strip():
                yield n, decode(text)


def _snapshot_lines(f: Any, crcs: array, path: str,
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
    for _ in _snapshot_lines(f, crcs, path, "this line is not the one read"):
        pass


# --- long strings passed through verbatim ---------------------------------------------
#
# A reasoning model's response is tens of thousands of characters, most of a responses.jsonl
# line. Grading reads it (json.loads) and writes it back unchanged into the graded row
# (json.dumps), and the writing costs more than the reading. Where the line holds the string
# exactly as json.dumps(..., ensure_ascii=False) writes it, the writer reuses the line's own
# JSON text for it instead: the same bytes, without encoding them again.

# A JSON string as the JSON grammar has it (valid escapes, no raw control character), so
# that a head it matches is valid JSON: any error in the line lies after it.
_STR = r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4}){0,512}"'
# The layout general365 writes its rows in (Response.to_dict, json.dumps' separators):
# id, run and response first; then model and reasoning, when present.
_HEAD_RE = re.compile(r'\{"id": ' + _STR + r', "run": -?(?:0|[1-9][0-9]{0,19}), "response": "')
_REASONING_RE = re.compile(r'(?:, "model": ' + _STR + r')?, "reasoning": "')
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode   # what json.dumps(x, ensure_ascii=False) is
_scanstring = json.decoder.scanstring


def verbatim_string(token: str, text: str) -> bool:
    """True when `token`, a JSON string literal (quotes included) that decodes to `text`,
    is exactly json.dumps(text, ensure_ascii=False); False when it may not be.

    json.dumps writes every character as itself except `"`, `\\` and the control
    characters: \\" \\\\ \\b \\f \\n \\r \\t, else a six-character \\u escape (\\u
    and four hex digits). A token decodes to the same text with other spellings only
    through \\u escapes and \\/. The \\u escapes show in the lengths: a 2-character
    escape lengthens the token by one character and holds one backslash more than the text
    does (\\\\ holds two, its text one), a \\u escape lengthens it by five (eleven for a
    surrogate pair) and holds one (two). So the backslash counts explain the extra length
    exactly when there is no \\u escape; then a missing \\/ leaves only json.dumps' own
    spellings. (A control character that json.dumps itself writes as a \\u escape gives
    False too: only the fast way is lost, it is rare.) At most
    three scans at C speed, no encoding; mostly two."""
    if "\\u" not in token and "\\/" not in token:
        # Neither spelling can be there (each contains its pair of characters); a \\\\
        # before u or / (LaTeX's \\underline) only sends the token to the count below.
        return True
    extra = len(token) - 2 - len(text)
    return (token.count("\\") - text.count("\\") == extra
            and "\\/" not in token)


def parse_verbatim(line: str) -> tuple[Any, Mapping[str, tuple[str, str]]]:
    """json.loads(line), and for its `response` and `reasoning` strings, where the line
    holds them as json.dumps writes them (verbatim_string) and in the layout general365
    writes (id, run, response first), {field: (text, JSON text)} for `dumps`. For a line
    already strictly checked (iter_jsonl): the strings are read by json's own scanner."""
    return _split_long_strings(line, json.loads, _scanstring)


def parse_strict_verbatim(text: str, *, path: str | None = None, line: int | None = None
                          ) -> tuple[Any, Mapping[str, tuple[str, str]]]:
    """parse(text), with its checks and errors, and the long strings as parse_verbatim
    gives them: for a reader that checks and grades each line in one read
    (iter_jsonl(reader=parse_strict_verbatim))."""
    where: dict[str, Any] = {"path": path, "line": line}
    value, kept = _split_long_strings(
        text, lambda small: _decode(_EXACT.decode, small, where),
        lambda s, start: _decode(_scanstring, s, where, "one JSON object a line", start))
    # Checked whole, the long strings back in place: the checks parse(text) makes, in the
    # same order (a string's own errors were raised as it was scanned, as in parse).
    return _checked(value, where), kept


def _split_long_strings(line: str, loads: Callable[[str], Any],
                        scan: Callable[[str, int], tuple[str, int]]
                        ) -> tuple[Any, Mapping[str, tuple[str, str]]]:
    m = _HEAD_RE.match(line)
    if m is None:
        return loads(line), {}
    found = []
    start = m.end()
    text, end = scan(line, start)
    found.append(("response", text, start, end))
    m = _REASONING_RE.match(line, end)
    if m is not None:
        start = m.end()
        text, end = scan(line, start)
        found.append(("reasoning", text, start, end))
    # The line with those strings emptied ("response": ""), parsed as usual: small.
    pieces, at = [], 0
    for _, _, start, end in found:
        pieces.append(line[at:start])
        at = end - 1
    pieces.append(line[at:])
    value = loads("".join(pieces))
    kept = {}
    for key, text, start, end in found:
        value[key] = text            # the key keeps its place in the object
        token = line[start - 1:end]
        if verbatim_string(token, text):
            kept[key] = (text, token)
    return value, kept


def dumps(value: dict, verbatim: Mapping[str, tuple[str, str]] | None = None,
          end: str = "") -> str:
    """json.dumps(value, ensure_ascii=False) + end, character for character, taking the
    JSON text of the fields in `verbatim` ({field: (text, JSON text)}, from
    parse_verbatim) as it is where value[field] is still that very text. (json.dumps writes
    an object as `{`, its items joined by `, `, `}`: so the object can be written in runs
    of items. The long texts are copied once, into the result.)"""
    use = {k: token for k, (text, token) in verbatim.items()
           if value.get(k) is text} if verbatim else None
    if not use:
        return _ENCODE(value) + end
    pieces: list[str] = ["{"]
    run: dict = {}
    for k, v in value.items():
        token = use.get(k)
        if token is None:
            run[k] = v
            continue
        if run:
            pieces += (_ENCODE(run)[1:-1], ", ")
            run = {}
        pieces += (_ENCODE(k), ": ", token, ", ")
    if run:
        pieces.append(_ENCODE(run)[1:-1])
    else:
        pieces.pop()   # the last ", "
    pieces.append("}" + end)
    return "".join(pieces)
