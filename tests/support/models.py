"""Fixtures: the tiny local model and a `vllm serve` on it (owned by the runners work)."""
