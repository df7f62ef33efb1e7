#!/usr/bin/env bash
# Install sitesift and run the main job on the bundled sample site:
# fit a Site Style Tree, clean every page, write the texts, the model and a scored summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/sitesift demo --out "${1:-sitesift-demo}"
