#!/usr/bin/env bash
# Debian's Chromium, for the real-browser tests and the browser example: installed with apt-get
# when missing, never downloaded by a browser installer. Set CHROMIUM_PATH to use another binary.
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium" ] && exit 0
bash "$(dirname "$0")/apt-install.sh" chromium "the browser tests" CHROMIUM_PATH
