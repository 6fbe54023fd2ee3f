"""Benchmarks behind one protocol (base.py). See docs/architecture.md for how to add one.

- base.py        the Benchmark protocol: what makes one benchmark itself
- general365.py  General365 itself: the default benchmark
- qa.py          any question/answer dataset as a benchmark
- cfe/           CFE-Bench
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import OptionError
from .base import DEFAULT, Benchmark

# name -> "module:class"; imported only when named (a benchmark may need optional packages)
BENCHMARKS: dict[str, str] = {
    "general365": "general365.tasks.general365:General365",
    "qa": "general365.tasks.qa:QABenchmark",
    "cfe": "general365.tasks.cfe.benchmark:CFEBench",
}


def get_benchmark(benchmark: str | Benchmark | None = None, **options: Any) -> Benchmark:
    """The benchmark named (or given), built with its options."""
    if benchmark is None:
        benchmark = DEFAULT
    if not isinstance(benchmark, str):
        if options:
            raise OptionError("benchmark", "options are given by the benchmark object itself "
                                           f"(got {', '.join(sorted(options))})")
        if not isinstance(benchmark, Benchmark):
            raise OptionError("benchmark", f"must be a benchmark name ({', '.join(BENCHMARKS)}) "
                                           f"or a Benchmark (got {type(benchmark).__name__})")
        return benchmark
    if benchmark not in BENCHMARKS:
        raise OptionError("benchmark", f"{benchmark!r} is not a benchmark; expected one of "
                                       f"{', '.join(BENCHMARKS)}")
    module, cls = BENCHMARKS[benchmark].split(":")
    return getattr(importlib.import_module(module), cls)(**options)


__all__ = ["BENCHMARKS", "Benchmark", "DEFAULT", "get_benchmark"]
