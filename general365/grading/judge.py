"""The LLM judge client: any JudgeTask (judge_task.py) through any OpenAI-compatible API, one
batch path for every task (`Judge.ask`; `judge_batch` is the verdict). Transport failures are
retried with backoff and unusable replies re-asked, each a bounded number of times; each
answer is cached as it is decided; server text is kept only with the key masked (docs/judge.md)."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Awaitable, Callable, Sequence

from ..errors import MissingExtra, OptionError, UserError
from ..interrupts import run_in_new_loop
from ..redact import Redactor, shown_url, target, url_secrets
from ..retry import backoff_delay, retry_after_seconds
from ..schema import Status
from ..terminal import shown
from ..validators import StrictJSONError, is_int, loads, option_int, option_number
from .judge_cache import CachedAnswer, JudgeCache, cache_key
from .judge_task import (MAX_PREDICTION_CHARS, OFFICIAL_PROMPT, JudgeItem, JudgePrompt,
                         JudgeTask, TaskAnswer, truncate_prediction, verdict_task)

log = logging.getLogger(__name__)

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
STRUCTURED_MODES = ("json_schema", "vllm")
REASK_ECHO_CHARS = 1000   # of an unusable reply echoed in a re-ask (a runaway one is cut)
CUT_REASONS = ("length", "content_filter")   # a reply cut short: never read as an answer
DETAIL_CHARS = 200   # of server text kept in an error detail, after scrubbing


@dataclass
class JudgeResult:
    status: Status            # CORRECT, INCORRECT or JUDGE_FAILED
    model: str                # the judge model as requested
    raw: str | None           # the accepted reply (k > 1: a JSON list of the replies)
    votes: list[bool]
    detail: str | None = None
    served_model: str | None = None   # the model id the server reported in its reply
    cached: bool = False
    attempts: int = 0                 # HTTP requests made for this item (0 when cached)

    def record(self) -> dict[str, Any]:
        """The `judge` object of a graded row."""
        return {"model": self.model, "served_model": self.served_model, "raw": self.raw,
                "votes": list(self.votes)}


@dataclass
class JudgeStats:
    requests: int = 0
    retries: int = 0       # transport failures that were retried
    reasks: int = 0        # unusable replies that were asked again
    cache_hits: int = 0
    failed: int = 0


@dataclass
class _Vote:
    value: Any                # what the task's parser read; None: no usable reply
    raw: str | None
    served_model: str | None
    attempts: int
    detail: str | None = None


class UnreadableReply(ValueError):
    pass


@dataclass(frozen=True)
class Completion:
    served_model: str | None
    text: str | None
    finish_reason: str | None


def read_completion(data: object) -> Completion:
    """The served model id, reply text and finish reason of a chat completion body (decoded
    JSON, or text decoded here strictly: a key twice leaves the reply ambiguous). Any other
    shape is refused (UnreadableReply)."""
    if isinstance(data, (str, bytes)):
        try:
            data = loads(data.decode("utf-8") if isinstance(data, bytes) else data)
        except UnicodeDecodeError:
            raise UnreadableReply("not UTF-8") from None
        except StrictJSONError as exc:
            raise UnreadableReply(str(exc)) from None
    try:
        choice = data["choices"][0]               # type: ignore[index]
        text = choice["message"].get("content")
        finish = choice.get("finish_reason")
        served = data.get("model")                # type: ignore[union-attr]
    except (AttributeError, IndexError, KeyError, TypeError):
        raise UnreadableReply("not a chat completion") from None
    if text is not None and not isinstance(text, str):
        raise UnreadableReply("content is not text")
    return Completion(served if isinstance(served, str) else None, text,
                      finish if isinstance(finish, str) else None)


def run_blocking(make: Callable[[], Awaitable[Any]], *, name: str) -> Any:
    """Run the coroutine `make()` from synchronous code, where Ctrl-C wakes the loop at once
    and cancels the batch (interrupts.run_in_new_loop; the caller sees KeyboardInterrupt).
    Inside a running event loop, on a helper thread with its own loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run_in_new_loop(make)
    with ThreadPoolExecutor(1, thread_name_prefix=name) as pool:   # its error re-raised here
        return pool.submit(lambda: asyncio.run(make())).result()


async def gather_all(aws: Sequence[Awaitable[Any]]) -> list[Any]:
    """`asyncio.gather(*aws)`, except that the first failure cancels the others and waits
    for them (a bare gather leaves them to fail on a closed client, each with a traceback)."""
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def _check_prompt(prompt: Any) -> None:
    if not isinstance(prompt, JudgePrompt):
        raise OptionError("judge_prompt", f"must be a JudgePrompt (got {type(prompt).__name__})")


class Judge:
    """An LLM judge. votes: k odd; k > 1 asks k times at `vote_temperature` and combines
    the votes by the task's rule. cache: True (the default path), False, a path or a
    JudgeCache. structured: None, "json_schema" (OpenAI) or "vllm" (a choice among the
    task's replies). prompt: the verdict's prompt (`using(prompt)` gives another)."""

    def __init__(self, model: str, *, base_url: str | None = None,
                 api_key_env: str = DEFAULT_API_KEY_ENV, concurrency: int = 16,
                 timeout: float = 60.0, max_retries: int = 4, max_reasks: int = 2,
                 votes: int = 1, temperature: float = 0.0, vote_temperature: float = 0.7,
                 max_tokens: int | None = None,
                 max_prediction_chars: int = MAX_PREDICTION_CHARS,
                 structured: str | None = None,
                 cache: JudgeCache | str | os.PathLike | bool = True,
                 backoff_base: float = 0.5, backoff_max: float = 30.0,
                 retry_after_max: float = 120.0, extra_body: dict | None = None,
                 prompt: JudgePrompt = OFFICIAL_PROMPT):
        from urllib.parse import urlparse

        # every option checked here, for the API and the command line alike
        if not isinstance(model, str) or not model.strip():
            raise OptionError("judge_model", "is required: the judge's model name (e.g. gpt-4.1)")
        if not is_int(votes) or votes < 1 or votes % 2 == 0:
            raise OptionError("judge_votes", f"must be an odd number >= 1 (got {votes!r}); an even "
                                             "number of votes can tie")
        option_int("judge_concurrency", concurrency,
                   text=f"must be at least 1 (got {concurrency!r})")
        option_number("judge_timeout", timeout, low=0, low_open=True,
                      text=f"must be a positive number of seconds (got {timeout!r})")
        if max_tokens is not None:
            option_int("judge_max_tokens", max_tokens,
                       text=f"must be at least 1 (got {max_tokens!r})")
        if structured not in (None, *STRUCTURED_MODES):
            raise OptionError("judge_structured", f"must be one of {', '.join(STRUCTURED_MODES)} "
                                                  f"or none (got {structured!r})")
        if base_url is not None:
            url = urlparse(base_url) if isinstance(base_url, str) else None
            if url is None or url.scheme not in ("http", "https") or not url.netloc:
                given = shown_url(base_url) if isinstance(base_url, str) else base_url
                raise OptionError("judge_base_url", f"{given!r} is not a URL; expected e.g. "
                                                    "http://127.0.0.1:8000/v1")
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_reasks = max_reasks
        self.votes = votes
        self.temperature = temperature
        self.vote_temperature = vote_temperature
        self.max_tokens = max_tokens
        self.max_prediction_chars = max_prediction_chars
        truncate_prediction("", max_prediction_chars)  # validates the limit now, not mid-batch
        self.structured = structured
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self.extra_body = dict(extra_body or {})
        _check_prompt(prompt)
        self.prompt = prompt
        self.stats = JudgeStats()
        self._cache_spec = cache
        self._cache: JudgeCache | None = cache if isinstance(cache, JudgeCache) else None
        self._base: Judge | None = None   # set on a judge made by using(): the one it copies
        self.cache   # opened now: a file that cannot be the cache is refused before any work

    def __repr__(self) -> str:  # the key is not an attribute, so it cannot leak from here
        return (f"Judge(model={self.model!r}, base_url={shown_url(self.base_url)!r}, "
                f"votes={self.votes}, "
                f"concurrency={self.concurrency}, prompt={self.prompt.version})")

    def using(self, prompt: JudgePrompt) -> "Judge":
        """This judge with another verdict prompt: the same settings, counters and cache
        (closing either closes it; the next batch of either reopens it)."""
        if prompt is self.prompt:
            return self
        _check_prompt(prompt)
        other = copy.copy(self)
        other.prompt = prompt
        other._base = self._base or self   # its cache is this judge's (see `cache`, `close`)
        return other

    @property
    def cache(self) -> JudgeCache | None:
        if self._base is not None:
            return self._base.cache
        if self._cache is None and self._cache_spec is not False:
            path = None if self._cache_spec is True else Path(self._cache_spec)
            self._cache = JudgeCache(path)
        return self._cache

    def close(self) -> None:
        """Commit and close the cache; a later batch reopens it."""
        if self._base is not None:
            self._base.close()
            return
        if self._cache is not None:
            self._cache.close()
            if isinstance(self._cache_spec, JudgeCache):
                self._cache_spec = self._cache_spec.path
            self._cache = None

    def judge_batch(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        """The verdicts of `items` (this judge's prompt), in order (see run_blocking)."""
        return run_blocking(lambda: self.ajudge_batch(items), name="judge-batch")

    async def ajudge_batch(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        answers = await self.aask(verdict_task(self.prompt, self.max_prediction_chars), items)
        return [JudgeResult(Status.JUDGE_FAILED if a.failed else
                            Status.CORRECT if a.value else Status.INCORRECT,
                            a.model, a.raw, a.votes, a.detail, a.served_model, a.cached,
                            a.attempts) for a in answers]

    def ask(self, task: JudgeTask, items: Sequence[Any], *,
            on_done: Callable[[], None] | None = None) -> list[TaskAnswer]:
        """Ask `task` of each item, as judge_batch asks the verdict."""
        return run_blocking(lambda: self.aask(task, items, on_done=on_done), name="judge-ask")

    async def aask(self, task: JudgeTask, items: Sequence[Any], *,
                   on_done: Callable[[], None] | None = None) -> list[TaskAnswer]:
        """The answers to `items`, in order; identical items asked once, cached ones served
        without a request. `on_done()` is called as each distinct item is decided."""
        temp = self.temperature if self.votes == 1 else self.vote_temperature
        settings = {"votes": self.votes, "temperature": temp}
        verdict = task.verdict_key is not None
        keyed = []
        for item in items:
            messages = task.messages(item)
            parts = task.verdict_key(settings, item) if verdict else \
                [task.name, task.version, json.dumps(settings), messages]
            keyed.append((cache_key(self.model, *parts), messages))
        unique = dict(keyed)   # a key's messages are the same every time it comes
        done: dict[str, TaskAnswer] = {}
        cache = self.cache
        todo = []
        for key, messages in unique.items():
            hit = cache.get(key, verdict=verdict) if cache is not None else None
            if hit is None:
                todo.append((key, messages))
                continue
            self.stats.cache_hits += 1
            done[key] = TaskAnswer(hit.value, hit.model, list(hit.votes), hit.raw,
                                   hit.served_model, cached=True)
            if on_done is not None:
                on_done()
        if todo:
            client, redactor = self._client()
            sem = asyncio.Semaphore(self.concurrency)

            async def one(key: str, messages: list[dict[str, str]]) -> TaskAnswer:
                answer = await self._ask_one(task, client, redactor, sem, key, messages, temp)
                if on_done is not None:
                    on_done()
                return answer

            try:
                answers = await gather_all([one(key, m) for key, m in todo])
            finally:
                await client.close()
            done.update(zip((key for key, _ in todo), answers))
        # a copy per item: two items asked once share no mutable answer
        return [replace(done[key], votes=list(done[key].votes)) for key, _ in keyed]

    async def _ask_one(self, task: JudgeTask, client, redactor: Redactor,
                       sem: asyncio.Semaphore, key: str, messages: list[dict[str, str]],
                       temp: float) -> TaskAnswer:
        k = self.votes
        votes = await gather_all([self._vote(client, redactor, sem, messages, temp, task)
                                  for _ in range(k)])
        attempts = sum(v.attempts for v in votes)
        served = next((v.served_model for v in votes if v.served_model), None)
        cast = [v.value for v in votes if v.value is not None]
        value = task.combine(cast, k)
        if value is not None:
            raw = votes[0].raw if k == 1 else json.dumps([v.raw for v in votes])
            failed = [v.detail for v in votes if v.value is None]
            detail = f"{len(failed)} of {k} votes failed: {failed[0]}" if failed else None
            if self.cache is not None:   # committed now: a run killed mid-batch keeps it
                self.cache.put(key, CachedAnswer(value, cast, self.model, served, raw),
                               task.version, None if task.verdict_key else task.name)
            return TaskAnswer(value, self.model, cast, raw, served, detail, False, attempts)
        self.stats.failed += 1
        reasons = "; ".join(sorted({v.detail for v in votes if v.detail}))
        if not reasons and cast:
            reasons = f"votes undecided ({task.combine_rule}): {cast}"
        return TaskAnswer(None, self.model, cast, votes[-1].raw, served,
                          reasons or "votes undecided", False, attempts)

    def _client(self) -> tuple[Any, Redactor]:
        try:
            import openai
        except ImportError:
            raise MissingExtra("openai", "judge") from None
        key = os.environ.get(self.api_key_env)
        if not key:
            if self.base_url is None:
                raise UserError(f"judge: set {self.api_key_env} (the API key of the judge "
                                "endpoint), or give --judge-base-url for a local server")
            key = "EMPTY"   # local servers (vllm serve) accept any key
        # max_retries=0: the retry policy is ours. A URL's credentials are masked in all
        # the server says, as the key is (redact.py).
        url, query = target(self.base_url) if self.base_url is not None else (None, {})
        client = openai.AsyncOpenAI(base_url=url, api_key=key, default_query=query,
                                    timeout=self.timeout, max_retries=0)
        return client, Redactor(key, *url_secrets(self.base_url or ""))

    def _request_body(self, temperature: float, task: JudgeTask) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "temperature": temperature}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.structured == "json_schema":
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": task.reply.name, "schema": task.reply.schema, "strict": True}}
        elif self.structured == "vllm":
            # a choice: a schema still lets a weak model emit whitespace until max_tokens
            body["structured_outputs"] = {"choice": list(task.reply.choices)}
        body.update(self.extra_body)
        return body

    async def _vote(self, client, redactor: Redactor, sem: asyncio.Semaphore,
                    messages: list[dict], temperature: float, task: JudgeTask) -> _Vote:
        import openai

        body = self._request_body(temperature, task)
        msgs = list(messages)
        attempts = failures = reasks = 0
        raw = served = None
        while True:
            attempts += 1
            self.stats.requests += 1
            try:
                async with sem:
                    # The raw body (cast_to=bytes), read strictly by read_completion and
                    # without `create`'s model building (docs/judge.md). wait_for bounds the
                    # whole request: the SDK's timeout restarts with every byte read.
                    completion = await asyncio.wait_for(
                        client.post("/chat/completions", body={**body, "messages": msgs},
                                    cast_to=bytes),
                        self.timeout)
                reply = read_completion(completion)
                served = redactor.clean_opt(reply.served_model, DETAIL_CHARS)
                raw = redactor.clean_opt(reply.text)
            except (openai.APIError, asyncio.TimeoutError) as exc:
                status = getattr(exc, "status_code", None)
                what = self._describe(exc, redactor)
                if status in (401, 403, 404):
                    # every other item would fail the same way: one clear line
                    where = shown_url(self.base_url or "api.openai.com")
                    raise UserError(f"judge endpoint {where}: "
                                    f"{what} (model {self.model!r}, key from "
                                    f"${self.api_key_env})") from None
                transient = not isinstance(exc, openai.APIStatusError) or status == 429 \
                    or status >= 500
                if not transient:
                    return _Vote(None, raw, served, attempts, f"not retried: {what}")
                failures += 1
                if failures > self.max_retries:
                    return _Vote(None, raw, served, attempts,
                                 f"gave up after {failures} failed requests: {what}")
                self.stats.retries += 1
                delay = self._backoff(failures, exc)
                log.info("judge: %s; retry %d in %.2fs", shown(what), failures, delay)
                await asyncio.sleep(delay)
                continue
            # the SDK could not decode the body as JSON (RecursionError: nested too deeply)
            except (ValueError, RecursionError) as exc:
                problem = ("unreadable response body "
                           f"({exc if isinstance(exc, UnreadableReply) else 'not JSON'})")
            else:
                parsed = task.reply.parse(reply.text)
                if parsed.ok and reply.finish_reason in CUT_REASONS:
                    # the cut can end inside a quoted object that reads as a verdict
                    problem = f"cut short (finish_reason {reply.finish_reason})"
                elif parsed.ok:
                    return _Vote(parsed.value, raw, served, attempts)
                else:
                    problem = parsed.problem or "unusable reply"
                if raw:
                    # a corrective follow-up turn; the judged item is unchanged
                    msgs = list(messages) + [
                        {"role": "assistant", "content": redactor.clean(raw.strip(),
                                                                        REASK_ECHO_CHARS)},
                        {"role": "user", "content": task.reply.reask.format(problem=problem)}]
            reasks += 1
            if reasks > self.max_reasks:
                return _Vote(None, raw, served, attempts,
                             f"no usable reply after {reasks} asks: {problem}")
            self.stats.reasks += 1
            log.info("judge: reply unusable (%s); re-asking", shown(problem))

    def _backoff(self, failures: int, exc: Exception) -> float:
        return backoff_delay(failures - 1, base=self.backoff_base, cap=self.backoff_max,
                             retry_after=retry_after_seconds(exc),
                             retry_after_cap=self.retry_after_max)

    def _describe(self, exc: BaseException, redactor: Redactor) -> str:
        """A short description of a failure: the key masked first, then the text cut."""
        import openai

        if isinstance(exc, (asyncio.TimeoutError, openai.APITimeoutError)):
            return f"timed out after {self.timeout:g}s"
        if isinstance(exc, openai.APIStatusError):
            return f"HTTP {exc.status_code}: {redactor.clean(str(exc), DETAIL_CHARS)}"
        cause = f" ({exc.__cause__})" if exc.__cause__ is not None else ""
        return f"{type(exc).__name__}: {redactor.clean(str(exc) + cause, DETAIL_CHARS)}"
