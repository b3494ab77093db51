#!/bin/sh
# Runs one Node script of tests/openapi: run.sh SCRIPT.mjs VASANA_BINARY DOC_PATH [ARGS...]
# Exit 77 (ctest's skip) when node is not installed; missing packages are a failure that says
# how to install them.
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed; ops/install-deps.sh installs nodejs and npm and runs npm ci in tests/openapi"
  exit 77
fi
dir=$(cd "$(dirname "$0")" && pwd)
for p in @apidevtools/swagger-parser ajv ajv-formats js-yaml; do
  if [ ! -d "$dir/node_modules/$p" ]; then
    echo "FAIL: $dir/node_modules lacks $p: run ops/install-deps.sh (or npm ci in tests/openapi)"
    exit 1
  fi
done
script=$1
shift
exec node "$dir/$script" "$@"
