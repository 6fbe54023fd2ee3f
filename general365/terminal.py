"""Text from a file or a server, made safe to print on a terminal.

Any value read (a graded file's `model`, a server's error message) can hold an escape
sequence (clear the line, retitle the window), a carriage return or newline that forges a
line of its own, a bidirectional override, or a lone surrogate that no terminal encoding
can write. Each is written as its escape instead (`\\x1b`, `\\n`, `\\u202e`). `shown` is for
one value; `shown_lines` for a block general365 composed (its own newlines kept; the values
inside should still each go through `shown`).
"""

from __future__ import annotations

import re

# C0 and C1 controls and DEL; the bidirectional marks, embeddings, overrides and isolates;
# the line and paragraph separators (a line break to some terminals); lone surrogates.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                     "\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match) -> str:
    c = m.group(0)
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def shown(text: object) -> str:
    text = str(text)
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def shown_lines(text: object) -> str:
    return "\n".join(shown(line) for line in str(text).split("\n"))


class ShownStream:
    """`target`, with what is written escaped (shown_lines): for what another library prints
    while we call it (a tracker's "Created new run: <model name>")."""

    def __init__(self, target):
        self._target = target

    def write(self, text: str) -> int:
        self._target.write(shown_lines(text))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._target.flush()

    def __getattr__(self, name: str):
        return getattr(self._target, name)
