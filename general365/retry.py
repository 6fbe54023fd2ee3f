"""The retry arithmetic shared by every OpenAI-compatible client here (the judge, the API
runner): how long a server asked us to wait, and exponential backoff with jitter."""

from __future__ import annotations

import contextlib
import email.utils
import random
import time


def retry_after_seconds(exc: Exception) -> float | None:
    """The wait a failed HTTP response asked for (`retry-after-ms`, or `Retry-After` as
    seconds or as an HTTP date), or None when it asked for none."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    ms, value = headers.get("retry-after-ms"), headers.get("retry-after")
    with contextlib.suppress(ValueError):
        if ms:
            return float(ms) / 1000.0
    if not value:
        return None
    with contextlib.suppress(ValueError):
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - time.time()


def backoff_delay(attempt: int, *, base: float, cap: float, retry_after: float | None = None,
                  retry_after_cap: float = 300.0, rng: random.Random | None = None) -> float:
    """Seconds to wait after failed try `attempt` (0-based): a server's Retry-After (capped),
    else "equal jitter", at least half the exponential step, so that clients rate-limited at
    once spread out."""
    if retry_after is not None and retry_after == retry_after:   # a server's `nan`: none
        return min(max(retry_after, 0.0), retry_after_cap)
    step = min(cap, base * (2 ** attempt))
    return step * (0.5 + 0.5 * (rng or random).random())
