"""Masking an API key in server text: the whole key, any 8-character piece of it, before
any cut; never the placeholder of a keyless local server."""

from __future__ import annotations

import random
import string

import pytest

from general365.redact import FRAGMENT, MASK, Redactor

KEY = "sk-Q7ZL9P4M2K8W5R3T6V1N0J"


def leftover(text: str, secret: str = KEY, size: int = FRAGMENT) -> list[str]:
    return [secret[i:i + size] for i in range(len(secret) - size + 1)
            if secret[i:i + size] in text]


@pytest.mark.parametrize("limit", [40, 60, 200])
def test_masked_before_cut_at_every_position(limit):
    r = Redactor(KEY)
    for pos in range(limit + 5):
        text = "x" * pos + KEY + " tail"
        out = r.clean(text, limit)
        assert leftover(out, size=4) == [], (pos, out)
        assert len(out) <= limit + len(" [...]")
        # cutting first, as the old code did, leaves most of the key behind
        cut_first = text[:limit].replace(KEY, MASK)
        if pos + FRAGMENT <= limit < pos + len(KEY):
            assert leftover(cut_first)


def test_pieces_of_the_key_are_masked_and_merged():
    r = Redactor(KEY)
    text = f"a {KEY[:12]}... b {KEY[-9:]} c {KEY[5:13]} d {KEY[3:10]} e"
    out = r.clean(text)
    assert out == f"a {MASK}... b {MASK} c {MASK} d {KEY[3:10]} e"   # 7 chars: too short
    assert r.clean(KEY + KEY[:10] + "z") == MASK + MASK + "z"


def test_matches_a_brute_force_search_on_random_text():
    rng = random.Random(7)
    r = Redactor(KEY)
    alphabet = KEY + string.ascii_lowercase + " "
    for _ in range(300):
        parts = []
        for _ in range(rng.randrange(1, 6)):
            if rng.random() < 0.5:
                a = rng.randrange(len(KEY))
                parts.append(KEY[a:a + rng.randrange(1, 20)])
            else:
                parts.append("".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12))))
        text = "".join(parts)
        out = r.clean(text)
        assert leftover(out) == [], (text, out)
        # nothing but key pieces was removed: the text outside every mask is unchanged
        kept = out.split(MASK)
        pos = 0
        for piece in kept:
            found = text.find(piece, pos)
            assert found >= 0, (text, out)
            pos = found + len(piece)


def test_the_placeholder_and_short_keys():
    assert Redactor("EMPTY").clean("EMPTY answer") == "EMPTY answer"
    assert Redactor(None).clean("anything", 3) == "any [...]"
    short = Redactor("token")
    assert short.clean("bad token token2") == f"bad {MASK} {MASK}2"          # in errors
    assert short.clean("a token count", answer=True) == "a token count"     # not in answers
    assert Redactor(KEY).clean(f"answer {KEY}", answer=True) == f"answer {MASK}"
    assert "set" in repr(Redactor(KEY)) and KEY not in repr(Redactor(KEY))


@pytest.mark.parametrize("url, shown, secrets", [
    ("http://alice:s3cret-pass@h:8000/v1", "http://alice:***@h:8000/v1", ["s3cret-pass"]),
    ("http://tok-12345@h/v1", "http://***@h/v1", ["tok-12345"]),          # a token as the user
    ("http://u:p@ss-word@h/v1", "http://u:***@h/v1", ["p@ss-word"]),      # '@' in the password
    ("http://h/v1?api_key=k%2Fey1&api-version=2024&X-Amz-Signature=abcd",
     "http://h/v1?api_key=***&api-version=2024&X-Amz-Signature=***", ["k%2Fey1", "k/ey1", "abcd"]),
    ("http://h/v1?token=a", "http://h/v1?token=***", []),   # too short to mask in text
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1", []),
])
def test_url_credentials_are_shown_masked(url, shown, secrets):
    from general365.redact import shown_url, url_secrets

    assert shown_url(url) == shown and url_secrets(url) == secrets
    assert shown_url(shown) == shown   # masking twice changes nothing
