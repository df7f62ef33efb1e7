#!/usr/bin/env bash
# Install sitesift with its test tools (and what the Spark tests need: PySpark and a Java
# runtime; the rendering tests: Playwright and Debian's Chromium; the benchmark's peer
# adapters: the peers; the pipeline integrations: DataTrove and datasets), run the whole
# test suite, then ruff and mypy.
# Java and Chromium come from Debian's packages: where missing, scripts/ensure_java.sh and
# scripts/ensure_chromium.sh install them with apt-get (through sudo when not root), and say
# so first. SITESIFT_NO_APT=1 installs neither: the Spark and rendering tests then skip.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure_java.sh
bash scripts/ensure_chromium.sh
bash scripts/setup.sh test,spark,render,report,bench,datatrove,hf
# The native core's own tests and lints first (without the Python binding, which cannot
# link a test binary; pytest then runs it through Python).
source scripts/rust_env.sh
echo "sitesift test: cargo fmt, cargo test and clippy on native/" >&2
(cd native && cargo fmt --check && cargo test --release --no-default-features --lib --quiet \
    && cargo clippy --release --all-targets --features python --quiet -- -D warnings)
# The browser tests skip where Chromium is missing; where it is here (installed above, or
# already), a missing browser fails the run instead (tests/test_render.py).
if [ -x /usr/bin/chromium ]; then
    export SITESIFT_REQUIRE_BROWSER=1
fi
echo "sitesift test: pytest" >&2
.venv/bin/python -m pytest -p no:cacheprovider "$@"
echo "sitesift test: ruff and mypy" >&2
.venv/bin/ruff check src tests benchmarks
.venv/bin/mypy src
