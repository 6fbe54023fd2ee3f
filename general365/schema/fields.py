"""Field checks shared by the records: each refuses a bad value with one DataError naming
the file, line, row id and field, and what was expected. Plain Python, so that checking
100,000 rows stays cheap."""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import DataError
from ..validators import is_int
from .enums import Category


def _req(d: Mapping[str, Any], key: str, where: dict) -> Any:
    if key not in d or d[key] is None:
        raise DataError("missing field", field=key, **where)
    return d[key]


def _str(value: Any, key: str, where: dict, *, allow_empty: bool = True) -> str:
    if not isinstance(value, str):
        raise DataError("wrong type", field=key, value=value, expected="a string", **where)
    if not allow_empty and not value.strip():
        raise DataError("empty", field=key, expected="a non-empty string", **where)
    return value


# The largest count or index a record may carry. No real run comes near it, and past it
# the report's float arithmetic (means, rates) loses exactness; 10**400 output tokens
# would even overflow a float and crash it.
MAX_INT = 2**53 - 1


def _int(value: Any, key: str, where: dict, *, minimum: int | None = None) -> int:
    if not is_int(value):   # a JSON `true` here is a data error, not 1
        raise DataError("wrong type", field=key, value=value, expected="an integer", **where)
    if minimum is not None and value < minimum:
        raise DataError("out of range", field=key, value=value,
                        expected=f"an integer >= {minimum}", **where)
    if value > MAX_INT:
        raise DataError("out of range", field=key, value=value,
                        expected=f"an integer <= {MAX_INT} (2**53 - 1)", **where)
    return value


def row_id(d: Mapping[str, Any], where: dict) -> str:
    """A row's `id`, checked alike by every reader: a non-empty string (an integer id, as
    some datasets have, is read as its digits). Sets where["row_id"] for later messages."""
    rid = _req(d, "id", where)
    where["row_id"] = _str(str(rid) if is_int(rid) else rid, "id", where, allow_empty=False)
    return where["row_id"]


def row_id_and_run(d: Mapping[str, Any], where: dict) -> tuple[str, int]:
    """The `id` and `run` that name a row (a response, a graded row, a label pointing at
    one); a run is an integer from 0 to MAX_INT (absent: 0)."""
    return row_id(d, where), _int(d.get("run", 0), "run", where, minimum=0)


def parse_float_round(value: Any, **where: Any) -> int:
    """`float_round` arrives as a string in the official data ("0", "2"); cast it strictly."""
    if value is None or value == "":
        return 0
    if isinstance(value, int) and not isinstance(value, bool):
        n = value
    elif isinstance(value, float) and value.is_integer():
        n = int(value)
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() \
            and len(value.strip()) <= 9:   # "²" passes isdigit() but not int()
        n = int(value.strip())
    else:
        raise DataError("bad float_round", field="float_round", value=value,
                        expected="a non-negative integer", **where)
    if n < 0 or n > 30:
        raise DataError("bad float_round", field="float_round", value=value,
                        expected="an integer from 0 to 30", **where)
    return n


def parse_categories(value: Any, **where: Any) -> tuple[Category, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        # A single category or a comma/semicolon separated list is accepted from sources.
        value = [v for v in (p.strip() for p in value.replace(";", ",").split(",")) if v]
        # "Branching & Enumeration" contains no comma, so the split is safe.
    if not isinstance(value, (list, tuple)):
        raise DataError("wrong type", field="categories", value=value,
                        expected="a list of category names", **where)
    out = []
    for v in value:
        c = Category.parse(v, field="categories", **where)
        if c not in out:
            out.append(c)
    return tuple(out)
