#!/usr/bin/env bash
# Builds the Debian package of vasana: vasana_<version>-<revision>_<arch>.deb (CPack's DEB
# generator; what it holds and why: cmake/packaging.cmake, ops/packaging/).
#
#   ops/package.sh [--out DIR] [--jobs N] [--no-lintian]
#       configures build-package/ (RelWithDebInfo, Ninja, ccache when installed), builds the
#       vasana target only (not the tests or benchmarks) and packs it; the binary is stripped in
#       the package.
#   ops/package.sh --build-dir DIR [--out DIR] [--no-lintian]
#       packs the vasana binary an existing, configured and built build directory holds, without
#       configuring or building anything there (CI packs the build it tested).
#
# The .deb goes to --out (default: the current directory); its path is the last line printed.
# When lintian is installed the package is checked with it and any error (E:) fails the script.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
out="$PWD"
build_dir=""
jobs=2
run_lintian=1
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --no-lintian) run_lintian=0; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "package.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for tool in cmake cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "package.sh: $tool is missing (apt-get install cmake dpkg-dev)" >&2; exit 1; }
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"

if [ -z "$build_dir" ]; then
  build_dir="$repo/build-package"
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  # RelWithDebInfo, as ops/build.sh builds: the same objects (ccache hits), stripped in the package.
  cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
  cmake --build "$build_dir" --target vasana -j "$jobs"
else
  build_dir="$(cd "$build_dir" && pwd)"
fi
if [ ! -f "$build_dir/CPackConfig.cmake" ] || ! grep -q 'CPACK_DEBIAN_PACKAGE_NAME "vasana"' "$build_dir/CPackConfig.cmake"; then
  echo "package.sh: $build_dir has no CPackConfig.cmake of vasana: configure it with this source tree first" >&2
  exit 1
fi
if [ ! -x "$build_dir/cli/vasana" ]; then
  echo "package.sh: $build_dir/cli/vasana is not built" >&2
  exit 1
fi

# CPack stages and packs in a folder of its own. Installing from the build directory writes
# install_manifest_*.txt there: those this run adds are removed again.
work="$(mktemp -d "${TMPDIR:-/tmp}/vasana-package.XXXXXX")"
manifests_before="$(find "$build_dir" -maxdepth 1 -name 'install_manifest*.txt' -printf '%f\n')"
cleanup() {
  rm -rf "$work"
  local m
  for m in "$build_dir"/install_manifest*.txt; do
    [ -e "$m" ] || continue
    printf '%s\n' "$manifests_before" | grep -qxF "$(basename "$m")" || rm -f "$m"
  done
}
trap cleanup EXIT

if ! cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log" >&2
  echo "package.sh: cpack failed" >&2
  exit 1
fi
debs=("$work"/vasana_*.deb)
if [ "${#debs[@]}" -ne 1 ] || [ ! -f "${debs[0]}" ]; then
  cat "$work/cpack.log" >&2
  echo "package.sh: cpack made no vasana_*.deb" >&2
  exit 1
fi
deb="$out/$(basename "${debs[0]}")"
mv -f "${debs[0]}" "$deb"

# The binary must be stripped (CPACK_STRIP_FILES): no symbol table, no debug sections.
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/vasana >"$work/vasana.bin"
if readelf -S "$work/vasana.bin" | grep -qE '\.symtab|\.debug_'; then
  echo "package.sh: /usr/bin/vasana in the package is not stripped" >&2
  exit 1
fi

if [ "$run_lintian" = 1 ] && command -v lintian >/dev/null; then
  lintian_out="$(lintian --tag-display-limit 0 "$deb" 2>&1 || true)"
  [ -z "$lintian_out" ] || printf '%s\n' "$lintian_out"
  if printf '%s\n' "$lintian_out" | grep -q '^E: '; then
    echo "package.sh: lintian reports errors" >&2
    exit 1
  fi
fi
echo "$deb"
