#!/usr/bin/env bash
# Starts the whole platform; installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node_modules
ensure_bubblewrap
# The browser tests build the console with this exact command (START_CONSOLE_BUILD_ARGS in scripts/console-build.ts).
node --import tsx scripts/console-build.ts --if-stale --quiet
exec node --import tsx scripts/platform.ts "$@"
