#!/usr/bin/env bash
# A replicated vasana cluster of N nodes on this machine, for trying replication out and for
# tests. Every node fetches from every other (full mesh) over loopback TCP with CurveZMQ.
#
#   ops/local-cluster.sh up N DIR      start N nodes (1 to 9) in DIR/n0 ... DIR/n<N-1>
#   ops/local-cluster.sh status DIR    `vasana status` of each node (add --json for JSON)
#   ops/local-cluster.sh down DIR      stop them (SIGTERM, SIGKILL after 15 s); the data stays
#
# Each node's folder DIR/nK holds: node.secret and node.public (`vasana keygen`), data/ (the
# data directory, `vasana init`), vasana.toml (its configuration: ops/vasana.example.toml
# explains every key), serve.log (the node's log, appended to) and serve.pid while it runs.
# `up` on a DIR that holds a stopped cluster of N nodes starts it again with its data, keys and
# ports; it refuses a DIR with a running cluster.
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
# refused before doing anything (N out of range, a running cluster in DIR, ...).
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
  for ((k = 0; k < n; k++)); do
    d=$dir/n$k
    echo "--- $(date -u +%Y-%m-%dT%H:%M:%SZ) local-cluster.sh up" >>"$d/serve.log"
    nohup "$bin" serve --data "$d/data" --config "$d/vasana.toml" >>"$d/serve.log" 2>&1 </dev/null &
    echo "$!" >"$d/serve.pid"
  done

  local deadline=$((SECONDS + up_timeout)) waiting
  while :; do
    waiting=()
    for ((k = 0; k < n; k++)); do
      d=$dir/n$k
      if ! running_pid "$d" >/dev/null; then
        echo "local-cluster: n$k stopped while starting; the end of $d/serve.log:" >&2
        tail -n 15 "$d/serve.log" >&2
        cmd_down "$dir" >&2 || true
        exit 1
      fi
      timeout 5 "$bin" status --data "$d/data" >/dev/null 2>&1 || waiting+=("n$k")
    done
    [ "${#waiting[@]}" -eq 0 ] && break
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "local-cluster: ${waiting[*]} did not answer within ${up_timeout} s; see $dir/nK/serve.log" >&2
      cmd_down "$dir" >&2 || true
      exit 1
    fi
    sleep 0.2
  done

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
  $qself down $qdir
EOF
}

cmd_down() {
  [ "$#" -eq 1 ] || { usage; exit 2; }
  local dir=$1
  [ -d "$dir" ] || die 2 "$dir is not a directory"
  dir=$(cd "$dir" && pwd -P)
  local -a nodes
  mapfile -t nodes < <(node_dirs "$dir")
  [ "${#nodes[@]}" -gt 0 ] || die 2 "$dir holds no cluster of this script (no $dir/n0/vasana.toml)"

  local d pid stopping=()
  for d in "${nodes[@]}"; do
    if pid=$(running_pid "$d"); then
      kill -TERM "$pid" 2>/dev/null || true
      stopping+=("$d")
    else
      rm -f "$d/serve.pid"
    fi
  done
  if [ "${#stopping[@]}" -eq 0 ]; then
    echo "local-cluster: no node of $dir is running"
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
  local names=("${stopping[@]##*/}")
  echo "local-cluster: stopped ${names[*]} in $dir (data kept; '$0 up ${#nodes[@]} $dir' starts them again)"
  return "$rc"
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
  [ -d "$dir" ] || die 2 "$dir is not a directory"
  dir=$(cd "$dir" && pwd -P)
  local -a nodes
  mapfile -t nodes < <(node_dirs "$dir")
  [ "${#nodes[@]}" -gt 0 ] || die 2 "$dir holds no cluster of this script (no $dir/n0/vasana.toml)"
  [ -x "$bin" ] || die 1 "$bin is missing (build it with ops/build.sh, or set VASANA_BIN)"
  local d rc=0
  for d in "${nodes[@]}"; do
    echo "=== ${d##*/}: $d/data"
    "$bin" status "${json[@]}" --data "$d/data" || rc=1
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
  -h | --help | help) usage ;;
  *)
    echo "local-cluster: unknown command '$command' (up, status, down)" >&2
    usage
    exit 2
    ;;
esac
