# Shared by start.sh, test.sh and bench.sh.
ensure_node_modules() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "[engram] installing npm dependencies"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}
