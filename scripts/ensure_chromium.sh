#!/usr/bin/env bash
# The renderer (the `render` extra: sitesift/browser/, methods vlps, vlps-fixed, vips, the
# VIPS segmentations) drives Debian's Chromium through Playwright; Playwright's own browser
# download cannot run here. Install Chromium, with the Liberation fonts (metric-compatible
# with Arial, Times and Courier, so old pages lay out as designed), where /usr/bin/chromium
# is missing; a no-op otherwise.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
bash "$(dirname "$0")/apt_install.sh" chromium fonts-liberation fonts-dejavu-core
/usr/bin/chromium --version 2>/dev/null | head -1
