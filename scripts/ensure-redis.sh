#!/usr/bin/env bash
# Debian's redis-server, for the Redis stores' tests (which start their own on a free localhost
# port): installed with apt-get when missing. Set REDIS_SERVER to use another binary.
set -euo pipefail
server="${REDIS_SERVER:-$(command -v redis-server || true)}"
[ -n "$server" ] && [ -x "$server" ] && exit 0
bash "$(dirname "$0")/apt-install.sh" redis-server "the Redis store tests" REDIS_SERVER
