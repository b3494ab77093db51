#!/usr/bin/env bash
# The Debian package end to end: packs the vasana binary of an already built build directory
# (ops/package.sh --build-dir: nothing is configured or built there, the binary is stripped in
# the package, lintian runs when installed and fails the test on an error), installs it with
# apt-get, checks what it installed, runs the installed binary as the user vasana the way the
# systemd unit does, remembers and recalls through it, stops it with SIGTERM, purges the package
# and checks what the purge removes and what it keeps.
#
#   tests/package/package_test.sh VASANA_BUILD_DIR
#
# Exit 0 passed, 1 failed, 77 skipped (not root, apt-get / dpkg / cpack missing, or a vasana
# package, user, group, /etc/vasana or /var/lib/vasana there already: it would install over them
# and remove them afterwards). It removes everything it made, also when it fails or is
# interrupted.
set -uo pipefail

build_dir="${1:-}"
if [ -z "$build_dir" ] || [ ! -d "$build_dir" ]; then
  echo "usage: $0 VASANA_BUILD_DIR (a configured build directory with cli/vasana built)" >&2
  exit 2
fi
build_dir="$(cd "$build_dir" && pwd)"
repo="$(cd "$(dirname "$0")/../.." && pwd)"

if [ "$(id -u)" != 0 ]; then
  echo "SKIP: the package test installs a package and runs as root"
  exit 77
fi
for tool in apt-get dpkg dpkg-query dpkg-deb cpack runuser setpriv timeout; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool is not installed"
    exit 77
  fi
done

# What the test would install over, and remove afterwards, must not be someone else's.
refuse=""
status="$(dpkg-query -W -f='${db:Status-Status}' vasana 2>/dev/null || true)"
[ -z "$status" ] || [ "$status" = not-installed ] || refuse+=" the package vasana ($status);"
getent passwd vasana >/dev/null && refuse+=" the user vasana;"
getent group vasana >/dev/null && refuse+=" the group vasana;"
[ -e /etc/vasana ] && refuse+=" /etc/vasana;"
[ -e /var/lib/vasana ] && refuse+=" /var/lib/vasana;"
if [ -n "$refuse" ]; then
  # A host where vasana is installed (e.g. from this package) is not one to test it on: skipped,
  # with what is in the way, rather than installed over and purged.
  echo "SKIP: this host already has$refuse the package test installs and purges them"
  exit 77
fi

export DEBIAN_FRONTEND=noninteractive
apt_opts=(-y -q -o DPkg::Lock::Timeout=120 --no-install-recommends)
config=/etc/vasana/vasana.toml
data=/var/lib/vasana/data
work="$(mktemp -d /tmp/vasana-package-test.XXXXXX)"
chmod 0755 "$work"
server_pid=""
failures=0

log() { echo "package_test: $*"; }
fail() { echo "package_test: FAIL: $*" >&2; failures=$((failures + 1)); }
check() {  # check DESCRIPTION COMMAND...: runs the command, a failure is counted
  local what="$1"; shift
  if "$@"; then log "ok: $what"; else fail "$what"; fi
}
not() { ! "$@"; }
now_ms() { date +%s%3N; }
# A client command as the user vasana, the node's owner.
as_vasana() { (cd / && timeout 30 runuser -u vasana -- /usr/bin/vasana "$@"); }
line_in() { grep -qxF "$1" <<<"$2"; }       # line_in LINE TEXT
text_in() { grep -qF "$1" <<<"$2"; }        # text_in STRING TEXT
unstripped() { readelf -S "$1" | grep -qE '\.symtab|\.debug_'; }
gzip_9n() {  # no file name and no time stamp in the header (FLG and MTIME are 0), and whole
  [ "$(od -An -tx1 -j3 -N5 "$1" | tr -d ' \n')" = 0000000000 ] && gzip -t "$1"
}
system_user() {  # the user vasana: a system uid, home /var/lib/vasana, no login shell
  local e uid home shell; e="$(getent passwd vasana)" || return 1
  IFS=: read -r _ _ uid _ _ home shell <<<"$e"
  [ "$uid" -lt 1000 ] && [ "$home" = /var/lib/vasana ] && [ "$shell" = /usr/sbin/nologin ]
}
mode_is() { [ "$(stat -c "$2" "$1")" = "$3" ]; }  # mode_is PATH FORMAT EXPECTED
not_installed() {
  local st; st="$(dpkg-query -W -f='${db:Status-Status}' vasana 2>/dev/null)"
  [ -z "$st" ] || [ "$st" = not-installed ]
}

stop_server() {
  [ -n "$server_pid" ] || return 0
  if kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null
    for _ in $(seq 1 300); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null
  fi
  wait "$server_pid" 2>/dev/null
  server_pid=""
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_server
  local st
  st="$(dpkg-query -W -f='${db:Status-Status}' vasana 2>/dev/null || true)"
  if [ -n "$st" ] && [ "$st" != not-installed ]; then
    log "cleanup: purging the package"
    timeout 300 apt-get purge "${apt_opts[@]}" vasana >/dev/null 2>&1 || timeout 300 dpkg --purge vasana >/dev/null 2>&1
  fi
  # The checks at the start make these the test's own.
  getent passwd vasana >/dev/null && userdel vasana 2>/dev/null
  getent group vasana >/dev/null && groupdel vasana 2>/dev/null
  rm -rf /etc/vasana /var/lib/vasana /etc/systemd/system/multi-user.target.wants/vasana.service \
         /var/lib/systemd/deb-systemd-helper-enabled/vasana.service.dsh-also \
         /var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants/vasana.service \
         /var/lib/systemd/deb-systemd-helper-masked/vasana.service
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# 1. Pack the build directory's binary (lintian too, when installed: an error fails here).
log "packing $build_dir/cli/vasana"
if ! timeout 600 "$repo/ops/package.sh" --build-dir "$build_dir" --out "$work" >"$work/package.log" 2>&1; then
  cat "$work/package.log" >&2
  fail "ops/package.sh --build-dir $build_dir"
  exit 1
fi
cat "$work/package.log"
deb="$(tail -n 1 "$work/package.log")"
case "$(basename "$deb")" in
  vasana_*_*.deb) log "package: $(basename "$deb")" ;;
  *) fail "no package path from ops/package.sh"; exit 1 ;;
esac
if command -v lintian >/dev/null 2>&1; then
  check "lintian reports no error" not grep -q '^E: ' "$work/package.log"
else
  log "lintian is not installed: not run"
fi

# 2. Install it as an operator would.
log "apt-get install $deb"
if ! timeout 600 apt-get install "${apt_opts[@]}" "$deb" >"$work/install.log" 2>&1; then
  cat "$work/install.log" >&2
  fail "apt-get install $deb"
  exit 1
fi
installed_ms="$(now_ms)"

# 3. The installed binary, started at once: it must serve within 10 s of the install.
: >"$work/serve.log"
# As the unit runs it: user and group vasana, umask 0077, no new privileges, no capabilities, a
# clean environment. setpriv execs (no process in between), so the signal below reaches vasana.
(cd / && umask 0077 && exec setpriv --reuid=vasana --regid=vasana --init-groups --reset-env --nnp \
   --bounding-set=-all -- /usr/bin/vasana serve --config "$config") >>"$work/serve.log" 2>&1 &
server_pid=$!
ready=0
deadline=$(( $(now_ms) + 10000 ))
while [ "$(now_ms)" -lt "$deadline" ]; do
  if grep -q " vasana: ready: " "$work/serve.log"; then ready=1; break; fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.05
done
ready_ms=$(( $(now_ms) - installed_ms ))
if [ "$ready" = 1 ]; then
  log "ok: ready ${ready_ms} ms after apt-get install returned (limit 10000 ms)"
else
  cat "$work/serve.log" >&2
  fail "the node was not ready within 10 s of the install (${ready_ms} ms)"
  exit 1
fi
check "the node runs as the user vasana" test "$(ps -o user= -p "$server_pid" | tr -d ' ')" = vasana
check "the client socket is the user's only (0600)" mode_is "$data/client.sock" '%U %a' 'vasana 600'

# 4. What it installed, and where.
for f in /usr/bin/vasana /lib/systemd/system/vasana.service /etc/vasana/vasana.toml \
         /usr/share/doc/vasana/copyright /usr/share/doc/vasana/changelog.Debian.gz \
         /usr/share/man/man1/vasana.1.gz /usr/share/doc/vasana/examples/vasana.example.toml; do
  check "$f is installed" test -f "$f"
done
check "/usr/bin/vasana is executable" test -x /usr/bin/vasana
check "/usr/bin/vasana is stripped" not unstripped /usr/bin/vasana
check "vasana --version names the version" text_in "$(dpkg-query -W -f='${Version}' vasana | cut -d- -f1)" "$(timeout 10 /usr/bin/vasana --version)"
check "the man page is gzip -9n" gzip_9n /usr/share/man/man1/vasana.1.gz
check "changelog.Debian.gz is gzip -9n" gzip_9n /usr/share/doc/vasana/changelog.Debian.gz
check "the copyright file is machine-readable (DEP-5)" \
  grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' /usr/share/doc/vasana/copyright
unit=/lib/systemd/system/vasana.service
for line in "User=vasana" "Group=vasana" "Type=notify" \
            "ExecStart=/usr/bin/vasana serve --config /etc/vasana/vasana.toml" \
            "StateDirectory=vasana" "StateDirectoryMode=0750" "ReadWritePaths=/var/lib/vasana" \
            "ProtectSystem=strict" "NoNewPrivileges=true" "CapabilityBoundingSet=" "UMask=0077"; do
  check "the unit has $line" line_in "$line" "$(cat "$unit")"
done
if command -v systemd-analyze >/dev/null 2>&1; then
  analyze_out="$(timeout 60 systemd-analyze verify --man=no "$unit" 2>&1)"; analyze_rc=$?
  [ -z "$analyze_out" ] || printf '%s\n' "$analyze_out"
  check "systemd-analyze verify accepts the installed unit without a warning" \
    test "$analyze_rc:$analyze_out" = "0:"
fi
check "$config names the data directory" line_in "data_dir = \"$data\"" "$(cat "$config")"
conffiles="$(dpkg-query -W -f='${Conffiles}' vasana)"
check "$config is a conffile" grep -qE "^ $config [0-9a-f]{32}\$" <<<"$conffiles"
check "the user vasana exists, a system user without a login shell" system_user
check "the group vasana exists and is the user's" test "$(id -gn vasana)" = vasana
check "/var/lib/vasana is vasana:vasana 0750" mode_is /var/lib/vasana '%U:%G %a' 'vasana:vasana 750'
check "$data was initialised by the postinst" test -f "$data/identity"
check "$data is the user's only (0700)" mode_is "$data" '%U %a' 'vasana 700'
if command -v deb-systemd-helper >/dev/null 2>&1; then
  check "the unit is enabled (multi-user.target.wants)" \
    test -L /etc/systemd/system/multi-user.target.wants/vasana.service
fi

# 5. remember and recall as the user vasana (the node's owner).
text="the package test remembers that the staging cluster is in eu-west-1"
if id=$(as_vasana remember --config "$config" --realm package-test "$text" 2>"$work/remember.err"); then
  log "ok: remember printed $id"
  check "remember printed a memory id" grep -qxE '[0-9a-f]+-[0-9]+' <<<"$id"
else
  cat "$work/remember.err" >&2
  fail "remember as the user vasana"
fi
query="which region is the staging cluster in"
recall_out="$(as_vasana recall --config "$config" --realm package-test "$query" 2>&1)"; recall_rc=$?
printf '%s\n' "$recall_out"
check "recall in the realm answers (exit 0)" test "$recall_rc" = 0
check "recall in the realm returns the remembered text" text_in "$text" "$recall_out"
other_out="$(as_vasana recall --config "$config" --realm another-realm "$query" 2>&1)"; other_rc=$?
check "recall in another realm answers (exit 0)" test "$other_rc" = 0
check "recall in another realm does not return it" not text_in "$text" "$other_out"
nobody_out="$(cd / && runuser -u nobody -- timeout 30 /usr/bin/vasana recall --data "$data" --realm package-test "$query" 2>&1)"
nobody_rc=$?
check "another user cannot reach the node: refused (exit 1), permission denied" \
  test "$nobody_rc:$(text_in "permission denied" "$nobody_out" && echo denied)" = "1:denied"
check "another user gets none of the text" not text_in "$text" "$nobody_out"

# 6. SIGTERM stops it cleanly.
kill -TERM "$server_pid"
stopped=0
for _ in $(seq 1 600); do
  if ! kill -0 "$server_pid" 2>/dev/null; then stopped=1; break; fi
  sleep 0.1
done
if [ "$stopped" = 1 ]; then
  wait "$server_pid"; serve_rc=$?
  server_pid=""
  check "serve exited 0 on SIGTERM" test "$serve_rc" = 0
  check "serve logged its stop" grep -q " vasana: stopped$" "$work/serve.log"
else
  fail "serve did not stop within 60 s of SIGTERM"
fi

# 7. Purge: the binary, the configuration, the user and group go; the data stays.
if timeout 300 apt-get purge "${apt_opts[@]}" vasana >"$work/purge.log" 2>&1; then
  log "ok: apt-get purge vasana"
else
  cat "$work/purge.log" >&2
  fail "apt-get purge vasana"
fi
check "/usr/bin/vasana is removed" test ! -e /usr/bin/vasana
check "the unit is removed" test ! -e /lib/systemd/system/vasana.service
check "/etc/vasana is removed" test ! -e /etc/vasana
check "the user vasana is removed" not getent passwd vasana
check "the group vasana is removed" not getent group vasana
check "the unit's enablement is removed" test ! -e /etc/systemd/system/multi-user.target.wants/vasana.service
check "the package is gone from dpkg's database" not_installed
check "the data directory is kept" test -f "$data/identity"
check "the purge said the data directory was kept" grep -q "/var/lib/vasana was kept" "$work/purge.log"
rm -rf /var/lib/vasana

if [ "$failures" -gt 0 ]; then
  echo "package_test: $failures check(s) failed" >&2
  exit 1
fi
log "passed (ready ${ready_ms} ms after install)"
