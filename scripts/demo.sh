#!/usr/bin/env bash
# Sets everything up (./.venv) and runs `general365 demo` on the bundled sample, offline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
exec .venv/bin/general365 demo "$@"
