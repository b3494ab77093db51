#!/usr/bin/env bash
# Long runs of the libFuzzer targets of tests/fuzz, and the regeneration of their seed corpora.
#
#   ops/fuzz.sh TARGET SECONDS   run one target (segment, op, client_request, peer_message, http_request)
#   ops/fuzz.sh all SECONDS      run each target in turn for SECONDS
#   ops/fuzz.sh corpus           rewrite tests/fuzz/corpus/* with the production encoders
#
# Builds the targets with clang in build/fuzz (through the main build's fuzz_targets when ./build
# is configured).
# Inputs a run finds are kept in build/fuzz/long/TARGET/corpus, so the next long run starts from
# them; a crash stops the run (exit status non-zero) and its input is written to
# build/fuzz/long/TARGET/crash-*. Replay one with: build/fuzz/TARGET_fuzz FILE
# VASANA_TEST_SEED sets libFuzzer's seed; FUZZ_ARGS adds libFuzzer options (e.g. "-jobs=2").
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=$root/build/fuzz
targets=(segment op client_request peer_message http_request)

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# Through the main build when it is configured (its fuzz_targets step owns build/fuzz), else alone.
build_targets() {
  if [ -f build/build.ninja ]; then
    cmake --build build --target fuzz_targets >/dev/null
  else
    if [ ! -f "$build/build.ninja" ]; then
      cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_C_COMPILER="$(command -v clang)" \
        -DCMAKE_CXX_COMPILER="$(command -v clang++)" >/dev/null
    fi
    cmake --build "$build" -j 2 >/dev/null
  fi
}

run_target() {
  local target=$1 seconds=$2
  local work=$build/long/$target
  mkdir -p "$work/corpus"
  local seed_arg=()
  if [ -n "${VASANA_TEST_SEED:-}" ]; then seed_arg=(-seed="$VASANA_TEST_SEED"); fi
  echo "fuzz: $target for $seconds s; new inputs in $work/corpus" >&2
  # shellcheck disable=SC2086
  "$build/${target}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" "${seed_arg[@]}" ${FUZZ_ARGS:-} "$work/corpus" "tests/fuzz/corpus/$target"
}

[ $# -ge 1 ] || usage
case "$1" in
  corpus)
    [ $# -eq 1 ] || usage
    build_targets
    cmake --build "$build" --target fuzz_corpus_gen >/dev/null
    "$build/fuzz_corpus_gen" tests/fuzz/corpus
    echo "fuzz: seed corpora written to tests/fuzz/corpus" >&2
    ;;
  all)
    [ $# -eq 2 ] || usage
    build_targets
    for t in "${targets[@]}"; do run_target "$t" "$2"; done
    ;;
  *)
    [ $# -eq 2 ] || usage
    printf '%s\n' "${targets[@]}" | grep -qx "$1" || { echo "fuzz: unknown target $1 (one of: ${targets[*]})" >&2; exit 2; }
    [[ "$2" =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS must be a whole number, not $2" >&2; exit 2; }
    build_targets
    run_target "$1" "$2"
    ;;
esac
