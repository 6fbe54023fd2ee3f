"""One chat completion, sent and read: the reply checked and turned into a `Generation`
with every piece of server text masked (openai_api.py sends, retries and routes)."""

from __future__ import annotations

from typing import Any

from ..markers import split_reasoning
from ..redact import Redactor
from ..validators import is_int
from .base import Generation, GenerationRequest


class BadReply(Exception):
    """A 200 reply that carries no usable completion (no choices): retried like a 5xx."""


async def post_chat(client: Any, kwargs: dict[str, Any]) -> Any:
    """`chat.completions.create(**kwargs)` without the SDK's transformation of typed
    parameters (our body is plain JSON already, and that step cost about a third of the
    client's CPU: benchmarks/api_throughput.py); the reply is the SDK's ChatCompletion."""
    from openai.types.chat import ChatCompletion

    body = {k: v for k, v in kwargs.items() if k != "extra_body"}
    body.update(kwargs.get("extra_body") or {})
    return await client.post("/chat/completions", body=body, cast_to=ChatCompletion)


def read_completion(req: GenerationRequest, completion: Any, max_tokens: int,
                    redactor: Redactor, message_chars: int) -> tuple[Generation, str | None]:
    """The Generation a reply holds, and the model id the server named (masked)."""
    try:
        return _read(req, completion, max_tokens, redactor, message_chars)
    except (AttributeError, TypeError, IndexError, KeyError) as exc:
        # The SDK builds reply objects without validating them: a 200 whose JSON has
        # the wrong shape surfaces here, and is retried like any unreadable reply.
        raise BadReply(f"reply of the wrong shape ({exc})") from None


def _read(req: GenerationRequest, completion: Any, max_tokens: int, redactor: Redactor,
          message_chars: int) -> tuple[Generation, str | None]:
    if not getattr(completion, "choices", None):
        raise BadReply("no choices in the reply")
    choice = completion.choices[0]
    msg = choice.message
    extra = msg.model_extra or {}
    if msg.content is not None and not isinstance(msg.content, str):
        raise BadReply("content is not text")
    # Everything the server said is masked before it is kept (a hostile server can
    # echo the key anywhere); answers are never cut, and searched for the whole key.
    clean = redactor.clean
    content = clean(msg.content or "", answer=True)
    apart = extra.get("reasoning_content") or extra.get("reasoning")
    if apart:
        reasoning = clean(str(apart), answer=True)
    else:
        reasoning, _, _ = split_reasoning(content)
    usage = completion.usage
    out_tokens = _count(getattr(usage, "completion_tokens", None))
    details = getattr(usage, "completion_tokens_details", None)
    r_tokens = _count(getattr(details, "reasoning_tokens", None)) if details else None
    served = getattr(completion, "model", None)
    finish = choice.finish_reason
    sampling = req.sampling.to_dict()
    sampling["max_tokens"] = max_tokens
    generation = Generation(
        problem_id=req.problem_id, run=req.run, response=content,
        finish_reason=clean(finish, message_chars) if isinstance(finish, str) else None,
        output_tokens=out_tokens, reasoning=reasoning, reasoning_tokens=r_tokens,
        prompt_tokens=_count(getattr(usage, "prompt_tokens", None)), sampling=sampling)
    return generation, clean(served, message_chars) if isinstance(served, str) else None


def _count(value: object) -> int | None:
    """A token count as reported, or None: the SDK does not validate replies, and a string
    (perhaps the key) or a 400-digit number must not reach responses.jsonl."""
    if is_int(value) and 0 <= value < 2 ** 53:
        return value
    return None
