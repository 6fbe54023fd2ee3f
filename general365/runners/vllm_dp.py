"""Data parallelism for the vLLM runner: one spawned engine process per GPU group (a script
that builds one needs the `if __name__ == "__main__":` guard), each with a round-robin shard.
Every worker counts its shard and the parent plans every budget (refusals stay up front);
then each generates, sending each Generation back as it finishes."""

from __future__ import annotations

import multiprocessing as mp
import os
import traceback
from collections.abc import Iterator
from multiprocessing.connection import wait
from typing import Any

from ..errors import UserError
from .base import Generation, GenerationRequest
from .limits import Budget

START_TIMEOUT_S = 1800.0


def gpu_groups(data_parallel_size: int, tensor_parallel_size: int,
               pipeline_parallel_size: int = 1) -> list[str | None]:
    """The CUDA_VISIBLE_DEVICES value of each worker (None where there are no GPUs): each
    engine takes tensor x pipeline parallel GPUs."""
    try:
        import torch

        n_gpus = torch.cuda.device_count()
    except Exception:
        n_gpus = 0
    if n_gpus == 0:
        return [None] * data_parallel_size
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    devices = [d.strip() for d in visible.split(",") if d.strip()] if visible else \
        [str(i) for i in range(n_gpus)]
    per = tensor_parallel_size * pipeline_parallel_size
    need = data_parallel_size * per
    if len(devices) < need:
        pp = f" x pipeline_parallel_size {pipeline_parallel_size}" \
            if pipeline_parallel_size > 1 else ""
        raise UserError(f"data_parallel_size {data_parallel_size} x tensor_parallel_size "
                        f"{tensor_parallel_size}{pp} needs {need} GPUs; {len(devices)} visible")
    return [",".join(devices[r * per:(r + 1) * per]) for r in range(data_parallel_size)]


def _worker(cuda_devices: str | None, model: str, revision: str | None,
            engine_args: dict[str, Any], chat_template_kwargs: dict[str, Any] | None,
            conn) -> None:
    # Each worker sees only its GPUs: CUDA_VISIBLE_DEVICES is set before vLLM is imported.
    if cuda_devices is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = cuda_devices
    from .vllm_engine import Engine

    try:
        engine = Engine(model, revision, engine_args, chat_template_kwargs)
        conn.send(("ready", engine.max_model_len))
    except UserError as exc:
        conn.send(("user_error", str(exc)))
        return
    except BaseException:
        conn.send(("error", traceback.format_exc()))
        return
    try:
        while True:
            command, payload = conn.recv()
            if command == "stop":
                break
            try:
                if command == "count":
                    conn.send(("counts", engine.count(payload)))
                elif command == "run":
                    requests, budgets = payload
                    for generation in engine.run(requests, budgets):
                        conn.send(("generation", generation))
                    conn.send(("done", None))
            except UserError as exc:
                conn.send(("user_error", str(exc)))
    except BaseException:
        try:
            conn.send(("error", traceback.format_exc()))
        except OSError:
            pass
    finally:
        engine.close()


class EnginePool:
    def __init__(self, model: str, revision: str | None, engine_args: dict[str, Any],
                 chat_template_kwargs: dict[str, Any] | None, data_parallel_size: int):
        groups = gpu_groups(data_parallel_size, int(engine_args.get("tensor_parallel_size", 1)),
                            int(engine_args.get("pipeline_parallel_size", 1)))
        ctx = mp.get_context("spawn")
        # Not daemonic: a vLLM engine starts processes of its own (engine core, TP workers).
        self.workers: list[tuple[Any, Any]] = []
        for rank, devices in enumerate(groups):
            parent, child = ctx.Pipe()
            process = ctx.Process(
                target=_worker, name=f"general365-vllm-dp{rank}",
                args=(devices, model, revision, engine_args, chat_template_kwargs, child))
            process.start()
            child.close()
            self.workers.append((process, parent))
        lengths = []
        try:
            for rank, (_, conn) in enumerate(self.workers):
                if not conn.poll(START_TIMEOUT_S):
                    raise RuntimeError(f"vLLM worker {rank} sent nothing for "
                                       f"{START_TIMEOUT_S:.0f}s")
                lengths.append(self._check(rank, "ready", self._recv(rank)))
        except BaseException:
            self.close()
            raise
        self.max_model_len = min(lengths)
        self.broken = False

    def _recv(self, rank: int) -> tuple[str, Any]:
        process, conn = self.workers[rank]
        try:
            return conn.recv()
        except EOFError:
            process.join(5)
            raise RuntimeError(f"vLLM worker {rank} died (exit code {process.exitcode})") from None

    @staticmethod
    def _check(rank: int, kind: str, message: tuple[str, Any]) -> Any:
        got, payload = message
        if got == "user_error":
            raise UserError(payload)
        if got == "error":
            raise RuntimeError(f"vLLM worker {rank} failed:\n{payload}")
        if got != kind:
            raise RuntimeError(f"vLLM worker {rank}: expected {kind!r}, got {got!r}")
        return payload

    def count(self, requests: list[GenerationRequest]) -> list[int]:
        if self.broken or not self.workers:
            raise RuntimeError("this data-parallel vLLM runner was stopped midway or closed")
        n = len(self.workers)   # worker `rank` takes requests[rank::n]
        for rank, (_, conn) in enumerate(self.workers):
            conn.send(("count", requests[rank::n]))
        # Every worker's reply is read before any is acted on, so that a refusal by one
        # leaves no stale reply in another's pipe.
        replies = [self._recv(rank) for rank in range(n)]
        counts = [0] * len(requests)
        for rank, reply in enumerate(replies):
            counts[rank::n] = self._check(rank, "counts", reply)
        return counts

    def run(self, requests: list[GenerationRequest], budgets: list[Budget]
            ) -> Iterator[Generation]:
        n = len(self.workers)
        for rank, (_, conn) in enumerate(self.workers):
            conn.send(("run", (requests[rank::n], budgets[rank::n])))
        busy = {conn: rank for rank, (_, conn) in enumerate(self.workers)}
        try:
            while busy:
                for conn in wait(list(busy)):
                    rank = busy[conn]
                    kind, payload = self._recv(rank)
                    if kind == "generation":
                        yield payload
                    elif kind == "done":
                        del busy[conn]
                    else:
                        self._check(rank, "generation", (kind, payload))
        finally:
            if busy:
                # Stopped midway (a worker failed, or the consumer gave up): the others are
                # still generating into their pipes, so this pool cannot be trusted again.
                self.broken = True
                self.close(wait_s=0)

    def close(self, wait_s: float = 60) -> None:
        for process, conn in self.workers:
            try:
                conn.send(("stop", None))
            except OSError:
                pass
        for process, conn in self.workers:
            process.join(wait_s)
            if process.is_alive():
                # Its engine's own processes (engine core, TP workers) are its children
                # and end with it when their parent's pipe closes.
                process.terminate()
                process.join(30)
            conn.close()
        self.workers = []
