#!/bin/sh
# Runs the Python client's tests against a vasana binary: run_tests.sh VASANA_BINARY
# Exit 77 (ctest's skip) with a message when python3 is not installed. Nothing is written into
# the source tree (no bytecode files); the nodes live in a temporary directory.
if [ $# -ne 1 ]; then
  echo "usage: $0 VASANA_BINARY" >&2
  exit 2
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIP: python3 is not installed (apt-get install python3)"
  exit 77
fi
dir=$(cd "$(dirname "$0")" && pwd)
case $1 in
  /*) binary=$1 ;;
  *) binary=$(pwd)/$1 ;;
esac
VASANA_BINARY=$binary PYTHONDONTWRITEBYTECODE=1 exec python3 -m unittest discover -s "$dir/tests" -v
