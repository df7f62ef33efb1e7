#!/usr/bin/env bash
# Install sitesift with its test tools (and what the Spark tests need: PySpark and a Java
# runtime; the rendering tests: Playwright and Debian's Chromium; the benchmark's peer
# adapters: the peers; the pipeline integrations: DataTrove and datasets), run the whole
# test suite, then ruff and mypy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure_java.sh
bash scripts/ensure_chromium.sh
bash scripts/setup.sh test,spark,render,report,bench,datatrove,hf
# The native core's own tests and lints first (without the Python binding, which cannot
# link a test binary; pytest then runs it through Python).
source scripts/rust_env.sh
(cd native && cargo fmt --check && cargo test --release --no-default-features --lib --quiet \
    && cargo clippy --release --all-targets --features python --quiet -- -D warnings)
# The browser tests skip where Chromium is missing; here it was just installed, so a
# missing browser fails the run instead (tests/test_render.py).
SITESIFT_REQUIRE_BROWSER=1 .venv/bin/python -m pytest -p no:cacheprovider "$@"
.venv/bin/ruff check src tests benchmarks
.venv/bin/mypy src
