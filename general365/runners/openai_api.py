"""A runner for any OpenAI-compatible chat endpoint: OpenAI, `vllm serve`, SGLang, llama.cpp.

docs/running.md says what it guarantees: retries (RetryPolicy; the SDK's own are off),
several `--base-url` replicas (endpoints.py), `request_timeout` bounding each whole request,
max_tokens derived from the server's context and /tokenize (prompt_tokens.py). A
connection failure while another endpoint is up costs a request no try, once per endpoint,
so a request still ends within max_attempts + endpoints tries. The API key is never
written: every piece of server text kept is masked first, and cut only after.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import sys
from dataclasses import dataclass
from typing import Any, Awaitable, Iterable, Iterator, TypeVar

from ..errors import MissingExtra, OptionError, UserError
from ..interrupts import run_until
from ..redact import Redactor, shown_url, target, url_secrets
from ..retry import backoff_delay, retry_after_seconds
from ..terminal import shown
from ..validators import option_int
from .base import Generation, GenerationRequest
from .chat_reply import BadReply, post_chat, read_completion
from .endpoints import Dispatcher, Endpoint, HealthPolicy, check_urls, summary_lines, survey
from .limits import plan_budgets
from .prompt_tokens import count_prompts, error_message
from .store import model_key


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6          # tries per request, the first included
    base_delay: float = 1.0        # seconds before the first retry (then doubled)
    max_delay: float = 60.0
    max_retry_after: float = 300.0  # a server asking for more than this is not waited on longer

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        return backoff_delay(attempt, base=self.base_delay, cap=self.max_delay,
                             retry_after=retry_after, retry_after_cap=self.max_retry_after,
                             rng=rng)


class _RequestTimeout(Exception):
    """The whole request outlived request_timeout (however steadily bytes were arriving)."""


QUICK_TIMEOUT = 30.0   # seconds, at most, for /v1/models and each /tokenize
# Server text kept in an error message (the summary, run.json), after the key is masked.
MESSAGE_CHARS = 200
_T = TypeVar("_T")


class OpenAIRunner:
    backend = "openai"

    def __init__(self, model: str, *, base_url: str | list[str] | None = None,
                 api_key_env: str = "OPENAI_API_KEY", concurrency: int = 16,
                 request_timeout: float = 600.0, retry: RetryPolicy | None = None,
                 chat_template_kwargs: dict[str, Any] | None = None,
                 revision: str | None = None, max_model_len: int | None = None,
                 extra_body: dict[str, Any] | None = None, jitter_seed: int | None = None,
                 health: HealthPolicy | None = None):
        try:
            import openai  # noqa: F401
        except ImportError:
            raise MissingExtra("openai", "openai") from None
        option_int("concurrency", concurrency, text=f"must be at least 1 (got {concurrency!r})")
        if not (request_timeout > 0 and math.isfinite(request_timeout)):
            # 0 or less would make every request "time out" and read as an unreachable server
            raise OptionError("request_timeout", f"must be a positive number of seconds "
                                                 f"(got {request_timeout:g})")
        urls = [base_url] if isinstance(base_url, str) else list(base_url or [])
        targets = check_urls(
            urls or [os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"])
        self.model = model
        self.revision = revision
        self.model_id = model_key(model, revision)
        self.api_key_env = api_key_env
        self.concurrency = concurrency      # per endpoint
        self.request_timeout = request_timeout
        self.retry = retry or RetryPolicy()
        self.health = health or HealthPolicy()
        # Shown, never as given: a URL's credentials go to the server and nowhere else.
        self.endpoints = [Endpoint(shown_url(url), concurrency, target=url) for url in targets]
        self.chat_template_kwargs = chat_template_kwargs
        self.extra_body = dict(extra_body or {})
        self.max_model_len = max_model_len
        self._rng = random.Random(jitter_seed)
        self._api_key = self._read_key()
        self._redactor = Redactor(self._api_key, *(secret for url in targets
                                                   for secret in url_secrets(url)))
        self.tokenize_note: str | None = None   # why /tokenize is not used, when it is not
        self._prompt_tokens: dict[str, int] = {}    # prompt hash -> tokens, from /tokenize
        self._prepared = False
        self._can_tokenize: bool | None = None
        self.served_model: str | None = None
        self.stats = {"requests": 0, "retries": 0, "rerouted": 0, "failed": 0}

    def _read_key(self) -> str:
        key = os.environ.get(self.api_key_env)
        if key:
            return key
        if self.api_key_env != "OPENAI_API_KEY":
            raise UserError(f"the environment variable {self.api_key_env} (--api-key-env) "
                            f"is not set; it should hold the API key")
        # A local server (vllm serve, llama.cpp) usually wants no key, but the SDK needs one.
        return "EMPTY"

    def _client(self, ep: Endpoint):
        import openai

        url, query = target(ep.target)
        # The SDK's timeout bounds connecting and each read; _bounded bounds the whole.
        return openai.AsyncOpenAI(base_url=url, api_key=self._api_key, default_query=query,
                                  max_retries=0, timeout=self.request_timeout)

    async def _bounded(self, call: Awaitable[_T], limit: float | None = None) -> _T:
        try:
            return await asyncio.wait_for(call, limit or self.request_timeout)
        except asyncio.TimeoutError:
            raise _RequestTimeout() from None

    @property
    def _quick_timeout(self) -> float:
        # Listing models and counting a prompt take milliseconds: a server stuck on them
        # should not hold the start for the full --request-timeout (600 s by default).
        return min(self.request_timeout, QUICK_TIMEOUT)

    def _clean(self, text: object, limit: int | None = MESSAGE_CHARS) -> str:
        return self._redactor.clean(str(text), limit)

    def prepare(self, requests: list[GenerationRequest]) -> None:
        """Check the servers, learn the context length, count prompt tokens where they can,
        and refuse prompts that cannot fit."""
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._prepare(requests))
        finally:
            loop.close()
        self._prepared = True

    async def _prepare(self, requests: list[GenerationRequest]) -> None:
        clients = {ep.url: self._client(ep) for ep in self.endpoints}
        try:
            # Every listing ends before a refusal is raised: none is left running.
            listings = await asyncio.gather(*(self._list_models(clients[ep.url], ep.url)
                                              for ep in self.endpoints),
                                            return_exceptions=True)
            for outcome in listings:
                if isinstance(outcome, BaseException):
                    raise outcome
            reported = survey(self.endpoints, listings, self.model,
                              lambda text: self._clean(text, 500))
            if self.max_model_len is None:
                self.max_model_len = reported
            counter = next(ep for ep in self.endpoints if ep.up)
            if self.max_model_len is not None:
                counted = await count_prompts(
                    clients[counter.url], target(counter.target)[0], self.model, requests,
                    template_kwargs=lambda r: r.template_kwargs(self.chat_template_kwargs),
                    concurrency=self.concurrency,
                    timeout=self._quick_timeout,
                    clean=lambda text: self._clean(text, 120))
                self._prompt_tokens.update(counted.counts)
                self.tokenize_note = counted.note
                self._can_tokenize = counted.note is None
        finally:
            await _close_all(clients.values())
        if self.tokenize_note:
            # Once per command, not per prompt.
            print(f"general365: note: {shown(self.tokenize_note)}", file=sys.stderr)
        self._check_fits(requests)

    async def _list_models(self, client: Any, url: str) -> dict[str, Any] | str:
        """The models a server lists ({} when it does not list them), or why it cannot be
        reached (a string). A refused key is a UserError at once."""
        import openai

        try:
            listing = await self._bounded(client.models.list(), self._quick_timeout)
            return {m.id: m for m in listing.data if isinstance(m.id, str)}
        except openai.AuthenticationError:
            raise UserError(f"{url}: the API key in ${self.api_key_env} was "
                            f"refused (401)") from None
        except openai.APIConnectionError as exc:
            return f"{url}: cannot reach the server ({self._clean(exc.__cause__ or exc)})"
        except _RequestTimeout:
            return f"{url}: listing its models took longer than {self._quick_timeout:g}s"
        except (openai.APIStatusError, ValueError, AttributeError, TypeError):
            return {}   # some servers do not list models; the requests will tell

    def _check_fits(self, requests: list[GenerationRequest]) -> None:
        counts = [self._prompt_tokens.get(r.prompt_hash()) for r in requests]
        if self.max_model_len is not None and None not in counts:
            # The same rule and wording as the local backends (limits.py).
            plan_budgets(requests, counts, self.max_model_len)
            return
        for req, n in zip(requests, counts):
            if req.sampling.max_tokens is None and n is None:
                who = (f"{self.endpoints[0].url} does not report its"
                       if len(self.endpoints) == 1
                       else "the --base-url servers do not report their")
                raise UserError(
                    f"{who} context length and prompt sizes "
                    f"(vLLM's /v1/models and /tokenize), so max_tokens cannot be derived "
                    f"for id {req.problem_id!r}: pass --max-tokens N")

    def max_tokens_for(self, req: GenerationRequest) -> int:
        if req.sampling.max_tokens is not None:
            return req.sampling.max_tokens
        return self.max_model_len - self._prompt_tokens[req.prompt_hash()]

    def request_kwargs(self, req: GenerationRequest) -> dict[str, Any]:
        s = req.sampling
        kwargs: dict[str, Any] = {
            "model": self.model, "messages": list(req.messages),
            "temperature": s.temperature, "top_p": s.top_p,
            "max_tokens": self.max_tokens_for(req),
        }
        if s.seed is not None:
            kwargs["seed"] = s.seed
        extra = dict(self.extra_body)
        # Backend options carried in the settings (e.g. logit_bias) are API parameters too.
        extra.update({k: v for k, v in s.extra if k != "chat_template_kwargs"})
        if s.top_k is not None and s.top_k != -1:   # -1 = off: the OpenAI API has no top_k
            extra["top_k"] = s.top_k
        template = req.template_kwargs(self.chat_template_kwargs)
        if template:
            extra["chat_template_kwargs"] = template
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    def generate(self, requests: list[GenerationRequest]) -> Iterator[Generation]:
        if not requests:
            return
        if not self._prepared:
            self.prepare(requests)
        loop = asyncio.new_event_loop()
        clients = {ep.url: self._client(ep) for ep in self.endpoints}
        dispatcher = Dispatcher(self.endpoints, self.health,
                                probe=lambda ep: self._probe(clients[ep.url]))
        todo: asyncio.Queue = asyncio.Queue()
        done: asyncio.Queue = asyncio.Queue()
        for r in requests:
            todo.put_nowait(r)

        async def worker() -> None:
            while True:
                try:
                    req = todo.get_nowait()
                except asyncio.QueueEmpty:
                    return
                try:
                    result: Any = await self._one(dispatcher, clients, req)
                except Exception as exc:   # a bug here must surface, not hang the caller
                    result = exc
                await done.put(result)

        # One worker per slot of every endpoint: the dispatcher holds a worker back while
        # its endpoints are full or down, so a dead endpoint's slots stay unused.
        slots = sum(ep.limit for ep in self.endpoints)
        loop.run_until_complete(dispatcher.start())
        workers = [loop.create_task(worker()) for _ in range(min(slots, len(requests)))]
        waiting = None
        try:
            # The loop runs only while we wait for the next result; handing a result to the
            # caller (a store append) takes microseconds, so in-flight requests barely stall.
            for _ in range(len(requests)):
                waiting = loop.create_task(done.get())
                result = run_until(loop, waiting)
                if isinstance(result, Exception):
                    raise result
                yield result
        finally:
            pending = workers + ([waiting] if waiting is not None else [])
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(dispatcher.close())
            loop.run_until_complete(_close_all(clients.values()))
            loop.close()

    async def _probe(self, client: Any) -> bool:
        """Any HTTP reply to GET /v1/models."""
        import openai

        try:
            await self._bounded(client.models.list(), self._quick_timeout)
        except openai.APIStatusError:
            return True
        except Exception:   # refused, reset, timed out, or a reply we cannot read
            return False
        return True

    async def _one(self, dispatcher: Dispatcher, clients: dict[str, Any],
                   req: GenerationRequest) -> Generation:
        import openai

        kwargs = self.request_kwargs(req)
        last = ""
        charged = 0                  # tries counted against max_attempts
        forgiven: set[str] = set()   # endpoints whose connection failure was not counted
        avoid: Endpoint | None = None
        while True:
            ep = await dispatcher.acquire(avoid)
            self.stats["requests"] += 1
            retry_after = None
            free = False
            try:
                completion = await self._bounded(post_chat(clients[ep.url], kwargs))
                generation, served = read_completion(req, completion, kwargs["max_tokens"],
                                                     self._redactor, MESSAGE_CHARS)
                if self.served_model is None:
                    self.served_model = served
            except openai.RateLimitError as exc:
                dispatcher.answered(ep)
                last, retry_after = (f"HTTP 429 ({self._clean(error_message(exc))})",
                                     retry_after_seconds(exc))
            except openai.APIStatusError as exc:
                dispatcher.answered(ep)
                if exc.status_code < 500 and exc.status_code != 408:
                    return self._failed(req, f"HTTP {exc.status_code}: "
                                             f"{self._clean(error_message(exc))}", ep)
                last, retry_after = (f"HTTP {exc.status_code} ({self._clean(error_message(exc))})",
                                     retry_after_seconds(exc))
            except (openai.APITimeoutError, _RequestTimeout):
                last = f"timed out after {self.request_timeout:g}s"
            except openai.APIConnectionError as exc:
                last = f"connection error ({self._clean(exc.__cause__ or exc)})"
                dispatcher.connection_failed(ep, last)
                # A dead endpoint must not use up the request's tries: once per endpoint,
                # while another is up, the request moves on uncounted.
                if ep.url not in forgiven and dispatcher.others_up(ep):
                    forgiven.add(ep.url)
                    free = True
            except (ValueError, BadReply, RecursionError) as exc:   # json's errors
                dispatcher.answered(ep)
                why = "JSON nested too deeply" if isinstance(exc, RecursionError) else exc
                last = f"unreadable reply ({self._clean(why)})"
            else:
                dispatcher.answered(ep)
                ep.served += 1
                return generation
            finally:
                dispatcher.release(ep)
            if len(self.endpoints) > 1:
                last = f"{last} at {ep.url}"
            avoid = ep   # the next try goes elsewhere while another endpoint is up
            if free:
                self.stats["rerouted"] += 1
                continue
            charged += 1
            if charged >= self.retry.max_attempts:
                return self._failed(req, f"gave up after {charged} tries: {last}", ep)
            self.stats["retries"] += 1
            await asyncio.sleep(self.retry.delay(charged - 1, retry_after, self._rng))

    def _failed(self, req: GenerationRequest, why: str, ep: Endpoint) -> Generation:
        self.stats["failed"] += 1
        ep.failed += 1
        return Generation(problem_id=req.problem_id, run=req.run, response="",
                          finish_reason=None, output_tokens=None, error=why,
                          sampling=req.sampling.to_dict())

    def close(self) -> None:
        pass

    def provenance(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "base_url": [ep.url for ep in self.endpoints] if len(self.endpoints) > 1
            else self.endpoints[0].url,
            "model": self.model, "served_model": self.served_model, "revision": self.revision,
            "api_key_env": self.api_key_env,   # the variable's name, never its value
            "concurrency": self.concurrency,   # per endpoint
            "request_timeout": self.request_timeout, "max_model_len": self.max_model_len,
            "retry": {"max_attempts": self.retry.max_attempts,
                      "base_delay": self.retry.base_delay, "max_delay": self.retry.max_delay},
            "health": {"down_after": self.health.down_after,
                       "probe_first": self.health.probe_first,
                       "probe_max": self.health.probe_max},
            "endpoints": [ep.record() for ep in self.endpoints],
            "chat_template_kwargs": self.chat_template_kwargs, "stats": dict(self.stats),
            "tokenize": self.tokenize_note or ("used" if self._can_tokenize else "not used"),
        }

    def summary_lines(self) -> list[str]:
        return summary_lines(self.endpoints, self.concurrency)


async def _close_all(clients: Iterable[Any]) -> None:
    await asyncio.gather(*(c.close() for c in clients))
