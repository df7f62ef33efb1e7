#!/usr/bin/env bash
# Create .venv (if missing) and install sitesift into it with the given extras.
# Usage: scripts/setup.sh [EXTRAS]   e.g. scripts/setup.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
# The default cleaner's core is Rust (native/), compiled by maturin during the install.
source scripts/rust_env.sh
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
if [ -n "${1:-}" ]; then
    .venv/bin/python -m pip install --quiet -e ".[$1]"
else
    .venv/bin/python -m pip install --quiet -e .
fi
