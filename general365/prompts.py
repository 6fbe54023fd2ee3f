"""The query prompt: a General365 problem as chat messages.

The paper's template (Appendix B) appends an output-format instruction that the released
questions already carry ("... put your final answer within \\boxed{}."), so the user
message is the question itself, verbatim. No system prompt by default (the paper names
none); one given is part of the prompt's identity (`prompt_hash`, `PROMPT_VERSION`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import DataError

# Bumped whenever build_messages changes what a model is shown, so that runs made with
# different prompts are never mixed in one store.
PROMPT_VERSION = "general365-query-v1"


def _question(problem: Any) -> tuple[str, str | None]:
    if isinstance(problem, Mapping):
        question, pid = problem.get("question"), problem.get("id")
    else:
        question, pid = getattr(problem, "question", None), getattr(problem, "id", None)
    if not isinstance(question, str) or not question.strip():
        raise DataError("no question to ask", row_id=pid, field="question", value=question,
                        expected="a non-empty string")
    return question, pid


class Message(dict):
    """A chat message that cannot change: a dict (every chat API and encoder takes it) that
    refuses writes and hashes by its content (a prompt can key a cache)."""

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a chat message cannot be changed; build a new one")

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __hash__(self) -> int:   # type: ignore[override]
        return hash(tuple(sorted(self.items())))

    def __reduce__(self) -> tuple[Any, ...]:   # pickling would otherwise set items one by one
        return (Message, (dict(self),))


def build_messages(problem: Any, system_prompt: str | None = None) -> tuple[Message, ...]:
    """An optional system message, then the question, as read-only `Message`s."""
    question, pid = _question(problem)
    messages: list[Message] = []
    if system_prompt is not None:
        if not isinstance(system_prompt, str) or not system_prompt.strip():
            raise DataError("empty system prompt", row_id=pid, field="system_prompt",
                            value=system_prompt, expected="a non-empty string or none at all")
        messages.append(Message(role="system", content=system_prompt))
    messages.append(Message(role="user", content=question))
    return tuple(messages)


def prompt_provenance(system_prompt: str | None = None) -> dict[str, Any]:
    """What run.json records about the prompt."""
    return {"version": PROMPT_VERSION, "system_prompt": system_prompt}
