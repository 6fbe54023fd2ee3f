"""`Judge.ask(task, items)`: a batch of a JudgeTask's items through the judge client.

The client's machinery is the verdict's own (grading/judge.py): one vote is `Judge._vote`,
with its retries, backoff, whole-request timeout, re-asks and redaction, reading the reply
with the task's `ReplyFormat`. What is per task lives here: the cache key (the model, the
task's name and version, the vote settings and the messages sent), k votes combined by the
task's rule, and the answer value stored in the cache's `answers` table as soon as it is
decided (a run killed mid-batch keeps every answer it paid for; a failure is never cached).
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Awaitable, Callable, Sequence

from ..interrupts import can_route_sigint, route_sigint
from .judge_cache import CachedAnswer, answer_key
from .judge_task import JudgeTask, TaskAnswer


def run_blocking(make: Callable[[], Awaitable[Any]], *, name: str) -> Any:
    """Run the coroutine `make()` to its end from synchronous code, inside a running event
    loop too (then on a helper thread with its own loop: a notebook, an async caller)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_interruptible(make)
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["out"] = asyncio.run(make())
        except BaseException as exc:  # re-raised on the caller's thread
            box["err"] = exc

    t = threading.Thread(target=run, name=name)
    t.start()
    t.join()
    if "err" in box:
        raise box["err"]
    return box["out"]


def _run_interruptible(make: Callable[[], Awaitable[Any]]) -> Any:
    """`asyncio.run(make())`, where Ctrl-C wakes the loop at once however it lands
    (general365.interrupts). The first Ctrl-C cancels the batch (every verdict already
    decided is in the cache); the caller sees KeyboardInterrupt, as with asyncio.run."""
    if not can_route_sigint():
        return asyncio.run(make())
    interrupted = []

    async def main() -> Any:
        task = asyncio.current_task()

        def on_sigint() -> None:
            interrupted.append(True)
            if len(interrupted) == 1 and not task.done():
                task.cancel()
                return
            raise KeyboardInterrupt()   # a second Ctrl-C: out of the loop now

        undo = route_sigint(asyncio.get_running_loop(), on_sigint, allowed=True)
        try:
            return await make()
        finally:
            undo()

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if interrupted:
            raise KeyboardInterrupt() from None
        raise


async def gather_all(aws: Sequence[Awaitable[Any]]) -> list[Any]:
    """`asyncio.gather(*aws)`, except that the first failure cancels the others and waits
    for them before it is raised. A bare gather leaves them running: they then fail on the
    client that the caller closes, and asyncio prints a "Task exception was never
    retrieved" traceback for each (a judge that starts answering 401 mid-batch, a cache
    on a full disk)."""
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def _temperature(judge) -> float:
    return judge.temperature if judge.votes == 1 else judge.vote_temperature


def task_key(judge, task: JudgeTask, messages: list[dict[str, str]]) -> str:
    settings = json.dumps({"votes": judge.votes, "temperature": _temperature(judge)})
    return answer_key(judge.model, task.name, task.version, settings, messages)


async def ask_batch(judge, task: JudgeTask, items: Sequence[Any], *,
                    on_done: Callable[[], None] | None = None) -> list[TaskAnswer]:
    """The answers to `items`, in order. Items whose messages are identical are asked once;
    cached answers are served without a request."""
    keyed = []
    for item in items:
        messages = task.messages(item)
        keyed.append((task_key(judge, task, messages), messages))
    unique: dict[str, list[dict[str, str]]] = {}
    for key, messages in keyed:
        unique.setdefault(key, messages)
    done: dict[str, TaskAnswer] = {}
    cache = judge.cache
    todo = []
    for key, messages in unique.items():
        hit = cache.get_answer(key) if cache is not None else None
        if hit is None:
            todo.append((key, messages))
            continue
        judge.stats.cache_hits += 1
        done[key] = TaskAnswer(hit.value, hit.model, list(hit.votes), hit.raw, hit.served_model,
                               cached=True)
        if on_done is not None:
            on_done()
    if todo:
        client, redactor = judge._client()
        sem = asyncio.Semaphore(judge.concurrency)

        async def one(key: str, messages: list[dict[str, str]]) -> TaskAnswer:
            answer = await _ask_one(judge, task, client, redactor, sem, cache, key, messages)
            if on_done is not None:
                on_done()
            return answer

        try:
            answers = await gather_all([one(key, m) for key, m in todo])
        finally:
            await client.close()
        for (key, _), answer in zip(todo, answers):
            done[key] = answer
    out = []
    for key, _ in keyed:
        a = done[key]
        out.append(TaskAnswer(a.value, a.model, list(a.votes), a.raw, a.served_model, a.detail,
                              a.cached, a.attempts))
    return out


async def _ask_one(judge, task: JudgeTask, client, redactor, sem: asyncio.Semaphore, cache,
                   key: str, messages: list[dict[str, str]]) -> TaskAnswer:
    k = judge.votes
    votes = await gather_all([judge._vote(client, redactor, sem, messages,
                                          _temperature(judge), task.reply)
                              for _ in range(k)])
    attempts = sum(v.attempts for v in votes)
    served = next((v.served_model for v in votes if v.served_model), None)
    cast = [v.value for v in votes if v.value is not None]
    value = task.combine(cast, k)
    if value is not None:
        raw = votes[0].raw if k == 1 else json.dumps([v.raw for v in votes])
        failed = [v.detail for v in votes if v.value is None]
        detail = f"{len(failed)} of {k} votes failed: {failed[0]}" if failed else None
        if cache is not None:
            # Committed now: an interrupted run keeps every answer it has paid for.
            cache.put_answer(key, CachedAnswer(value, cast, judge.model, served, raw),
                             task.name, task.version)
        return TaskAnswer(value, judge.model, cast, raw, served, detail, False, attempts)
    judge.stats.failed += 1
    reasons = "; ".join(sorted({v.detail for v in votes if v.detail}))
    if not reasons and cast:
        reasons = f"votes undecided ({task.combine_rule}): {cast}"
    return TaskAnswer(None, judge.model, cast, votes[-1].raw, served,
                      reasons or "votes undecided", False, attempts)
