"""Reading JSON Lines the one way every part of general365 does: line by line (flat memory
for any file size), exact line numbers in every error, blank lines skipped."""

from __future__ import annotations

import json
from typing import Any, Iterator

from .errors import DataError


def iter_jsonl(path: str, *, errors: list[DataError] | None = None
               ) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for each non-blank line of `path`.

    A line that is not UTF-8 or not JSON raises a DataError naming the file and line; with
    `errors` given, it is appended there instead and the line skipped (to report every bad
    line of a file at once). Lines are decoded one by one, so a bad byte is reported on its
    own line (a text-mode reader decodes ahead, in blocks, and would blame an earlier one).
    """
    with open(path, "rb") as f:
        for n, raw in enumerate(f, start=1):
            try:
                text = raw.decode("utf-8")
                if not text.strip():
                    continue
                value = json.loads(text)
            except UnicodeDecodeError as exc:
                err = DataError(f"not UTF-8 text (byte {exc.start + 1} of the line)",
                                path=path, line=n, expected="UTF-8 JSON Lines")
            except json.JSONDecodeError as exc:
                err = DataError(f"not valid JSON ({exc.msg})", path=path, line=n,
                                expected="one JSON object a line")
            else:
                yield n, value
                continue
            if errors is None:
                raise err
            errors.append(err)
