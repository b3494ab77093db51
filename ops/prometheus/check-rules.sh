#!/usr/bin/env bash
# Checks the alert rules (promtool check rules) and runs their unit tests (promtool test rules).
# promtool comes with Debian's prometheus package (ops/install-deps.sh). Exit 0 when both pass.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v promtool >/dev/null 2>&1; then
  echo "check-rules: promtool not found; install Debian's prometheus package (ops/install-deps.sh)" >&2
  exit 1
fi
promtool check rules alerts.yml
promtool test rules alerts_test.yml
