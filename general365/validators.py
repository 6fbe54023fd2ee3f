"""The checks every entry point and reader shares: typed values and strict JSON.

- Values: `is_int` / `is_number` (a JSON `true` is not 1), and `option_int` /
  `option_number`, which refuse a bad keyword argument with one OptionError.
- Strict JSON: `DECODER` refuses a key twice in one object (json keeps the last), NaN and
  infinities (not JSON); `problem_in(value)` finds what a parse cannot see (nesting past
  MAX_DEPTH, a lone surrogate). `loads` does both; `one_object` is the judges' reply rule.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .errors import OptionError

# Deep enough for any record general365 reads (a few levels) with a wide margin; shallow
# enough that writing the value back out can never reach Python's recursion limit.
MAX_DEPTH = 100


def is_int(value: Any) -> bool:
    """An integer, and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """An int or a float, and not a bool (NaN and infinities included: see is_finite)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_finite(value: Any) -> bool:
    """A number that is neither NaN nor an infinity (a huge int counts as finite)."""
    return is_int(value) or (isinstance(value, float) and math.isfinite(value))


def option_int(option: str, value: Any, *, minimum: int = 1, maximum: int | None = None,
               text: str | None = None) -> int:
    """`value` when it is an integer in [minimum, maximum]; else OptionError(option, text),
    text by default `must be an integer >= minimum (got value)`."""
    if not is_int(value) or value < minimum or (maximum is not None and value > maximum):
        if text is None:
            bound = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
            text = f"must be an integer {bound} (got {value!r})"
        raise OptionError(option, text)
    return value


def option_number(option: str, value: Any, *, low: float = -math.inf, high: float = math.inf,
                  low_open: bool = False, high_open: bool = False,
                  text: str | None = None) -> float:
    """`value` when it is a finite number between low and high (each end open or closed);
    else OptionError(option, text)."""
    ok = is_finite(value) and (value > low if low_open else value >= low) \
        and (value < high if high_open else value <= high)
    if not ok:
        if text is None:
            text = (f"must be a number in {'(' if low_open else '['}{low}, {high}"
                    f"{')' if high_open else ']'} (got {value!r})")
        raise OptionError(option, text)
    return value


class DuplicateKey(ValueError):
    """A key given twice in one JSON object."""

    def __init__(self, key: str):
        super().__init__(f"duplicated key {key!r}")
        self.key = key


class NonFinite:
    """What NaN, an infinity or `1e999` parses to: a marker that problem_in() reports with
    its field (an error raised from the parse hook could not name it)."""

    def __init__(self, text: str):
        self.text = text


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise DuplicateKey(k)
            seen.add(k)
    return d


def _finite_float(text: str) -> float | NonFinite:
    x = float(text)
    return x if x - x == 0.0 else NonFinite(text)   # False for inf and nan only


DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=NonFinite,
                           parse_float=_finite_float)


def lone_surrogate(s: str) -> bool:
    """Whether `s` holds a lone surrogate (no UTF-8 write of it encodes)."""
    if s.isascii():   # O(1) in CPython: an ASCII str cannot hold a surrogate
        return False
    try:
        s.encode("utf-8")   # six times as fast as a regex search for one
    except UnicodeEncodeError:
        return True
    return False


def problem_in(value: Any) -> tuple[str, str | None] | None:
    """(problem, top-level field) for the first container deeper than MAX_DEPTH ("deep"),
    lone surrogate ("surrogate") or NonFinite ("nonfinite") in a value DECODER made; None
    when there is none. Iterative: a deep value cannot overflow the stack here."""
    stack: list[tuple[Any, int, str | None]] = [([value], 0, None)]   # value at depth 1
    while stack:
        v, depth, top = stack.pop()
        if depth > MAX_DEPTH:
            return "deep", top
        items = v.items() if type(v) is dict else ((None, x) for x in v)
        for k, x in items:
            field = top or k
            if k is not None and not k.isascii() and lone_surrogate(k):
                return "surrogate", field
            t = type(x)
            if t is str:
                if not x.isascii() and lone_surrogate(x):
                    return "surrogate", field
            elif t is dict or t is list:
                stack.append((x, depth + 1, field))
            elif t is NonFinite:
                return "nonfinite", field
    return None


_SAID = {"deep": f"nested deeper than {MAX_DEPTH} levels",
         "surrogate": "a lone surrogate in a string",
         "nonfinite": "NaN or an infinity, which JSON does not have"}


class StrictJSONError(ValueError):
    """Text that is not strict JSON; str() says why in a few words."""


def loads(text: str) -> Any:
    """The JSON value `text` holds, refused (StrictJSONError) for a syntax error, a key
    twice, NaN/Infinity, a lone surrogate or nesting deeper than MAX_DEPTH."""
    try:
        value = DECODER.decode(text)
    except DuplicateKey as exc:
        raise StrictJSONError(f"a JSON object with a {exc}") from None
    except RecursionError:
        raise StrictJSONError(_SAID["deep"]) from None
    except ValueError:
        raise StrictJSONError("not JSON") from None
    bad = problem_in(value)
    if bad is not None:
        raise StrictJSONError(_SAID[bad[0]] + (f" (field {bad[1]!r})" if bad[1] else ""))
    return value


# A whole reply in one fenced block (```json ... ```): nothing before or after the fence.
_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)


def unfence(text: str) -> str:
    """`text` stripped, and the inside of one fence when the fence is all of it."""
    text = text.strip()
    fenced = _FENCE.fullmatch(text)
    return fenced.group(1).strip() if fenced else text


def one_object(text: str) -> tuple[dict | None, str | None]:
    """(the object, None) when `text` is exactly one strict JSON object, give or take
    surrounding whitespace or one fence around all of it; else (None, why not)."""
    text = unfence(text)
    if not text:
        return None, "empty reply"
    try:
        value, end = DECODER.raw_decode(text)
    except DuplicateKey:
        return None, "a JSON object with a duplicated key"
    except (ValueError, RecursionError):
        return None, "not a JSON object"
    if not isinstance(value, dict):
        return None, f"a JSON {type(value).__name__}, not an object"
    if text[end:].strip():
        return None, "text after the JSON object"
    bad = problem_in(value)
    if bad is not None:
        return None, _SAID[bad[0]]
    return value, None
