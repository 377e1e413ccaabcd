#!/usr/bin/env bash
# The platform benchmark (bench/README.md); installs what is missing first. Flags pass through:
# npm run bench -- --worker-process --samples 100
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node_modules
exec node --import tsx bench/run.ts "$@"
