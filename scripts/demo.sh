#!/usr/bin/env bash
# Install sitesift and run the main job on the bundled sample site:
# fit a Site Style Tree, clean every page, write the texts, the model and a scored summary,
# then the visual report (pages as rendered with the noise shaded, sst beside template).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-sitesift-demo}"
bash scripts/setup.sh report
.venv/bin/sitesift demo --out "$OUT"
echo
echo "The visual report: open it in a browser (no network needed):"
.venv/bin/sitesift report src/sitesift/data/sample_site --method sst --method template \
    --out "$OUT/report" --quiet
