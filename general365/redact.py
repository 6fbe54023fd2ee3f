"""Keeping an API key out of everything written, printed or logged from a server's text.

Servers echo credentials (a hostile one anywhere): `Redactor.clean` masks the whole key and
any run of FRAGMENT or more of its characters (a server may cut its message inside the key),
and cuts the text only after masking. A base URL's credentials (`user:password@host`,
`?api_key=...`): `target` splits it for the client, `shown_url` masks it, `url_secrets`
lists them for a Redactor; `shown_settings` and `shown_argv` mask both in run.json.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

MASK = "***"
FRAGMENT = 8          # the shortest run of a key's characters that is masked on its own
_QUAD = FRAGMENT // 2
PLACEHOLDER = "EMPTY"  # what we send to a local server when no key is set: not a secret


# A query parameter whose name says it holds a credential (api_key, access_token, sig,
# X-Amz-Signature, password, auth, ...): its value is masked wherever the URL is shown.
_SECRET_PARAM = re.compile(r"key|token|secret|passw|pwd|sig|auth|cred|session", re.I)


def _split(url: str):
    try:
        return urlsplit(url)
    except ValueError:   # a malformed URL ("http://[::1"): nothing can be read from it
        return None


def _userinfo(parts) -> tuple[str | None, str | None]:
    userinfo, at, _ = parts.netloc.rpartition("@")
    if not at:
        return None, None
    user, colon, password = userinfo.partition(":")
    return user, (password if colon else None)


def url_secrets(url: str) -> list[str]:
    """The credentials in `url`, as written and decoded: the password (or a user name
    without one: then it is the token), and the values of query parameters that say secret."""
    parts = _split(url) if isinstance(url, str) else None
    if parts is None:
        return []
    user, password = _userinfo(parts)
    found = [password if password is not None else user]
    for pair in parts.query.split("&"):
        name, eq, value = pair.partition("=")
        if eq and _SECRET_PARAM.search(unquote(name)):
            found.append(value)
    forms = (form for raw in found for form in (raw or "", unquote(raw or "")))
    # Masking a credential of one to three characters in text would garble every message
    # ("a" everywhere) and guards nothing; shown_url still masks it.
    return list(dict.fromkeys(form for form in forms if len(form) >= _QUAD))


def shown_url(url: str) -> str:
    """`url` with every credential url_secrets finds replaced by MASK."""
    if not isinstance(url, str):
        return url
    parts = _split(url)
    if parts is None:   # unreadable, so nothing of it is trusted: user info, every value
        url = re.sub(r"//[^/?#]*@", f"//{MASK}@", url)
        return re.sub(r"([?&][^=&#]*=)[^&#]*", rf"\g<1>{MASK}", url)
    netloc = parts.netloc
    user, password = _userinfo(parts)
    if user is not None:
        host = netloc.rpartition("@")[2]
        netloc = (f"{user}:{MASK}@{host}" if password is not None else f"{MASK}@{host}")
    query = "&".join(
        f"{name}={MASK}" if eq and value and _SECRET_PARAM.search(unquote(name))
        else name + eq + value
        for name, eq, value in (pair.partition("=") for pair in parts.query.split("&"))
    ) if parts.query else parts.query
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


# A URL in free text, the scheme in any case; the user info may hold a quote (a password is
# any text), so it is read up to its `@`; the host ends at a space, quote or angle bracket.
_URL_IN_TEXT = re.compile(r"https?://(?:[^\s/?#@<>,]*@)?[^\s\"'<>]+", re.I)


def shown_urls(value: Any) -> Any:
    """`value` (text, or JSON-like lists and objects of it) with every URL in it as
    shown_url shows it (for files written before URLs were stored so)."""
    if isinstance(value, str):
        return _URL_IN_TEXT.sub(lambda m: shown_url(m.group(0)), value) \
            if "://" in value else value
    if isinstance(value, list):
        return [shown_urls(v) for v in value]
    if isinstance(value, dict):
        return {k: shown_urls(v) for k, v in value.items()}
    return value


# Words of a setting's name that say it holds a credential (`hf_token`, `api_key`): whole
# words, so that `max_tokens` and `key_cache_dtype` stay shown; `*_env` names a variable.
_SECRET_WORDS = frozenset({"token", "key", "apikey", "secret", "password", "passwd", "pwd",
                           "passphrase", "auth", "authorization", "bearer", "credential",
                           "credentials", "cred", "creds", "cookie"})


def secret_name(name: object) -> bool:
    if not isinstance(name, str):
        return False
    words = re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower())
    return words[-1:] != ["env"] and any(w in _SECRET_WORDS for w in words)


def _hides(value: Any) -> bool:
    # a flag (`use_auth_token=True`) or a number is no secret; text, a list, an object is
    return value not in (None, "") and not isinstance(value, (bool, int, float))


# One command-line word that sets a named value: `token=hf_...` (an --engine-arg's value)
# or `--engine-arg=token=hf_...`.
_PAIR = re.compile(r"(--[A-Za-z0-9_-]+=)?([A-Za-z_][A-Za-z0-9_.-]*)=(.*)", re.S)


def shown_settings(value: Any) -> Any:
    """`value` (text, or JSON-like lists and objects of it) with every URL masked, and every
    value under a key (or of a `KEY=VALUE` word) that names a credential replaced by MASK."""
    if isinstance(value, str):
        pair = _PAIR.fullmatch(value)
        if pair and secret_name(pair.group(2)) and pair.group(3):
            return f"{pair.group(1) or ''}{pair.group(2)}={MASK}"
        return shown_urls(value)
    if isinstance(value, list):
        return [shown_settings(v) for v in value]
    if isinstance(value, dict):
        return {k: MASK if secret_name(k) and _hides(v) else shown_settings(v)
                for k, v in value.items()}
    return value


# A command line as it may be stored: each word as shown_settings shows it.
shown_argv = shown_settings


def target(url: str) -> tuple[str, dict[str, str]]:
    """What a client is given for `url`: the URL without its query (user info kept: basic
    auth), and the query's parameters, sent with every request (the last of a repeated one)."""
    parts = urlsplit(url)
    query: dict[str, str] = {}
    for pair in parts.query.split("&") if parts.query else ():
        name, _, value = pair.partition("=")
        query[unquote(name.replace("+", " "))] = unquote(value.replace("+", " "))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), query


class Redactor:
    """Masks secrets in text: an API key and the base URLs' credentials. With `answer=True`
    (a model's answer) a secret shorter than FRAGMENT is not masked: replacing a short
    common string such as "token" would corrupt answers."""

    def __init__(self, secret: str | None, *more: str | None):
        kept = [s for s in (secret, *more) if s and s != PLACEHOLDER]
        # Longest first: a secret that contains another is masked whole.
        self.secrets = sorted(dict.fromkeys(kept), key=len, reverse=True)
        self._grams = frozenset(s[i:i + FRAGMENT] for s in self.secrets
                                for i in range(len(s) - FRAGMENT + 1))
        self._quads = frozenset(s[i:i + _QUAD] for s in self.secrets
                                for i in range(len(s) - _QUAD + 1))

    def __repr__(self) -> str:   # never shows the secret
        return f"Redactor({'set' if self.secrets else 'none'})"

    def clean(self, text: str, limit: int | None = None, *, answer: bool = False) -> str:
        """`text` with the secrets masked, then cut to `limit` characters (with " [...]")."""
        if self.secrets and text:
            text = self._mask(text, answer)
        if limit is not None and len(text) > limit:
            text = text[:limit] + " [...]"
        return text

    def clean_opt(self, text: str | None, limit: int | None = None) -> str | None:
        return None if text is None else self.clean(text, limit)

    def _mask(self, text: str, answer: bool = False) -> str:
        for secret in self.secrets:
            if not (answer and len(secret) < FRAGMENT):
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
