#!/usr/bin/env bash
# Install sitesift with its test tools (and what the Spark tests need: PySpark and a Java
# runtime), run the whole test suite, then ruff and mypy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure_java.sh
bash scripts/setup.sh test,spark
.venv/bin/python -m pytest -p no:cacheprovider "$@"
.venv/bin/ruff check src tests benchmarks
.venv/bin/mypy src
