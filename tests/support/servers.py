"""Fixtures: the local fault-injecting OpenAI-compatible server (owned by the judge work)."""
