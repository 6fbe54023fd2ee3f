"""Ctrl-C that wakes an asyncio event loop at once, however it lands.

Python runs its SIGINT handler only when the main thread next executes bytecode: a Ctrl-C
just before the loop blocks in epoll leaves it asleep until its next timer (minutes).
`loop.add_signal_handler` also sets the signal wakeup fd, so the loop wakes at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from typing import Any, Awaitable, Callable


def can_route_sigint() -> bool:
    """Only on the main thread and with Python's default SIGINT handler: a caller's own
    handler, or an ignored SIGINT, stays as it is."""
    return (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)


def run_until(loop: asyncio.AbstractEventLoop, awaitable: Awaitable[Any]) -> Any:
    """`loop.run_until_complete(awaitable)`, where Ctrl-C wakes the loop at once however it
    lands. The first Ctrl-C cancels the awaitable (its cleanups run), a second leaves the
    loop at once; either way the caller sees KeyboardInterrupt. Routed only while the loop
    runs (a Ctrl-C routed to a loop that is not running would never be seen), and only
    where can_route_sigint()."""
    task = asyncio.ensure_future(awaitable, loop=loop)
    interrupted = []

    def on_sigint() -> None:
        interrupted.append(True)
        if len(interrupted) == 1 and not task.done():
            task.cancel()
            return
        raise KeyboardInterrupt()   # asyncio lets it out of a callback: out of the loop now

    routed = can_route_sigint()
    if routed:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    try:
        return loop.run_until_complete(task)
    except asyncio.CancelledError:
        if interrupted:
            raise KeyboardInterrupt() from None
        raise
    finally:
        if routed:   # Python's default handler back (unless the loop is closed by now)
            with contextlib.suppress(ValueError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)


def run_in_new_loop(make: Callable[[], Awaitable[Any]]) -> Any:
    """What asyncio.run(make()) does, but through run_until, so that the SIGINT routing is
    ours (asyncio.Runner would allow that too, but only from Python 3.11)."""
    loop = asyncio.new_event_loop()
    try:
        asyncio.set_event_loop(loop)
        return run_until(loop, make())
    finally:
        try:
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
