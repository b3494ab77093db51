#!/bin/sh
# Runs one Node script of tests/ui against a vasana binary: run.sh SCRIPT.mjs VASANA_BINARY [ARGS...]
# Exit 77 (ctest's skip) when node is not installed; puppeteer-core missing from node_modules or
# no Chromium is a failure that says how to install them.
dir=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed; ops/install-deps.sh installs nodejs, npm and chromium and runs npm ci in tests/ui"
  exit 77
fi
script=$1
shift
if [ ! -f "$dir/node_modules/puppeteer-core/package.json" ]; then
  echo "FAIL: $dir/node_modules lacks puppeteer-core, which $script needs: run ops/install-deps.sh (or npm ci in tests/ui)"
  exit 1
fi
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "FAIL: no Chromium at $chromium, which $script drives: run ops/install-deps.sh (or apt-get install chromium), or set CHROMIUM"
  exit 1
fi
CHROMIUM=$chromium exec node "$dir/$script" "$@"
