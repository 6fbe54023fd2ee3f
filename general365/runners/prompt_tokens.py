"""Counting prompt tokens through vLLM's /tokenize (`{"count": N}`), so that the API runner
can derive max_tokens from the server's context length. Any other answer, and any 4xx but
401/403/429, means: do not count (llama.cpp's /tokenize answers `{"tokens": []}`, a gateway
may answer with a chat completion), with the reason in `note`; 401, 403, 429 and 5xx are
real trouble with a server that does count: one UserError.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import UserError
from ..redact import shown_url
from ..validators import is_int
from .base import GenerationRequest


@dataclass
class PromptCounts:
    counts: dict[str, int] = field(default_factory=dict)   # prompt hash -> tokens
    note: str | None = None     # why /tokenize is not used; None when it is


async def count_prompts(client: Any, base_url: str, model: str,
                        requests: list[GenerationRequest], *,
                        template_kwargs: Callable[[GenerationRequest], dict[str, Any]],
                        concurrency: int, timeout: float,
                        clean: Callable[[object], str]) -> PromptCounts:
    """Count each distinct prompt, at most `concurrency` at once, each within `timeout`
    seconds; `clean` masks the API key in server text."""
    import openai

    url = base_url.rstrip("/")
    root = url[: -len("/v1")] if url.endswith("/v1") else url
    where = f"{shown_url(root)}/tokenize"
    server = client.with_options(base_url=root)
    unique = {r.prompt_hash(): r for r in requests}
    sem = asyncio.Semaphore(concurrency)
    out = PromptCounts()

    def give_up(why: str) -> None:
        if out.note is None:
            out.note = (f"{where} {why}, so prompt sizes are not counted "
                        f"(max_tokens cannot be derived from them)")

    async def count(h: str, req: GenerationRequest) -> None:
        body: dict[str, Any] = {"model": model, "messages": list(req.messages),
                                "add_generation_prompt": True}
        template = template_kwargs(req)
        if template:
            body["chat_template_kwargs"] = template
        async with sem:
            if out.note is not None:
                return
            try:
                # cast_to=object: the decoded JSON as the server sent it, any shape.
                reply = await asyncio.wait_for(
                    server.post("/tokenize", body=body, cast_to=object), timeout)
            except openai.APIStatusError as exc:
                if exc.status_code in (401, 403, 429) or exc.status_code >= 500:
                    raise UserError(
                        f"{where}: counting the prompt of id {req.problem_id!r} failed with "
                        f"HTTP {exc.status_code} ({clean(error_message(exc))})") from None
                give_up(f"answered HTTP {exc.status_code}")   # 404, 405, 400, 422, ...
                return
            except (openai.APIConnectionError, asyncio.TimeoutError):
                give_up("could not be reached in time")
                return
            # json.JSONDecodeError (the body said JSON and was not); RecursionError (nested
            # too deeply for json)
            except (ValueError, RecursionError):
                give_up("answered with a body that is not JSON")
                return
        n = reply.get("count") if isinstance(reply, dict) else None
        if not is_int(n) or n < 1:
            give_up(f"answered {clean(_shape(reply))}, not a token count")
            return
        out.counts[h] = n

    # Every count finishes before an error is raised: none is left running unawaited.
    outcomes = await asyncio.gather(*(count(h, r) for h, r in unique.items()),
                                    return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return out


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
