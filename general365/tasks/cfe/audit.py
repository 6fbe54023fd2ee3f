"""CFE-Bench graded files in the grading audit (docs/cfe-bench.md, "Judge validation"):
`variable_rows` turns each graded variable into a graded row of its own (id
`QUESTION#VARIABLE`), so that `general365 audit sample` and `score` run on variables.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from ...errors import DataError
from ...jsonl import iter_jsonl, write
from ...schema import Status

SEPARATOR = "#"
_KEEP = ("run", "model", "response", "reasoning", "output_tokens", "reasoning_tokens",
         "finish_reason", "sampling", "modality", "subject")


def variable_rows(path: str) -> Iterator[dict[str, Any]]:
    """One graded row per graded variable of the CFE graded file `path`."""
    for n, d in iter_jsonl(path):
        if not isinstance(d, Mapping):
            raise DataError("not a JSON object", path=path, line=n,
                            expected="one graded row a line")
        parts = d.get("parts")
        if not isinstance(parts, list) or not parts:
            raise DataError("missing field", path=path, line=n, row_id=d.get("id"),
                            field="parts", expected="a CFE-Bench graded row (one graded part "
                                                    "per variable)")
        gold = d.get("variables") if isinstance(d.get("variables"), list) else []
        described = {g.get("name"): g.get("description") for g in gold
                     if isinstance(g, Mapping)}
        for i, v in enumerate(parts):
            if not isinstance(v, Mapping) or not isinstance(v.get("name"), str):
                raise DataError("wrong type", path=path, line=n, row_id=d.get("id"),
                                field=f"parts[{i}]", expected="a graded variable")
            status = Status.parse(v.get("status"), path=path, line=n, row_id=d.get("id"),
                                  field=f"parts[{i}].status")
            description = described.get(v["name"]) or ""
            row = {k: d[k] for k in _KEEP if k in d}
            row.update({
                "id": f"{d.get('id')}{SEPARATOR}{v['name']}",
                "benchmark": "cfe-variable",
                "question": f"{d.get('question') or ''}\n\nVariable: {v['name']} "
                            f"({v.get('type')}): {description}".strip(),
                "answer": v.get("value"),
                "variable_type": v.get("type"),
                "status": status.value, "correct": status is Status.CORRECT,
                "method": v.get("method"), "extracted": v.get("extracted"),
            })
            if v.get("detail"):
                row["detail"] = v["detail"]
            if isinstance(v.get("judge"), Mapping):
                row["judge"] = v["judge"]
            yield row


def write_variable_rows(graded: str, out: str) -> int:
    """Write `variable_rows(graded)` to `out` (whole or not at all); returns the count."""
    return write(out, list(variable_rows(graded)))
