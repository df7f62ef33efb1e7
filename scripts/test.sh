#!/usr/bin/env bash
# Install sitesift with its test tools and run the whole test suite, then ruff and mypy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/python -m pytest -p no:cacheprovider "$@"
.venv/bin/ruff check src tests
.venv/bin/mypy src
