#!/usr/bin/env bash
# Install Debian packages non-interactively, through sudo when not root:
# `bash scripts/apt_install.sh [apt-get install options] PACKAGE...` (ensure_*.sh use it).
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "$@" >/dev/null
