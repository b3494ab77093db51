#!/usr/bin/env bash
# Recall quality of the real vasana binary on every collection of shared/eval (Cranfield, MED,
# CACM, LongMemEval turns and sessions), side by side with Xapian BM25 in the same run, and the
# KNOWN/UNKNOWN verdict on answerable and unanswerable queries; and agent-memory, whose realms'
# ops (remember, update, correct, forget, supersede) are replayed through the CLI and scored on
# whether recall gives the current memory and keeps stale ones out. Prints one table and the
# agent-memory block; runs, summary.json, table.md and verdict.tsv go to build/eval/.
# docs/eval.md explains it.
#
# usage: ops/eval.sh [--collections a,b] [--out DIR] [--binary PATH] [--eval-data DIR]
#                    [--verdict-sample N] [--skip-verdict] [--threshold X]
# Installs python3-xapian if Debian's /usr/bin/python3 lacks it, and builds vasana
# (./ops/build.sh) when --binary is not given and build/cli/vasana is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=$([ "$(id -u)" = 0 ] || echo sudo)

# Debian's module lives in the system interpreter, whatever python3 is first on PATH.
if ! /usr/bin/python3 -c 'import xapian' 2>/dev/null; then
  $sudo apt-get install -y python3-xapian || { $sudo apt-get update && $sudo apt-get install -y python3-xapian; }
fi

binary_given=
for arg in "$@"; do
  case "$arg" in --binary|--binary=*) binary_given=1 ;; esac
done
if [ -z "$binary_given" ] && [ ! -x build/cli/vasana ]; then
  ./ops/build.sh
fi

exec /usr/bin/python3 tests/eval/eval_harness.py "$@"
