#!/usr/bin/env bash
# The renderer (the `render` extra: sitesift/browser/, methods vlps, vlps-fixed, vips, the
# VIPS segmentations) drives Debian's Chromium through Playwright; Playwright's own browser
# download cannot run here. Install Chromium, with the Liberation fonts (metric-compatible
# with Arial, Times and Courier, so old pages lay out as designed), where /usr/bin/chromium
# is missing, with apt-get (through sudo when not root), saying so first; a no-op otherwise.
# SITESIFT_NO_APT=1: install nothing (the rendering tests then skip).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ -n "${SITESIFT_NO_APT:-}" ]; then
    echo "sitesift: no /usr/bin/chromium, and SITESIFT_NO_APT is set: not installing it;" \
         "the rendering tests (vlps, vips, the renderer) will skip" >&2
    exit 0
fi
bash "$(dirname "$0")/apt_install.sh" \
    "the rendering tests and methods (vlps, vips) need Chromium, and /usr/bin/chromium is missing" \
    chromium fonts-liberation fonts-dejavu-core
/usr/bin/chromium --version 2>/dev/null | head -1
