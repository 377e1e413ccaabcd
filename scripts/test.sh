#!/usr/bin/env bash
# The whole test suite: installs what is missing, type-checks, lints, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node_modules
ensure_bubblewrap
node --import tsx scripts/ensure-tools.ts
if ! command -v chromium >/dev/null 2>&1; then
  echo "[engram] installing Chromium for the console's browser tests (Debian package)"
  (apt-get update -qq && apt-get install -y -qq chromium) >/dev/null
fi
echo "[engram] type-checking"
npx tsc -p tsconfig.json --noEmit
echo "[engram] linting"
npx eslint .
npx vitest run "$@"
