"""A runner for any OpenAI-compatible chat endpoint: OpenAI, `vllm serve`, SGLang, llama.cpp.
docs/running.md says what it guarantees: retries (the SDK's own are off), several
`--base-url` replicas (endpoints.py), `request_timeout` bounding each whole request, max_tokens
derived from the server's context and /tokenize. The API key is never written: every piece
of server text kept is masked first, and cut only after."""

from __future__ import annotations

import asyncio
import math
import os
import random
import sys
from dataclasses import asdict, dataclass
from typing import Any, Awaitable, Iterable, Iterator

from ..errors import MissingExtra, OptionError, UserError
from ..interrupts import run_until
from ..markers import split_reasoning
from ..redact import Redactor, shown_url, target, url_secrets
from ..retry import backoff_delay, retry_after_seconds
from ..terminal import shown
from ..validators import is_int, option_int
from .base import Generation, GenerationRequest
from .endpoints import Dispatcher, Endpoint, HealthPolicy, check_urls, survey
from .limits import plan_budgets
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


class BadReply(Exception):
    """A 200 reply that carries no usable completion: retried like a 5xx."""


QUICK_TIMEOUT = 30.0   # seconds, at most, for /v1/models and each /tokenize
# Server text kept in an error message (the summary, run.json), after the key is masked.
MESSAGE_CHARS = 200


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
        self.model, self.revision, self.model_id = model, revision, model_key(model, revision)
        self.api_key_env = api_key_env
        self.concurrency = concurrency      # per endpoint
        self.request_timeout, self.max_model_len = request_timeout, max_model_len
        self.retry, self.health = retry or RetryPolicy(), health or HealthPolicy()
        # Shown, never as given: a URL's credentials go to the server and nowhere else.
        self.endpoints = [Endpoint(shown_url(url), concurrency, target=url) for url in targets]
        self.chat_template_kwargs = chat_template_kwargs
        self.extra_body = dict(extra_body or {})
        self._rng = random.Random(jitter_seed)
        key = os.environ.get(api_key_env)
        if not key and api_key_env != "OPENAI_API_KEY":
            raise UserError(f"the environment variable {api_key_env} (--api-key-env) "
                            f"is not set; it should hold the API key")
        # A local server (vllm serve, llama.cpp) usually wants no key, but the SDK needs one.
        self._api_key = key or "EMPTY"
        self._redactor = Redactor(self._api_key, *(secret for url in targets
                                                   for secret in url_secrets(url)))
        # Listing models and counting a prompt take milliseconds: a server stuck on them
        # should not hold the start for the full --request-timeout (600 s by default).
        self._quick_timeout = min(request_timeout, QUICK_TIMEOUT)
        self._tokenize = "not used"   # for run.json: "used", or why it is not
        self._prompt_tokens: dict[str, int] = {}    # prompt hash -> tokens, from /tokenize
        self._prepared = False
        self.served_model: str | None = None
        self.stats = {"requests": 0, "retries": 0, "rerouted": 0, "failed": 0}

    def _client(self, ep: Endpoint):
        import openai

        url, query = target(ep.target)
        # The SDK's timeout bounds connecting and each read; our wait_for bounds the whole
        # request (however steadily bytes were arriving).
        return openai.AsyncOpenAI(base_url=url, api_key=self._api_key, default_query=query,
                                  max_retries=0, timeout=self.request_timeout)

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
            listings = await _gather_all(*(self._list_models(clients[ep.url], ep.url)
                                          for ep in self.endpoints))
            reported = survey(self.endpoints, listings, self.model,
                              lambda text: self._clean(text, 500))
            if self.max_model_len is None:
                self.max_model_len = reported
            counter = next(ep for ep in self.endpoints if ep.up)
            if self.max_model_len is not None:
                await self._count_prompts(clients[counter.url], target(counter.target)[0],
                                          requests)
        finally:
            await _close_all(clients.values())
        self._check_fits(requests)

    async def _count_prompts(self, client: Any, base_url: str,
                             requests: list[GenerationRequest]) -> None:
        """Each distinct prompt counted through vLLM's /tokenize (`{"count": N}`), so that
        max_tokens can be derived from the context. Any other answer (llama.cpp's
        `{"tokens": []}`, a gateway's chat completion), or a 4xx but 401/403/429, means: do
        not count, said once; 401, 403, 429 and 5xx from a server that counts: UserError."""
        import openai

        url = base_url.rstrip("/")
        root = url[: -len("/v1")] if url.endswith("/v1") else url
        where = f"{shown_url(root)}/tokenize"
        server = client.with_options(base_url=root)
        sem = asyncio.Semaphore(self.concurrency)
        why_not: list[str] = []   # the answers that were not a count: the first is said

        async def count(h: str, req: GenerationRequest) -> None:
            body = {"model": self.model, "messages": list(req.messages),
                    "add_generation_prompt": True, **self._template(req)}
            async with sem:
                if why_not:
                    return
                try:
                    # cast_to=object: the decoded JSON as the server sent it, any shape.
                    reply = await asyncio.wait_for(
                        server.post("/tokenize", body=body, cast_to=object), self._quick_timeout)
                except openai.APIStatusError as exc:
                    if exc.status_code in (401, 403, 429) or exc.status_code >= 500:
                        raise UserError(
                            f"{where}: counting the prompt of id {req.problem_id!r} failed "
                            f"with HTTP {exc.status_code} "
                            f"({self._clean(error_message(exc), 120)})") from None
                    why = f"answered HTTP {exc.status_code}"   # 404, 405, 400, 422, ...
                except (openai.APIConnectionError, asyncio.TimeoutError):
                    why = "could not be reached in time"
                except (ValueError, RecursionError):   # not JSON, or nested too deeply
                    why = "answered with a body that is not JSON"
                else:
                    n = reply.get("count") if isinstance(reply, dict) else None
                    if is_int(n) and n >= 1:
                        self._prompt_tokens[h] = n
                        return
                    why = f"answered {self._clean(_shape(reply), 120)}, not a token count"
            why_not.append(why)

        await _gather_all(*(count(h, r) for h, r in
                            {r.prompt_hash(): r for r in requests}.items()))
        self._tokenize = "used"
        if why_not:   # once per command, not per prompt
            note = (f"{where} {why_not[0]}, so prompt sizes are not counted "
                    f"(max_tokens cannot be derived from them)")
            self._tokenize = note
            print(f"general365: note: {shown(note)}", file=sys.stderr)

    async def _list_models(self, client: Any, url: str) -> dict[str, Any] | str:
        """The models a server lists ({} when it does not list them), or why it cannot be
        reached (a string). A refused key is a UserError at once."""
        import openai

        try:
            listing = await asyncio.wait_for(client.models.list(), self._quick_timeout)
            return {m.id: m for m in listing.data if isinstance(m.id, str)}
        except openai.AuthenticationError:
            raise UserError(f"{url}: the API key in ${self.api_key_env} was "
                            f"refused (401)") from None
        except openai.APIConnectionError as exc:
            return f"{url}: cannot reach the server ({self._clean(exc.__cause__ or exc)})"
        except asyncio.TimeoutError:
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

    def request_body(self, req: GenerationRequest) -> dict[str, Any]:
        """The chat completion's JSON body, posted as it is: the SDK's transformation of typed
        parameters would cost about a third of the client's CPU (benchmarks/api_throughput.py).
        """
        s = req.sampling
        body: dict[str, Any] = {
            "model": self.model, "messages": list(req.messages),
            "temperature": s.temperature, "top_p": s.top_p,
            "max_tokens": self.max_tokens_for(req),
        }
        if s.seed is not None:
            body["seed"] = s.seed
        body.update(self.extra_body)
        # Backend options carried in the settings (e.g. logit_bias) are API parameters too.
        body.update({k: v for k, v in s.extra if k != "chat_template_kwargs"})
        if s.top_k is not None and s.top_k != -1:   # -1 = off: the OpenAI API has no top_k
            body["top_k"] = s.top_k
        return {**body, **self._template(req)}

    def _template(self, req: GenerationRequest) -> dict[str, Any]:
        template = req.template_kwargs(self.chat_template_kwargs)
        return {"chat_template_kwargs": template} if template else {}

    def generate(self, requests: list[GenerationRequest]) -> Iterator[Generation]:
        if not requests:
            return
        if not self._prepared:
            self.prepare(requests)
        loop = asyncio.new_event_loop()
        clients = {ep.url: self._client(ep) for ep in self.endpoints}
        dispatcher = Dispatcher(self.endpoints, self.health,
                                probe=lambda ep: self._probe(clients[ep.url]))
        todo = iter(requests)   # shared by the workers: each request goes to one
        done: asyncio.Queue = asyncio.Queue()

        async def worker() -> None:
            for req in todo:
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
            await asyncio.wait_for(client.models.list(), self._quick_timeout)
        except Exception as exc:   # but an HTTP error: refused, reset, timed out, unreadable
            return isinstance(exc, openai.APIStatusError)
        return True

    async def _one(self, dispatcher: Dispatcher, clients: dict[str, Any],
                   req: GenerationRequest) -> Generation:
        import openai
        from openai.types.chat import ChatCompletion

        body, max_tokens = self.request_body(req), self.max_tokens_for(req)
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
                completion = await asyncio.wait_for(
                    clients[ep.url].post("/chat/completions", body=body, cast_to=ChatCompletion),
                    self.request_timeout)
                generation, served = self._read(req, completion, max_tokens)
                if self.served_model is None:
                    self.served_model = served
            except openai.APIStatusError as exc:   # 429 (RateLimitError) included
                dispatcher.answered(ep)
                message = self._clean(error_message(exc))
                if exc.status_code < 500 and exc.status_code not in (408, 429):
                    return self._failed(req, f"HTTP {exc.status_code}: {message}", ep)
                last = f"HTTP {exc.status_code} ({message})"
                retry_after = retry_after_seconds(exc)
            except (openai.APITimeoutError, asyncio.TimeoutError):
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

    def _read(self, req: GenerationRequest, completion: Any, max_tokens: int
              ) -> tuple[Generation, str | None]:
        """The Generation a reply holds, and the model id the server named, every piece of
        server text masked (a hostile server can echo the key anywhere); answers are never
        cut, and searched for the whole key."""
        clean = self._redactor.clean
        try:
            if not getattr(completion, "choices", None):
                raise BadReply("no choices in the reply")
            choice = completion.choices[0]
            msg = choice.message
            extra = msg.model_extra or {}
            if msg.content is not None and not isinstance(msg.content, str):
                raise BadReply("content is not text")
            content = clean(msg.content or "", answer=True)
            apart = extra.get("reasoning_content") or extra.get("reasoning")
            if apart:
                reasoning = clean(str(apart), answer=True)
            else:
                reasoning, _, _ = split_reasoning(content)
            usage = completion.usage
            details = getattr(usage, "completion_tokens_details", None)
            r_tokens = _count(getattr(details, "reasoning_tokens", None)) if details else None
            served, finish = getattr(completion, "model", None), choice.finish_reason
            generation = Generation(
                problem_id=req.problem_id, run=req.run, response=content,
                finish_reason=clean(finish, MESSAGE_CHARS) if isinstance(finish, str) else None,
                output_tokens=_count(getattr(usage, "completion_tokens", None)),
                reasoning=reasoning, reasoning_tokens=r_tokens,
                prompt_tokens=_count(getattr(usage, "prompt_tokens", None)),
                sampling={**req.sampling.to_dict(), "max_tokens": max_tokens})
        except (AttributeError, TypeError, IndexError, KeyError) as exc:
            # The SDK builds reply objects without validating them: a 200 whose JSON has
            # the wrong shape surfaces here, and is retried like any unreadable reply.
            raise BadReply(f"reply of the wrong shape ({exc})") from None
        return generation, clean(served, MESSAGE_CHARS) if isinstance(served, str) else None

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
            "health": asdict(self.health), "endpoints": [ep.record() for ep in self.endpoints],
            "chat_template_kwargs": self.chat_template_kwargs, "stats": dict(self.stats),
            "tokenize": self._tokenize}

    def summary_lines(self) -> list[str]:
        """The closing summary's lines per endpoint; none for one URL that never went down."""
        if len(self.endpoints) == 1 and not self.endpoints[0].marked_down:
            return []
        return [f"endpoints: {len(self.endpoints)}, at most {self.concurrency} requests in "
                "flight on each", *(f"  {ep.summary()}" for ep in self.endpoints)]


async def _close_all(clients: Iterable[Any]) -> None:
    await asyncio.gather(*(c.close() for c in clients))


async def _gather_all(*calls: Awaitable[Any]) -> list[Any]:
    """The results of `calls`, or the first error raised once every call has finished
    (none is left running unawaited)."""
    outcomes = await asyncio.gather(*calls, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return outcomes


def error_message(exc: Exception) -> str:
    """The server's own message of an error reply, uncut: the caller masks the key in it
    first, then cuts."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
    return str(getattr(exc, "message", exc))


def _shape(value: object) -> str:
    """A few words on what a reply was, for a note (never the reply itself)."""
    if isinstance(value, dict):
        return f"an object with the fields {', '.join(sorted(map(str, value))[:6]) or '(none)'}"
    if isinstance(value, str):
        return "text that is not JSON"   # the SDK hands back a non-JSON body as text
    return f"a JSON {'null' if value is None else type(value).__name__}"


def _count(value: object) -> int | None:
    """A token count as reported, or None: the SDK does not validate replies, and a string
    (perhaps the key) or a 400-digit number must not reach responses.jsonl."""
    return value if is_int(value) and 0 <= value < 2 ** 53 else None
