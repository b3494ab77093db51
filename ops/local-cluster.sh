#!/usr/bin/env bash
# A replicated vasana cluster of N nodes on this machine, for trying replication out and for
# tests. Every node fetches from every other (full mesh) over loopback TCP with CurveZMQ.
#
#   ops/local-cluster.sh up N DIR      start N nodes (1 to 9) in DIR/n0 ... DIR/n<N-1>
#   ops/local-cluster.sh status DIR    `vasana status` of each node (add --json for JSON)
#   ops/local-cluster.sh down DIR      stop them (SIGTERM, SIGKILL after 15 s); the data stays
#   ops/local-cluster.sh stop K DIR    stop node nK only (as down does); the others keep running
#   ops/local-cluster.sh start K DIR   start the stopped node nK again with its data, keys and
#                                      ports; it catches up from its peers as it starts
#
# Each node's folder DIR/nK holds: node.secret and node.public (`vasana keygen`), data/ (the
# data directory, `vasana init`), vasana.toml (its configuration: ops/vasana.example.toml
# explains every key), serve.log (the node's log, appended to) and serve.pid while it runs.
# `up` on a DIR that holds a stopped cluster of N nodes starts it again with its data, keys and
# ports; it refuses a DIR with a running cluster (`start K DIR` starts one node of it). `status`
# names a node stopped with `stop` or `down` as stopped; a node whose process ended by itself
# (serve.pid left behind) is reported as not running and makes the exit code 1.
#
# Environment:
#   VASANA_BIN        the vasana binary (default: ./build/cli/vasana, built with ops/build.sh
#                     when missing)
#   VASANA_PORT_BASE  first port tried (default 17100); node K gets the next two free ports on
#                     127.0.0.1 from there: its peer endpoint and its metrics endpoint
#   VASANA_UP_TIMEOUT seconds `up` waits for every node to answer (default 15)
#   VASANA_DOWN_TIMEOUT seconds `down` waits after SIGTERM before it sends SIGKILL (default 15)
#
# Exit codes: 0 done; 1 a node did not start or stop, or a status failed; 2 bad usage, or
# refused before doing anything (N out of range, a running cluster in DIR, node K not in DIR, K
# already running, ...).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${VASANA_BIN:-$root/build/cli/vasana}
port_base=${VASANA_PORT_BASE:-17100}
up_timeout=${VASANA_UP_TIMEOUT:-15}
down_timeout=${VASANA_DOWN_TIMEOUT:-15}
cluster_id=local
for t in "$up_timeout" "$down_timeout"; do
  [[ $t =~ ^[0-9]+$ ]] || { echo "local-cluster: VASANA_UP_TIMEOUT and VASANA_DOWN_TIMEOUT are seconds (got '$t')" >&2; exit 2; }
done

usage() {
  cat >&2 <<'EOF'
usage: ops/local-cluster.sh up N DIR     start an N-node full-mesh cluster (N from 1 to 9) in DIR
       ops/local-cluster.sh status DIR [--json]
       ops/local-cluster.sh down DIR     stop the cluster's nodes (the data stays)
       ops/local-cluster.sh stop K DIR   stop node nK of the cluster (the data stays)
       ops/local-cluster.sh start K DIR  start the stopped node nK again
EOF
}

die() {  # die CODE MESSAGE
  echo "local-cluster: $2" >&2
  exit "$1"
}

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

# The node folders of a cluster DIR, n0 n1 ... in order (none: prints nothing).
node_dirs() {
  local k
  for k in 0 1 2 3 4 5 6 7 8; do
    [ -f "$1/n$k/vasana.toml" ] || break
    echo "$1/n$k"
  done
}

# The pid of node folder $1's `vasana serve` when it is running, else nothing (and status 1).
# The pid file alone is not trusted: the process must be a vasana serve on this node's data
# directory, and not a zombie.
running_pid() {
  local pidfile=$1/serve.pid pid state cmdline
  [ -f "$pidfile" ] || return 1
  pid=$(<"$pidfile")
  is_uint "$pid" || return 1
  [ -r "/proc/$pid/stat" ] || return 1
  state=$({ sed -E 's/^.*\) ([A-Za-z]).*$/\1/' <"/proc/$pid/stat"; } 2>/dev/null) || return 1
  case "$state" in Z | X) return 1 ;; esac
  cmdline=$({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null) || return 1
  case "$cmdline" in
    *" serve --data $1/data "*) echo "$pid" ;;
    *) return 1 ;;
  esac
}

# True when nothing accepts connections on 127.0.0.1:$1 (bash's /dev/tcp; no other tool needed).
port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

ensure_binary() {
  if [ -n "${VASANA_BIN:-}" ]; then
    [ -x "$bin" ] || die 2 "VASANA_BIN=$bin is not an executable file"
    return
  fi
  if [ ! -x "$bin" ]; then
    echo "local-cluster: $bin is missing; building it with ops/build.sh" >&2
    "$root/ops/build.sh" >&2
    [ -x "$bin" ] || die 1 "ops/build.sh did not produce $bin"
  fi
}

# The ports a node's configuration names: "PEER METRICS".
config_ports() {
  local peer metrics
  peer=$(sed -n -E 's|^listen = "tcp://127\.0\.0\.1:([0-9]+)"$|\1|p' "$1")
  metrics=$(sed -n -E 's|^listen = "127\.0\.0\.1:([0-9]+)"$|\1|p' "$1")
  if [ -z "$peer" ] || [ -z "$metrics" ]; then
    die 1 "$1: no peer or metrics port found (not written by this script?)"
  fi
  echo "$peer $metrics"
}

# Starts node folder $1's `vasana serve` in the background; its pid goes to serve.pid.
launch_node() {
  local d=$1
  echo "--- $(date -u +%Y-%m-%dT%H:%M:%SZ) local-cluster.sh start" >>"$d/serve.log"
  nohup "$bin" serve --data "$d/data" --config "$d/vasana.toml" >>"$d/serve.log" 2>&1 </dev/null &
  echo "$!" >"$d/serve.pid"
}

# Waits until every node folder given answers `vasana status` (at most up_timeout seconds).
# Status 1, with the reason on stderr, when one stopped or did not answer in time.
await_answers() {
  local deadline=$((SECONDS + up_timeout)) d waiting
  while :; do
    waiting=()
    for d in "$@"; do
      if ! running_pid "$d" >/dev/null; then
        echo "local-cluster: ${d##*/} stopped while starting; the end of $d/serve.log:" >&2
        tail -n 15 "$d/serve.log" >&2
        return 1
      fi
      timeout 5 "$bin" status --data "$d/data" >/dev/null 2>&1 || waiting+=("${d##*/}")
    done
    [ "${#waiting[@]}" -eq 0 ] && return 0
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "local-cluster: ${waiting[*]} did not answer within ${up_timeout} s; see their serve.log" >&2
      return 1
    fi
    sleep 0.2
  done
}

# Stops the running nodes among the node folders given: SIGTERM, then SIGKILL for any still
# running after down_timeout seconds. Prints the names of the nodes it stopped (one line, empty
# when none ran); status 1 when one survived SIGKILL.
stop_nodes() {
  local d pid stopping=()
  for d in "$@"; do
    if pid=$(running_pid "$d"); then
      kill -TERM "$pid" 2>/dev/null || true
      stopping+=("$d")
    else
      rm -f "$d/serve.pid"
    fi
  done
  if [ "${#stopping[@]}" -eq 0 ]; then
    echo
    return 0
  fi

  local deadline=$((SECONDS + down_timeout)) left rc=0
  while :; do
    left=()
    for d in "${stopping[@]}"; do running_pid "$d" >/dev/null && left+=("$d"); done
    [ "${#left[@]}" -eq 0 ] && break
    if [ "$SECONDS" -ge "$deadline" ]; then
      for d in "${left[@]}"; do
        if pid=$(running_pid "$d"); then
          echo "local-cluster: ${d##*/} (pid $pid) did not stop within ${down_timeout} s of SIGTERM; SIGKILL" >&2
          kill -KILL "$pid" 2>/dev/null || true
        fi
      done
      sleep 1
      for d in "${left[@]}"; do
        if pid=$(running_pid "$d"); then
          echo "local-cluster: ${d##*/} (pid $pid) is still running after SIGKILL" >&2
          rc=1
        fi
      done
      break
    fi
    sleep 0.1
  done
  for d in "${stopping[@]}"; do
    running_pid "$d" >/dev/null || rm -f "$d/serve.pid"
  done
  echo "${stopping[*]##*/}"
  return "$rc"
}

# The cluster folder $1 as an absolute path; exits 2 unless it holds a cluster of this script.
cluster_dir() {
  [ -d "$1" ] || die 2 "$1 is not a directory"
  local dir
  dir=$(cd "$1" && pwd -P)
  [ -f "$dir/n0/vasana.toml" ] || die 2 "$dir holds no cluster of this script (no $dir/n0/vasana.toml)"
  echo "$dir"
}

write_config() {  # write_config K N DIR PORTS... KEYS...
  local k=$1 n=$2 dir=$3 j
  shift 3
  local -a ports=("${@:1:2*n}") keys=("${@:2*n+1:n}")
  {
    echo "# Written by ops/local-cluster.sh: node n$k of a $n-node full mesh on 127.0.0.1."
    echo "# Every key is explained in ops/vasana.example.toml."
    echo
    echo "[sync]"
    echo "cluster = \"$cluster_id\""
    echo "listen = \"tcp://127.0.0.1:${ports[2*k]}\""
    echo "secret_key_file = \"node.secret\"  # relative to this file's folder"
    echo "peers = ["
    for ((j = 0; j < n; j++)); do
      [ "$j" -eq "$k" ] && continue
      echo "  { address = \"tcp://127.0.0.1:${ports[2*j]}\", public_key = \"${keys[j]}\" },  # n$j"
    done
    echo "]"
    echo
    echo "[metrics]"
    echo "listen = \"127.0.0.1:${ports[2*k+1]}\""
  } >"$dir/n$k/vasana.toml"
}

cmd_up() {
  [ "$#" -eq 2 ] || { usage; exit 2; }
  local n=$1 dir=$2
  [[ $n =~ ^[1-9]$ ]] || die 2 "N must be a number from 1 to 9 (got '$n')"
  if ! is_uint "$port_base" || [ "$port_base" -lt 1024 ] || [ "$port_base" -gt 65000 ]; then
    die 2 "VASANA_PORT_BASE must be a number from 1024 to 65000 (got '$port_base')"
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd -P)
  # The client socket DIR/nK/data/client.sock must fit a Unix socket path (107 bytes).
  [ $((${#dir} + 24)) -le 107 ] || die 2 "$dir is too long a path for the nodes' IPC sockets; use a shorter DIR"

  local -a nodes
  mapfile -t nodes < <(node_dirs "$dir")
  local d pid
  for d in "${nodes[@]}"; do
    if pid=$(running_pid "$d"); then
      die 2 "$dir already holds a running cluster (${d##*/} is pid $pid); stop it first: $0 down $dir"
    fi
  done
  if [ "${#nodes[@]}" -gt 0 ] && [ "${#nodes[@]}" -ne "$n" ]; then
    die 2 "$dir holds a stopped ${#nodes[@]}-node cluster; start it with '$0 up ${#nodes[@]} $dir', or use a new DIR"
  fi
  if [ "${#nodes[@]}" -eq 0 ] && [ -n "$(ls -A "$dir")" ]; then
    die 2 "$dir is not empty and holds no cluster of this script; use a new or empty DIR"
  fi
  ensure_binary

  local k p
  local -a ports=() keys=()
  if [ "${#nodes[@]}" -eq 0 ]; then
    # A new cluster: keys, data directories, free ports, configurations.
    p=$port_base
    for ((k = 0; k < n; k++)); do
      "$bin" keygen --out "$dir/n$k" >/dev/null
      "$bin" init --data "$dir/n$k/data" >/dev/null
      keys+=("$(sed -n 's/^public = "\(.*\)"$/\1/p' "$dir/n$k/node.public")")
      [ -n "${keys[k]}" ] || die 1 "$dir/n$k/node.public holds no public key"
      local got=0
      while [ "$got" -lt 2 ]; do
        [ "$p" -le 65535 ] || die 1 "no free ports on 127.0.0.1 from $port_base up"
        if port_free "$p"; then
          ports+=("$p")
          got=$((got + 1))
        fi
        p=$((p + 1))
      done
    done
    for ((k = 0; k < n; k++)); do write_config "$k" "$n" "$dir" "${ports[@]}" "${keys[@]}"; done
  else
    # A stopped cluster: the same ports again, which must be free.
    local pair
    for ((k = 0; k < n; k++)); do
      read -r -a pair <<<"$(config_ports "$dir/n$k/vasana.toml")"
      for p in "${pair[@]}"; do
        port_free "$p" || die 1 "port $p of n$k (in $dir/n$k/vasana.toml) is taken by another process"
      done
      ports+=("${pair[@]}")
    done
  fi

  # Start every node in the background; each answers once its client endpoint is up.
  local -a started=()
  for ((k = 0; k < n; k++)); do
    launch_node "$dir/n$k"
    started+=("$dir/n$k")
  done
  if ! await_answers "${started[@]}"; then
    cmd_down "$dir" >&2 || true
    exit 1
  fi

  echo "local cluster: $n node(s) in $dir, full mesh, cluster id \"$cluster_id\""
  for ((k = 0; k < n; k++)); do
    d=$dir/n$k
    echo
    echo "n$k"
    echo "  data dir         $d/data"
    echo "  client endpoint  $(head -n 1 "$d/data/client.endpoint")"
    echo "  peer endpoint    tcp://127.0.0.1:${ports[2*k]}"
    echo "  metrics          http://127.0.0.1:${ports[2*k+1]}/metrics"
    echo "  config, log, pid $d/vasana.toml, $d/serve.log, $(<"$d/serve.pid")"
  done
  local last=$((n - 1)) qbin qdir qself
  qbin=$(printf %q "$bin")
  qdir=$(printf %q "$dir")
  qself=$(printf %q "$0")
  cat <<EOF

try:
  $qbin remember --data $qdir/n0/data --realm demo "the staging cluster is in eu-west-1"
  $qbin recall --data $qdir/n$last/data --realm demo "where is staging"
  $qbin status --data $qdir/n$last/data
  curl -s http://127.0.0.1:${ports[2*last+1]}/metrics | grep -E 'vasana_(peer_up|replication_lag_ops)'
  $qself status $qdir
  $qself stop $last $qdir; $qself start $last $qdir
  $qself down $qdir
EOF
}

cmd_down() {
  [ "$#" -eq 1 ] || { usage; exit 2; }
  local dir
  dir=$(cluster_dir "$1") || exit $?
  local -a nodes
  mapfile -t nodes < <(node_dirs "$dir")

  local names rc=0
  names=$(stop_nodes "${nodes[@]}") || rc=1
  if [ -z "$names" ]; then
    echo "local-cluster: no node of $dir is running"
    return "$rc"
  fi
  echo "local-cluster: stopped $names in $dir (data kept; '$0 up ${#nodes[@]} $dir' starts them again)"
  return "$rc"
}

# The node folder DIR/nK of `stop K DIR` and `start K DIR`; exits 2 when there is none.
node_of() {  # node_of COMMAND K DIR
  [[ $2 =~ ^[0-8]$ ]] || die 2 "$1: K must be a node number from 0 to 8 (got '$2')"
  local dir
  dir=$(cluster_dir "$3") || exit $?
  [ -f "$dir/n$2/vasana.toml" ] || die 2 "$1: $dir holds no node n$2"
  echo "$dir/n$2"
}

cmd_stop() {
  [ "$#" -eq 2 ] || { usage; exit 2; }
  local d names rc=0
  d=$(node_of stop "$1" "$2") || exit $?
  names=$(stop_nodes "$d") || rc=1
  if [ -z "$names" ]; then
    echo "local-cluster: n$1 of ${d%/*} is not running"
    return "$rc"
  fi
  echo "local-cluster: stopped n$1 in ${d%/*} (data kept; '$0 start $1 ${d%/*}' starts it again)"
  return "$rc"
}

cmd_start() {
  [ "$#" -eq 2 ] || { usage; exit 2; }
  local d pid p
  d=$(node_of start "$1" "$2") || exit $?
  if pid=$(running_pid "$d"); then
    die 2 "start: n$1 of ${d%/*} is already running (pid $pid)"
  fi
  ensure_binary
  local -a pair
  read -r -a pair <<<"$(config_ports "$d/vasana.toml")"
  for p in "${pair[@]}"; do
    port_free "$p" || die 1 "port $p of n$1 (in $d/vasana.toml) is taken by another process"
  done
  launch_node "$d"
  if ! await_answers "$d"; then
    stop_nodes "$d" >/dev/null || true
    exit 1
  fi
  echo "local-cluster: started n$1 in ${d%/*} (pid $(<"$d/serve.pid")); it fetches what it missed from its peers"
}

cmd_status() {
  if [ "$#" -lt 1 ] || [ "$#" -gt 2 ]; then
    usage
    exit 2
  fi
  local dir=$1 json=()
  if [ "$#" -eq 2 ]; then
    [ "$2" = --json ] || die 2 "status: unknown option '$2' (only --json)"
    json=(--json)
  fi
  dir=$(cluster_dir "$dir") || exit $?
  local -a nodes
  mapfile -t nodes < <(node_dirs "$dir")
  [ -x "$bin" ] || die 1 "$bin is missing (build it with ops/build.sh, or set VASANA_BIN)"
  local d rc=0
  for d in "${nodes[@]}"; do
    if running_pid "$d" >/dev/null; then
      echo "=== ${d##*/}: $d/data"
      "$bin" status "${json[@]}" --data "$d/data" || rc=1
    elif [ -f "$d/serve.pid" ]; then
      echo "=== ${d##*/}: $d/data: NOT RUNNING (it ended without stop or down; see $d/serve.log)"
      rc=1
    else
      echo "=== ${d##*/}: $d/data: stopped"
    fi
    echo
  done
  return "$rc"
}

[ "$#" -ge 1 ] || { usage; exit 2; }
command=$1
shift
case "$command" in
  up) cmd_up "$@" ;;
  down) cmd_down "$@" ;;
  status) cmd_status "$@" ;;
  stop) cmd_stop "$@" ;;
  start) cmd_start "$@" ;;
  -h | --help | help) usage ;;
  *)
    echo "local-cluster: unknown command '$command' (up, status, down, stop, start)" >&2
    usage
    exit 2
    ;;
esac
