#!/usr/bin/env bash
# Configures and builds vasana in ./build (RelWithDebInfo, Ninja, -j2). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j2
