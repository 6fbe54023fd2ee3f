"""The retry arithmetic shared by the judge and the API runner."""

import random
import time

from general365.retry import backoff_delay, retry_after_seconds


class _Response:
    def __init__(self, headers):
        self.headers = headers


class _HTTPError(Exception):
    def __init__(self, headers):
        self.response = _Response(headers)


def test_retry_after_forms():
    assert retry_after_seconds(_HTTPError({"retry-after": "3"})) == 3.0
    assert retry_after_seconds(_HTTPError({"retry-after-ms": "250"})) == 0.25
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 < retry_after_seconds(_HTTPError({"retry-after": date})) <= 31
    assert retry_after_seconds(_HTTPError({"retry-after": "soon"})) is None
    assert retry_after_seconds(_HTTPError({})) is None
    assert retry_after_seconds(ValueError("no response at all")) is None


def test_backoff_is_exponential_jittered_bounded_and_honours_the_server():
    rng = random.Random(0)
    for attempt in range(10):
        d = backoff_delay(attempt, base=0.5, cap=8.0, rng=rng)
        step = min(8.0, 0.5 * 2 ** attempt)
        assert step / 2 <= d <= step
    assert backoff_delay(3, base=0.5, cap=8.0, retry_after=12.5, retry_after_cap=30) == 12.5
    assert backoff_delay(3, base=0.5, cap=8.0, retry_after=1e6, retry_after_cap=30) == 30
    assert backoff_delay(3, base=0.5, cap=8.0, retry_after=-5) == 0.0
    # jitter actually spreads: not every client waits the same
    assert len({round(backoff_delay(4, base=1, cap=60, rng=rng), 6) for _ in range(20)}) > 10
