# Shared by start.sh, test.sh and bench.sh.
ensure_node_modules() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "[engram] installing npm dependencies"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

# Local tools run inside bubblewrap (Debian package bubblewrap); without it the worker refuses to run them.
ensure_bubblewrap() {
  if ! command -v bwrap >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
      echo "[engram] installing bubblewrap, the tool sandbox (Debian package)"
      (apt-get update -qq && apt-get install -y -qq bubblewrap) >/dev/null
    else
      echo "[engram] bubblewrap (bwrap) is missing: install it (e.g. apt-get install bubblewrap) or tools will be refused" >&2
    fi
  fi
}
