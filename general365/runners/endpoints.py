"""Several OpenAI-compatible endpoints serving one model (one per `--base-url`): which one
takes the next request, which are down (on connection failures only: any reply, even an HTTP
error, is the server answering), and probing them (docs/running.md). What a failure costs a
request is the runner's business (`OpenAIRunner._one`)."""

from __future__ import annotations

import asyncio
import itertools
import sys
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable
from urllib.parse import urlparse

from ..errors import OptionError, UserError
from ..redact import shown_url
from ..terminal import shown
from ..validators import is_int
from .provenance import now


@dataclass(frozen=True)
class HealthPolicy:
    down_after: int = 2        # connection failures in a row that take an endpoint out
    probe_first: float = 2.0   # seconds from going down to the first probe
    probe_max: float = 30.0    # the longest wait between two probes


def check_urls(urls: list[str]) -> list[str]:
    """The base URLs (a trailing / dropped); one given twice is refused, as it would double
    that server's concurrency. Two URLs differing only in credentials are one server."""
    out: dict[str, str] = {}   # shown -> as given
    for url in urls:
        parsed = urlparse(url) if isinstance(url, str) else None
        if parsed is None or parsed.scheme not in ("http", "https") or not parsed.netloc:
            given = repr(shown_url(url)) if isinstance(url, str) else repr(url)
            raise OptionError("base_url", f"{given} is not a URL; expected one such as "
                                          f"http://127.0.0.1:8000/v1")
        url = url.rstrip("/")
        if shown_url(url) in out:
            raise OptionError("base_url", f"{shown_url(url)} is given twice; give each server "
                                          "once ({concurrency} is per server)")
        out[shown_url(url)] = url
    return list(out.values())


@dataclass
class Endpoint:
    """One base URL and what it did."""

    url: str       # credentials masked: it names the endpoint everywhere
    limit: int
    target: str    # where requests go
    up: bool = True
    in_flight: int = 0
    served: int = 0               # requests whose response came from here
    failed: int = 0               # requests given up on whose last try was here
    tries: int = 0                # HTTP requests sent here (retries included)
    connection_failures: int = 0
    streak: int = 0               # connection failures in a row
    marked_down: int = 0          # times taken out of rotation
    came_back: int = 0            # times a probe (or a reply) brought it back
    down_since: str | None = None
    last_error: str | None = None
    probe_wait: float = 0.0
    answered_since_back: bool = True   # False from its return until it next replies
    reported: dict[str, Any] = field(default_factory=dict)   # what /v1/models said

    def record(self) -> dict[str, Any]:
        return {"url": self.url, "concurrency": self.limit, "state": "up" if self.up else "down",
                **{name: getattr(self, name) for name in (
                    "served", "failed", "tries", "connection_failures", "marked_down",
                    "came_back", "down_since", "last_error")},
                **self.reported}

    def summary(self) -> str:
        text = f"{self.url}: served {self.served}"
        if self.failed:
            text += f", failed {self.failed}"
        if self.marked_down:
            times = "once" if self.marked_down == 1 else f"{self.marked_down} times"
            back = ("came back" if self.came_back == 1 else
                    f"came back {self.came_back} times" if self.came_back else "never came back")
            text += (f"; went down {times} ({self.connection_failures} connection failures"
                     f", {back})")
            if not self.up:
                text += f"; DOWN since {self.down_since}: {self.last_error}"
        return text

    def mark_down(self, why: str) -> None:
        self.last_error = why
        if self.up:
            self.up = False
            self.marked_down += 1
            self.down_since = now()

    def mark_up(self) -> None:
        self.streak = 0
        if not self.up:
            self.up = True
            self.down_since = None
            self.came_back += 1
            self.answered_since_back = False


class Dispatcher:
    """Hands out endpoint slots inside one event loop, and probes the endpoints that are
    down (`probe(endpoint)` is True when it answered)."""

    def __init__(self, endpoints: list[Endpoint], policy: HealthPolicy,
                 probe: Callable[[Endpoint], Awaitable[bool]]):
        self.endpoints = endpoints
        self.policy = policy
        self._probe = probe
        # Set whenever a slot frees or an endpoint comes back. A waiter picks, and clears
        # and waits only when it found nothing; nothing can run between the two (one
        # event loop), so no wake-up is lost.
        self._changed = asyncio.Event()
        self._turn = itertools.count()
        self._probes: dict[str, asyncio.Task] = {}

    async def acquire(self, avoid: Endpoint | None = None) -> Endpoint:
        """A slot on an endpoint; `avoid` (the one that just failed this request) only
        when no other endpoint is up. Waits while the chosen ones are full."""
        while True:
            ep = self._pick(avoid)
            if ep is not None:
                ep.in_flight += 1
                ep.tries += 1
                return ep
            self._changed.clear()
            await self._changed.wait()

    def release(self, ep: Endpoint) -> None:
        ep.in_flight -= 1
        self._changed.set()

    def _pick(self, avoid: Endpoint | None) -> Endpoint | None:
        up = [e for e in self.endpoints if e.up]
        # All down: try them anyway, as with a single URL (the request's backoff paces it).
        pool = [e for e in up if e is not avoid] or up or self.endpoints
        free = [e for e in pool if e.in_flight < e.limit]
        if not free:
            return None
        # The least busy (in proportion to its limit); ties taken in turn.
        turn = next(self._turn)
        n = len(self.endpoints)
        return min(free, key=lambda e: (e.in_flight / e.limit,
                                        (self.endpoints.index(e) - turn) % n))

    def others_up(self, ep: Endpoint) -> bool:
        return any(e.up for e in self.endpoints if e is not ep)

    def answered(self, ep: Endpoint) -> None:
        self._mark_up(ep)
        ep.answered_since_back = True

    def connection_failed(self, ep: Endpoint, why: str) -> None:
        ep.connection_failures += 1
        ep.streak += 1
        ep.last_error = why
        if ep.up and ep.streak >= self.policy.down_after:
            ep.mark_down(why)
            self._start_probe(ep)

    async def start(self) -> None:
        for ep in self.endpoints:
            if not ep.up:
                self._start_probe(ep)

    def _mark_up(self, ep: Endpoint) -> None:
        if not ep.up:
            self._changed.set()
        ep.mark_up()

    def _start_probe(self, ep: Endpoint) -> None:
        task = self._probes.get(ep.url)
        if task is not None and not task.done():
            return
        # One that answers probes but fails every request (a proxy whose backend is gone)
        # is probed less and less often; one that served again starts afresh.
        ep.probe_wait = (self.policy.probe_first if ep.answered_since_back or not ep.probe_wait
                         else min(ep.probe_wait * 2, self.policy.probe_max))
        self._probes[ep.url] = asyncio.ensure_future(self._probe_until_up(ep))

    async def _probe_until_up(self, ep: Endpoint) -> None:
        while not ep.up:
            await asyncio.sleep(ep.probe_wait)
            if ep.up:      # a request sent while every endpoint was down got through
                return
            if await self._probe(ep):
                if not ep.up:
                    self._mark_up(ep)
                return
            ep.probe_wait = min(ep.probe_wait * 2, self.policy.probe_max)

    async def close(self) -> None:
        tasks = [t for t in self._probes.values() if not t.done()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def survey(endpoints: list[Endpoint], listings: list[dict[str, Any] | str], model: str,
           clean: Callable[[str], str]) -> int | None:
    """The context length the servers report, from what each /v1/models said (its models
    by id, {} when it lists none, or why it could not be reached). Each must serve `model`
    and agree on max_model_len; one not reached starts out of rotation, unless none is."""
    unreachable = [why for why in listings if isinstance(why, str)]
    if len(unreachable) == len(listings):
        if len(listings) == 1:
            raise UserError(unreachable[0])
        raise OptionError("base_url", f": none of the {len(listings)} servers can be "
                                      f"reached: " + "; ".join(unreachable))
    lengths: dict[str, int] = {}
    for ep, models in zip(endpoints, listings):
        if isinstance(models, str):
            ep.connection_failures += 1
            ep.mark_down(models)
            print(f"general365: note: {shown(models)}; it is left out and probed until it "
                  "answers", file=sys.stderr)
            continue
        ep.mark_up()   # it answered (again)
        if models and model not in models:
            served = clean(", ".join(sorted(models)[:10]))
            raise UserError(f"{ep.url} does not serve model {model!r}; it serves: {served}")
        entry = models.get(model)
        extra = (entry.model_extra or {}) if entry else {}
        reported = extra.get("max_model_len")
        if is_int(reported) and reported > 0:
            lengths[ep.url] = ep.reported["max_model_len"] = reported
        if isinstance(extra.get("root"), str):   # vLLM: the weights it loaded
            ep.reported["root"] = clean(extra["root"])
    if len(set(lengths.values())) > 1:
        each = ", ".join(f"{url} {n}" for url, n in lengths.items())
        raise OptionError("base_url", f": the servers disagree on max_model_len ({each}); "
                                      f"they should be replicas of one model with the same "
                                      f"settings")
    return next(iter(lengths.values()), None)
