#!/usr/bin/env bash
# Spark (the `spark` extra: tests/test_spark.py, `sitesift crawl --engine spark`) needs a Java
# runtime. Install Debian's default headless JRE where `java` is missing; a no-op otherwise.
set -euo pipefail
if command -v java >/dev/null 2>&1; then
    exit 0
fi
bash "$(dirname "$0")/apt_install.sh" --no-install-recommends default-jre-headless
java -version 2>&1 | head -1
