"""A benchmark's client against the fault server in a process of its own (so that the
server's CPU is not charged to the client's GIL): start it, measure, print the figures, the
requests the server saw and the machine's load. Used by the judge and similarity throughput
benchmarks."""

from __future__ import annotations

import multiprocessing
import os
import sys
import tempfile
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.servers import FaultServer  # noqa: E402


def _serve(script, conn, stop) -> None:
    with FaultServer(script=script) as server:
        conn.send(server.base_url)
        stop.wait()
        conn.send(len(server.requests))


def report_against_server(script, measure: Callable[[str, Path], list[str]]) -> int:
    """measure(base_url, judge_cache_path) -> the lines to print, against a fault server that
    answers with `script`; 0 (the exit status)."""
    ctx = multiprocessing.get_context("fork")   # the script need not pickle
    conn, child = ctx.Pipe()
    stop = ctx.Event()
    proc = ctx.Process(target=_serve, args=(script, child, stop), daemon=True)
    proc.start()
    try:
        base_url = conn.recv()
        with tempfile.TemporaryDirectory() as tmp:
            lines = measure(base_url, Path(tmp) / "judge.sqlite")
    finally:
        stop.set()
        served = conn.recv() if proc.is_alive() else "?"
        proc.join(timeout=10)
    print("\n".join(lines))
    print(f"  (the server saw {served} requests in all; load average now "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    return 0
