#!/usr/bin/env bash
# Install Debian packages non-interactively with apt-get, through sudo when not root:
# `bash scripts/apt_install.sh WHY [apt-get install options] PACKAGE...` (ensure_*.sh use it).
# It says what it installs, why and how before it runs apt-get; SITESIFT_NO_APT=1 stops it
# (the callers check that first and skip the install).
set -euo pipefail
WHY="$1"
shift
PACKAGES=()
for arg in "$@"; do
    case "$arg" in -*) ;; *) PACKAGES+=("$arg") ;; esac
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
    if ! command -v sudo >/dev/null 2>&1; then
        echo "sitesift: $WHY needs the Debian packages ${PACKAGES[*]}, and installing them" \
             "needs root (no sudo here): install them as root, or set SITESIFT_NO_APT=1" \
             "to go on without them (their tests then skip)" >&2
        exit 1
    fi
fi
HOW="apt-get"
if [ -n "$SUDO" ]; then
    HOW="sudo apt-get (sudo may ask for your password)"
fi
echo "sitesift: $WHY: installing the Debian packages ${PACKAGES[*]} with $HOW:" \
     "apt-get update, then apt-get install -y. SITESIFT_NO_APT=1 skips this, and the tests" \
     "that need them skip." >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "$@" >/dev/null
