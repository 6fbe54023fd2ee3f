"""Text from a file or a server, made safe to print on a terminal.

A graded file's `model` field, a dataset's id, a server's error message: any of them can
hold an escape sequence (`ESC [2K` clears the line, `ESC ]` retitles the window or hides a
link), a carriage return or a newline that draws a line of its own (a forged summary
line), a bidirectional override that shows text in another order than it is read, or a
lone surrogate that no terminal encoding can write (the print itself then fails). Every
such character is written as its escape instead (`\\x1b`, `\\n`, `\\u202e`), so what is
shown is what the file holds, and nothing else.

`shown(text)` is for one value (or a one-line message that quotes values): every such
character escaped, newlines included. `shown_lines(text)` is for a block of lines that
general365 itself composed (a summary): its own newlines kept, everything else escaped;
the values inside should still each go through `shown`, so that one holding a newline
cannot add a line.
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
    """`text` (str() of it) with every control, bidirectional and surrogate character
    written as its escape, newlines included."""
    text = str(text)
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def shown_lines(text: object) -> str:
    """`text` made safe line by line: its newlines kept, every other unsafe character
    escaped (see `shown`)."""
    return "\n".join(shown(line) for line in str(text).split("\n"))


class ShownStream:
    """A text stream that writes to `target` what it is given with every unsafe character
    escaped (shown_lines: newlines kept). For what another library prints while we call it
    (a tracker's "Created new run: <model name>"): the text may come from a file. Anything
    else a library asks of the stream (encoding, isatty, fileno) is the target's."""

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
