#!/usr/bin/env bash
# Installs one Debian package with apt-get, as root or through sudo, for the ensure-*.sh scripts.
#   bash scripts/apt-install.sh <package> <what it is for> <the variable that points elsewhere>
set -euo pipefail
package="$1" purpose="$2" variable="$3"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "$package is missing and this is not a Debian-like system: install it and set $variable." >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "$package is missing: run 'apt-get install $package' as root (or set $variable)." >&2
    exit 1
  fi
fi
echo "Installing Debian's $package package for $purpose (apt-get)…" >&2
$sudo apt-get update -qq
# RUNLEVEL=1: a package that ships a service does not start it (the tests start their own).
DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 $sudo apt-get install -y -qq "$package" >/dev/null
