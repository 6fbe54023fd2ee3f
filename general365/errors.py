"""User-facing errors. Every mistake a user can make is a `UserError`: the CLI prints its
one-line message and exits 2, with no traceback. Anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """A problem with the user's input or environment, explained in one line."""

    exit_code = 2

    def lines(self) -> list[str]:
        """The message's lines (several for DataErrors): the CLI escapes each, so a newline
        inside a quoted value cannot start a line of its own."""
        return [str(self)]


class OptionError(UserError):
    """A bad option value, shown as the keyword argument from Python (`temperature must be
    >= 0`) and as the flag on the command line (`--temperature ...`). `text` may name other
    options in braces (`"is for {backend} openai"`), spelled the same way."""

    def __init__(self, option: str, text: str, *, api_hint: str = ""):
        self.option = option
        self.text = text
        self.api_hint = api_hint   # said to Python callers only (how to do it from Python)
        super().__init__(self.render(api_spelling) + api_hint)

    def render(self, spell) -> str:
        import re

        body = re.sub(r"\{([a-z_]+)\}", lambda m: spell(m.group(1)), self.text)
        return spell(self.option) + ("" if body.startswith(":") else " ") + body


def api_spelling(option: str) -> str:
    """An option as the Python API names it (the judge's as Judge's: `judge votes`)."""
    return "judge " + option[6:].replace("_", " ") if option.startswith("judge_") else option


def first_line(exc: BaseException, limit: int | None = None) -> str:
    """An error's first line (its class name where it says nothing), for a one-line message."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:limit]


class DataError(UserError):
    """A bad record: names the file, the line or id, the field, and what was expected."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 row_id: str | None = None, field: str | None = None, value: object = None,
                 expected: str | None = None):
        self.path, self.line, self.row_id, self.field = path, line, row_id, field
        self.value, self.expected, self.detail = value, expected, message
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.path:
            where.append(str(self.path) + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.row_id is not None:
            where.append(f"id {self.row_id!r}")
        if self.field:
            where.append(f"field {self.field!r}")
        text = ", ".join(where)
        text = f"{text}: {self.detail}" if text else self.detail
        if self.value is not None:
            shown = repr(self.value)
            if len(shown) > 80:
                shown = shown[:77] + "..."
            text += f" (got {shown})"
        if self.expected:
            text += f"; expected {self.expected}"
        return text


class DataErrors(UserError):
    """Several bad rows found in one pass: one line each, so a user fixes them all at once."""

    def __init__(self, errors: list[DataError], *, limit: int = 50):
        self.errors = list(errors)
        self._lines = [f"{len(self.errors)} bad row(s):", *map(str, self.errors[:limit])]
        if len(self.errors) > limit:
            self._lines.append(f"... and {len(self.errors) - limit} more")
        super().__init__("\n".join(self._lines))

    def lines(self) -> list[str]:
        return list(self._lines)


class MissingExtra(UserError):
    """An optional dependency is not installed."""

    def __init__(self, module: str, extra: str):
        super().__init__(
            f"{module} is not installed; install it with: pip install 'general365[{extra}]'"
        )
