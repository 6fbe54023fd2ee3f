"""Keeping an API key out of everything written, printed or logged from a server's text.

Servers do echo credentials: in error messages ("invalid key sk-..."), and a hostile or
broken one anywhere else (a reply's content, its model id). Every OpenAI-compatible client
here (the judge, the API runner) passes server text through `Redactor.clean` before it is
kept, and cuts it only AFTER masking: cutting first can split the key so that the
replacement no longer matches, leaving most of it behind.

What is masked: the whole key wherever it occurs, and any run of `FRAGMENT` or more of its
consecutive characters, since a server may itself have cut its message in the middle of
the key.
"""

from __future__ import annotations

MASK = "***"
FRAGMENT = 8          # the shortest run of a key's characters that is masked on its own
_QUAD = FRAGMENT // 2
PLACEHOLDER = "EMPTY"  # what we send to a local server when no key is set: not a secret


class Redactor:
    """Masks one secret in text.

    `answer=True` is for a model's answer or reasoning: a key shorter than FRAGMENT
    characters is not masked there, since replacing a short common string such as "token"
    would corrupt answers (and such a key cannot be kept secret anyway)."""

    def __init__(self, secret: str | None):
        self.secret = secret if secret and secret != PLACEHOLDER else None
        s = self.secret or ""
        self._grams = frozenset(s[i:i + FRAGMENT] for i in range(len(s) - FRAGMENT + 1))
        self._quads = frozenset(s[i:i + _QUAD] for i in range(len(s) - _QUAD + 1))

    def __repr__(self) -> str:   # never shows the secret
        return f"Redactor({'set' if self.secret else 'none'})"

    def clean(self, text: str, limit: int | None = None, *, answer: bool = False) -> str:
        """`text` with the secret masked, then cut to `limit` characters (with " [...]")."""
        secret = self.secret
        if secret and text and not (answer and len(secret) < FRAGMENT):
            text = self._mask(text)
        if limit is not None and len(text) > limit:
            text = text[:limit] + " [...]"
        return text

    def clean_opt(self, text: str | None, limit: int | None = None) -> str | None:
        return None if text is None else self.clean(text, limit)

    def _mask(self, text: str) -> str:
        secret = self.secret
        assert secret is not None
        text = text.replace(secret, MASK)
        if not self._grams:
            return text
        # Every FRAGMENT-long window of the text that is a piece of the key. Such a window
        # holds a whole _QUAD-long block starting at a multiple of _QUAD, and that block is
        # a piece of the key too: so only those blocks are looked up (a quarter of the
        # positions, one set lookup each), and windows are checked only around a hit.
        spans = []
        for i in range(0, len(text) - _QUAD + 1, _QUAD):
            if text[i:i + _QUAD] in self._quads:
                for j in range(max(0, i + _QUAD - FRAGMENT), i + 1):
                    if text[j:j + FRAGMENT] in self._grams:
                        spans.append((j, j + FRAGMENT))
        if not spans:
            return text
        spans.sort()
        out, pos, (start, end) = [], 0, spans[0]
        for s, e in spans[1:]:
            if s <= end:
                end = max(end, e)
                continue
            out += [text[pos:start], MASK]
            pos, start, end = end, s, e
        out += [text[pos:start], MASK, text[end:]]
        return "".join(out)
