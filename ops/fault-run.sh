#!/bin/sh
# Seeded fault runs, one after another, at low priority: each runs `vasana-fault --seed S` (N
# real nodes under a seeded schedule of SIGKILL/restart, SIGSTOP, full disk, clock skew, flipped
# segment bytes, and partitions, one-way links, delays and flipped bytes on peer links, then
# every acknowledged write checked on every node). Prints one line
# per run and a summary: runs, seeds, and for each failure the seed and the command that
# replays it. Exit 0 when every run passed, 1 when one failed, 2 for bad usage.
#
#   ops/fault-run.sh [--first SEED] [--count N] [--nodes N] [--duration SECONDS] [--clients C]
#                    [--logs DIR] [--binary PATH]
# Defaults: --first 1 --count 10 --nodes 3 --duration 30; nodes cycle 3..7 with --nodes cycle.
# Each run's output goes to DIR/seed-S.log (default ./fault-logs); passing runs' logs are kept.
set -eu

first=1 count=10 nodes=3 duration=30 clients=4 logs=./fault-logs
binary=$(dirname "$0")/../build/tests/vasana-fault
usage() { sed -n '7,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --first) first=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --logs) logs=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    *) echo "fault-run.sh: unknown option $1" >&2; usage ;;
  esac
done
case "$first$count$duration$clients" in *[!0-9]*) echo "fault-run.sh: numbers expected" >&2; usage ;; esac
[ -x "$binary" ] || { echo "fault-run.sh: no runner at $binary (build it: ninja -C build vasana-fault)" >&2; exit 2; }
mkdir -p "$logs"

runs=0 passed=0 failed=0 failures="" seeds=""
seed=$first
end=$((first + count))
while [ "$seed" -lt "$end" ]; do
  n=$nodes
  [ "$nodes" = cycle ] && n=$((3 + seed % 5))
  log="$logs/seed-$seed.log"
  start=$(date +%s)
  if nice -n 10 "$binary" --seed "$seed" --nodes "$n" --duration "$duration" --clients "$clients" >"$log" 2>&1; then
    rc=0
  else
    rc=$?
  fi
  secs=$(( $(date +%s) - start ))
  runs=$((runs + 1))
  seeds="$seeds $seed"
  summary=$(grep -o 'history: [0-9]* ops' "$log" | head -1 || true)
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
    echo "seed $seed nodes $n: PASS in ${secs}s ($summary)"
  else
    failed=$((failed + 1))
    cmd="$binary --seed $seed --nodes $n --duration $duration --clients $clients"
    failures="$failures
  seed $seed (exit $rc): $cmd   log: $log"
    echo "seed $seed nodes $n: FAIL (exit $rc) in ${secs}s; replay: $cmd"
    grep 'VIOLATION' "$log" | head -5 | sed 's/^/    /'
  fi
  seed=$((seed + 1))
done

echo "fault runs: $runs, passed $passed, failed $failed; seeds:$seeds"
[ "$failed" -eq 0 ] && exit 0
echo "failures (each replays with its command):$failures"
exit 1
