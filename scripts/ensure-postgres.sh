#!/usr/bin/env bash
# Debian's postgresql, for the PostgreSQL inbox store's tests (which start a throw-away cluster of
# their own on a free localhost port, scripts/postgres-server.ts): installed with apt-get when
# missing. Set POSTGRES_BIN to the directory of another installation's initdb and postgres.
set -euo pipefail
if [ -n "${POSTGRES_BIN:-}" ] && [ -x "$POSTGRES_BIN/initdb" ]; then exit 0; fi
for bin in /usr/lib/postgresql/*/bin; do
  [ -x "$bin/initdb" ] && [ -x "$bin/postgres" ] && exit 0
done
bash "$(dirname "$0")/apt-install.sh" postgresql "the PostgreSQL store tests" POSTGRES_BIN
