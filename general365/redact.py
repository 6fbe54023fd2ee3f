"""Keeping an API key out of everything written, printed or logged from a server's text.

Servers do echo credentials: in error messages ("invalid key sk-..."), and a hostile or
broken one anywhere else (a reply's content, its model id). Every OpenAI-compatible client
here (the judge, the API runner) passes server text through `Redactor.clean` before it is
kept, and cuts it only AFTER scrubbing: cutting first can split the key so that the
replacement no longer matches, leaving most of it behind.

Besides the whole key, any run of `FRAGMENT` or more of its consecutive characters is
masked, since a server may itself have cut its message in the middle of the key.
"""

from __future__ import annotations

MASK = "***"
FRAGMENT = 8          # the shortest run of a key's characters that is masked on its own
PLACEHOLDER = "EMPTY"  # what we send to a local server when no key is set: not a secret


class Redactor:
    """Masks one secret in text. A key shorter than FRAGMENT characters is masked only
    where text is an error message (`content=False`): in a model's answer, replacing a
    short common string ("token") would corrupt the answer, and such a key cannot be
    kept secret anyway."""

    def __init__(self, secret: str | None):
        self.secret = secret if secret and secret != PLACEHOLDER else None
        s = self.secret or ""
        self._grams = frozenset(s[i:i + FRAGMENT] for i in range(len(s) - FRAGMENT + 1))

    def __repr__(self) -> str:   # never shows the secret
        return f"Redactor({'set' if self.secret else 'none'})"

    def clean(self, text: str, limit: int | None = None, *, content: bool = False) -> str:
        """`text` with the secret masked, then cut to `limit` characters (with " [...]")."""
        if self.secret and text and not (content and len(self.secret) < FRAGMENT):
            text = self._mask(text)
        if limit is not None and len(text) > limit:
            text = text[:limit] + " [...]"
        return text

    def clean_opt(self, text: str | None, limit: int | None = None, *,
                  content: bool = False) -> str | None:
        return None if text is None else self.clean(text, limit, content=content)

    def _mask(self, text: str) -> str:
        secret = self.secret
        assert secret is not None
        text = text.replace(secret, MASK)
        if not self._grams:
            return text
        # Every occurrence of every FRAGMENT-long piece of the key (str.find is a fast C
        # scan); overlapping spans merge, so a longer piece is masked whole.
        spans = []
        for gram in self._grams:
            i = text.find(gram)
            while i != -1:
                spans.append((i, i + FRAGMENT))
                i = text.find(gram, i + 1)
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
