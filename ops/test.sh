#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine (as root): install the packages, build,
# run every test. This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
./ops/install-deps.sh
./ops/build.sh
cd build
ctest --output-on-failure --timeout 300
