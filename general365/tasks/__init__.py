"""Benchmarks run through the shared toolkit (the Benchmark seam, docs/cfe-bench.md)."""
