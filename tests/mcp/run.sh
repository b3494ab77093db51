#!/bin/sh
# Runs one Node script of tests/mcp against a vasana binary: run.sh SCRIPT.mjs VASANA_BINARY [ARGS...]
# Exit 77 (ctest's skip) when node is not installed; a package the script needs that is missing
# from node_modules is a failure that says how to install it.
dir=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed; ops/install-deps.sh installs nodejs and npm and runs npm ci in tests/mcp"
  exit 77
fi
script=$1
shift
# The packages each script imports (package-lock.json pins them all).
needs="@modelcontextprotocol/sdk"
case $script in
  langchain_*) needs="$needs @langchain/core @langchain/langgraph @langchain/mcp-adapters" ;;
esac
for pkg in $needs; do
  if [ ! -f "$dir/node_modules/$pkg/package.json" ]; then
    echo "FAIL: $dir/node_modules lacks $pkg, which $script needs: run ops/install-deps.sh (or npm ci in tests/mcp)"
    exit 1
  fi
done
exec node "$dir/$script" "$@"
