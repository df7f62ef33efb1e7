#!/usr/bin/env bash
# Spark (the `spark` extra: tests/test_spark.py, `sitesift crawl --engine spark`) needs a Java
# runtime. Install Debian's default headless JRE where `java` is missing, with apt-get
# (through sudo when not root), saying so first; a no-op otherwise.
# SITESIFT_NO_APT=1: install nothing (the Spark tests then skip).
set -euo pipefail
if command -v java >/dev/null 2>&1; then
    exit 0
fi
if [ -n "${SITESIFT_NO_APT:-}" ]; then
    echo "sitesift: no java on PATH, and SITESIFT_NO_APT is set: not installing it;" \
         "the Spark tests will skip" >&2
    exit 0
fi
bash "$(dirname "$0")/apt_install.sh" \
    "the Spark tests (sitesift crawl --engine spark) need a Java runtime, and none is on PATH" \
    --no-install-recommends default-jre-headless
java -version 2>&1 | head -1
