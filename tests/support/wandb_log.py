"""Read back a W&B offline run (`wandb/offline-run-*/run-*.wandb`) with W&B's own record
protobuf (wandb.proto). The SDK no longer ships a Python reader for the file (wandb-core,
its Go service, reads it), so the framing is read here: a 7-byte header (":W&B", a magic
number, a version), then LevelDB-log records in 32 KiB blocks, each a 7-byte header
(CRC-32C, length, type: full, first, middle, last) and its bytes."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

BLOCK = 32 * 1024
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


def records(path: str | Path) -> list[Any]:
    from wandb.proto import wandb_internal_pb2 as pb

    data = Path(path).read_bytes()
    assert data[:4] == b":W&B", "not a W&B transaction log"
    out, pos, pending = [], 7, b""
    while pos + 7 <= len(data):
        left = BLOCK - pos % BLOCK
        if left < 7:   # the rest of a block too short for a header is padding
            pos += left
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos:pos + 7])
        if length == 0 and kind == 0:
            break
        chunk = data[pos + 7:pos + 7 + length]
        pos += 7 + length
        if kind == FULL:
            pending = chunk
        elif kind == FIRST:
            pending = chunk
            continue
        elif kind == MIDDLE:
            pending += chunk
            continue
        else:
            pending += chunk
        rec = pb.Record()
        rec.ParseFromString(pending)
        out.append(rec)
        pending = b""
    return out


def _key(item) -> str:
    return item.key or "/".join(item.nested_key)


def run_contents(path: str | Path) -> dict[str, Any]:
    """name, config, history (merged) and summary of one offline run."""
    out: dict[str, Any] = {"name": None, "config": {}, "history": {}, "summary": {}}
    for rec in records(path):
        kind = rec.WhichOneof("record_type")
        if kind == "run":
            out["name"] = rec.run.display_name
            out["project"] = rec.run.project
            for item in rec.run.config.update:
                out["config"][_key(item)] = json.loads(item.value_json)
        elif kind == "config":
            for item in rec.config.update:
                out["config"][_key(item)] = json.loads(item.value_json)
        elif kind == "history":
            for item in rec.history.item:
                out["history"][_key(item)] = json.loads(item.value_json)
        elif kind == "summary":
            for item in rec.summary.update:
                out["summary"][_key(item)] = json.loads(item.value_json)
    return out
