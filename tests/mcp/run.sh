#!/bin/sh
# Runs one Node script of tests/mcp against a vasana binary: run.sh SCRIPT.mjs VASANA_BINARY [ARGS...]
# Exit 77 (ctest's skip) when node is not installed; a missing SDK is a failure that says how
# to install it.
dir=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed; ops/install-deps.sh installs nodejs and npm and runs npm ci in tests/mcp"
  exit 77
fi
if [ ! -d "$dir/node_modules/@modelcontextprotocol/sdk" ]; then
  echo "FAIL: $dir/node_modules lacks @modelcontextprotocol/sdk: run ops/install-deps.sh (or npm ci in tests/mcp)"
  exit 1
fi
script=$1
shift
exec node "$dir/$script" "$@"
