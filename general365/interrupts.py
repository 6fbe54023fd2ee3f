"""Ctrl-C that wakes an asyncio event loop at once, however it lands.

Python runs its SIGINT handler on the main thread only when that thread next executes
bytecode. A Ctrl-C that arrives just before the loop blocks in epoll, or that the kernel
hands to another thread, leaves the loop asleep until its next timer: a whole-request
timeout, minutes, with every request hanging. `loop.add_signal_handler` also sets the
signal wakeup fd, so the signal's C handler writes to the loop's self-pipe and the loop
wakes whatever it was doing. Used by the judge client and the OpenAI-compatible runner.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import Callable


def can_route_sigint() -> bool:
    """Only on the main thread and with Python's default SIGINT handler (as asyncio.run
    itself): a caller's own handler, or an ignored SIGINT, stays as it is."""
    return (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)


def route_sigint(loop: asyncio.AbstractEventLoop, on_sigint: Callable[[], None], *,
                 allowed: bool | None = None) -> Callable[[], None]:
    """Run `on_sigint` in `loop` on Ctrl-C; returns the undo, which restores Python's
    default handler (a later Ctrl-C raises KeyboardInterrupt wherever the main thread is).
    A no-op pair unless `allowed` (default: can_route_sigint() now). Inside asyncio.run
    pass the answer taken before it: asyncio.run installs its own SIGINT handler."""
    if not (can_route_sigint() if allowed is None else allowed):
        return lambda: None
    loop.add_signal_handler(signal.SIGINT, on_sigint)

    def undo() -> None:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (ValueError, RuntimeError):   # off the main thread, or the loop is closed
            pass
    return undo


def raise_interrupt() -> None:
    """An on_sigint that stops the loop's run_until_complete with KeyboardInterrupt (asyncio
    lets KeyboardInterrupt out of a callback)."""
    raise KeyboardInterrupt()
