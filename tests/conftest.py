"""Shared fixtures. Fixture modules in tests/support/ are loaded as plugins so that each
area keeps its own (tiny model and vLLM server; fault-injecting server; how the work is
shared between xdist workers). The folders are described in tests/README.md."""

import os

os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

pytest_plugins = ["support.models", "support.servers", "support.runner_cases", "support.cfe_data",
                  "support.browser", "support.workers"]
