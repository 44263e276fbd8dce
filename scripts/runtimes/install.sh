#!/usr/bin/env bash
# The runtimes of the package smoke test (test/package/package.test.ts): Node 22, 24 and 26, Bun,
# Deno and workerd (through miniflare), each a binary inside an npm package, and TypeScript 7 for
# the consumer type check, from the npm registry, into scripts/runtimes/node_modules. Nothing is
# downloaded by an installer of its own.
set -euo pipefail
cd "$(dirname "$0")"
if [ -x node_modules/node22/bin/node ] && [ -x node_modules/node24/bin/node ] && [ -x node_modules/node26/bin/node ] && [ -x node_modules/@oven/bun-linux-x64/bin/bun ] \
  && [ -x node_modules/.bin/deno ] && [ -d node_modules/miniflare ] && [ -x node_modules/typescript7/bin/tsc ]; then
  exit 0
fi
echo "Installing the smoke-test runtimes (Node 22, 24 and 26, Bun, Deno, workerd, TypeScript 7) from the npm registry…" >&2
npm install --no-audit --no-fund --loglevel=error
