#!/bin/sh
# Runs one fuzz target for a bounded time: its seed corpus first (every seed, and every input
# that once crashed, must pass), then mutations. Exit status non-zero on a crash, a sanitizer
# report or a broken invariant; the input is kept in WORK_DIR.
# Usage: run_fuzz.sh TARGET_BINARY SEED_DIR WORK_DIR SECONDS
# VASANA_TEST_SEED, when set, is libFuzzer's seed (the run prints the one it used).
set -eu
binary=$1 seeds=$2 work=$3 seconds=$4
if [ ! -x "$binary" ]; then
  echo "run_fuzz: $binary is not built (the fuzz_targets target of the main build builds it)" >&2
  exit 1
fi
rm -rf "$work/corpus"
mkdir -p "$work/corpus"
seed_arg=""
if [ -n "${VASANA_TEST_SEED:-}" ]; then seed_arg="-seed=$VASANA_TEST_SEED"; fi
# New inputs go to the first directory (a scratch copy): the committed seeds stay as they are.
exec "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/" $seed_arg "$work/corpus" "$seeds"
