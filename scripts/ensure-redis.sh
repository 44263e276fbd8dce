#!/usr/bin/env bash
# Debian's redis-server, for the Redis stores' tests (which start their own on a free localhost
# port): installed with apt-get when missing. Set REDIS_SERVER to use another binary.
set -euo pipefail
server="${REDIS_SERVER:-$(command -v redis-server || true)}"
[ -n "$server" ] && [ -x "$server" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "redis-server is missing and this is not a Debian-like system: install Redis 7 and set REDIS_SERVER." >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "redis-server is missing: run 'apt-get install redis-server' as root (or set REDIS_SERVER)." >&2
    exit 1
  fi
fi
echo "Installing Debian's redis-server package for the Redis store tests (apt-get)…" >&2
$sudo apt-get update -qq
# The package's own service is not started: the tests start theirs.
DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 $sudo apt-get install -y -qq --no-install-recommends redis-server >/dev/null
