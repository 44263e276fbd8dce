#!/usr/bin/env bash
# Debian's Chromium, for the real-browser tests and the browser example: installed with apt-get
# when missing, never downloaded by a browser installer. Set CHROMIUM_PATH to use another binary.
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "Chromium is missing at $chromium and this is not a Debian-like system: install Chromium and set CHROMIUM_PATH." >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "Chromium is missing: run 'apt-get install chromium' as root (or set CHROMIUM_PATH)." >&2
    exit 1
  fi
fi
echo "Installing Debian's chromium package for the browser tests (apt-get)…" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
