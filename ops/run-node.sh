#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine (as root): install the packages, build, create the
# data directory if it does not exist yet, and run a node on it in the foreground.
#   ops/run-node.sh [DATA_DIR] [extra `vasana serve` options, e.g. --config FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
data="${1:-./vasana-data}"
shift || true
./ops/install-deps.sh
./ops/build.sh
if [ ! -f "$data/identity" ]; then
  ./build/cli/vasana init --data "$data"
fi
echo "run-node: in another shell: ./build/cli/vasana remember --data $data --realm demo \"a first memory\""
exec ./build/cli/vasana serve --data "$data" "$@"
