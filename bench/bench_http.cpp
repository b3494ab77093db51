// `vasana-bench http`: the same recall queries over the HTTP/JSON API (frontends/http_server.hpp) and
// over the ZeroMQ client protocol, against one node in this process holding N synthetic
// memories (built as `vasana-bench recall` builds its data directory). The two transports take turns
// query by query, so both see the same node in the same state. Prints p50/p99 of each and their
// ratio; asserts nothing.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "actors/node.hpp"
#include "bench/bench_commands.hpp"
#include "bench/bench_data.hpp"
#include "bench/bench_figures.hpp"
#include "bench/synthetic_corpus.hpp"
#include "cli/cli_common.hpp"
#include "frontends/http_server.hpp"
#include "frontends/node_client.hpp"
#include "protocol/json_text.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "store/hybrid_clock.hpp"
#include "store/stream_repair.hpp"

namespace vasana {

namespace {

using Clock = std::chrono::steady_clock;

double micros_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

// n synthetic memories in the own stream of a fresh data directory.
Status fill_data_dir(const DataDir& dir, size_t n) {
  auto id = init_data_dir(dir, VectorSpace{});
  if (!id.ok()) return id.status();
  return write_synthetic_memories(dir, *id, n);
}

std::string random_token() {
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device rd;
  std::string t;
  for (int i = 0; i < 48; ++i) t += letters[rd() % (sizeof letters - 1)];
  return t;
}

}  // namespace

int cmd_bench_http(const Words& words) {
  auto args = parse_args(words, {"memories", "queries", "dir"}, {});
  if (!args.ok()) return bench::fail(kExitUsage, "http: " + args.status().message());
  if (!args->positional.empty()) return bench::fail(kExitUsage, "http: unexpected argument '" + args->positional[0] + "'");
  size_t n = 100000, queries = 1000;
  for (auto [name, out] : {std::pair<const char*, size_t*>{"memories", &n}, {"queries", &queries}}) {
    if (auto v = args->get(name)) {
      char* end = nullptr;
      const long x = std::strtol(v->c_str(), &end, 10);
      if (v->empty() || *end != '\0' || x < 1 || x > 100000000)
        return bench::fail(kExitUsage, std::string("http: --") + name + " must be a number from 1 to 100000000");
      *out = size_t(x);
    }
  }
  const std::string parent = args->get("dir").value_or(".");
  std::string tmpl = parent + "/vasana-bench-http-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return bench::fail(kExitFailed, "http: cannot create a directory in " + parent);
  const std::string root = std::filesystem::absolute(buf.data()).string();
  struct Cleanup {
    std::string root;
    ~Cleanup() { std::filesystem::remove_all(root); }
  } cleanup{root};

  std::printf("vasana-bench http: %zu memories, %zu recall queries (limit 10) over each transport, one client each,\n"
              "taking turns query by query; HTTP with keep-alive on loopback, ZeroMQ on the node's IPC socket\n",
              n, queries);
  std::fflush(stdout);
  DataDir dir{root + "/node"};
  if (Status s = fill_data_dir(dir, n); !s.ok()) return bench::fail(kExitFailed, "http: " + s.message());
  // The HTTP server acts as this client; the node must know it to grant its recalls.
  ClientGrant bench;
  bench.name = "bench";
  bench.read = {kEveryRealm};
  bench.token = random_token();
  NodeOptions opts;
  opts.dir = dir;
  opts.clients.add(bench);
  auto node = Node::start(opts, nullptr);
  if (!node.ok()) return bench::fail(kExitFailed, "http: " + node.status().message());

  HttpServerOptions ho;
  ho.http.listen = "127.0.0.1:0";
  ho.clients.add(bench);
  ho.node_endpoint = dir.default_client_endpoint();
  auto server = HttpServer::start(std::move(ho));
  if (!server.ok()) return bench::fail(kExitFailed, "http: " + server.status().message());

  auto zmq_client = NodeClient::connect(dir.default_client_endpoint());
  if (!zmq_client.ok()) return bench::fail(kExitFailed, "http: " + zmq_client.status().message());
  httplib::Client http("127.0.0.1", server.value()->port());
  http.set_keep_alive(true);
  http.set_tcp_nodelay(true);  // headers and body go out in two writes: without it Nagle holds the second
  http.set_read_timeout(std::chrono::seconds(30));
  const httplib::Headers headers = {{"Authorization", "Bearer " + bench.token}};

  SyntheticCorpus qc(7);
  std::vector<double> zmq_us, http_us;
  size_t same = 0;  // queries whose two answers name the same memories in the same order
  const size_t warmup = std::min<size_t>(50, queries);
  for (size_t i = 0; i < warmup + queries; ++i) {
    const std::string text = qc.text(3 + i % 5);
    const std::string realm = i % 3 ? "realm0" : "realm5";
    ClientRequest r;
    r.kind = ClientRequest::Kind::recall;
    r.recall.text = text;
    r.recall.realms = {realm};
    r.recall.limit = 10;
    const std::string body = JsonObject().str("query", text).raw("realms", json_string_array({realm})).num("limit", 10).done();
    // Alternate which transport goes first, so neither always follows the other's warm caches.
    std::vector<std::string> zmq_ids, http_ids;
    for (int turn = 0; turn < 2; ++turn) {
      const bool zmq_turn = (turn == 0) == (i % 2 == 0);
      const auto t0 = Clock::now();
      if (zmq_turn) {
        auto res = zmq_client.value()->call(r, std::chrono::seconds(30));
        const double us = micros_since(t0);
        if (!res.ok() || res->kind != ClientResponse::Kind::recalled)
          return bench::fail(kExitFailed, "http: a recall over ZeroMQ failed: " +
                                       (res.ok() ? res->message : res.status().message()));
        if (i >= warmup) zmq_us.push_back(us);
        for (const RecallHit& h : res->answer.hits) zmq_ids.push_back(h.id.to_string());
      } else {
        auto res = http.Post("/v1/recall", headers, body, "application/json");
        const double us = micros_since(t0);
        if (!res || res->status != 200)
          return bench::fail(kExitFailed, "http: a recall over HTTP failed: " +
                                       (res ? std::to_string(res->status) + " " + res->body : httplib::to_string(res.error())));
        if (i >= warmup) http_us.push_back(us);
        const auto answer = nlohmann::json::parse(res->body, nullptr, false);
        if (answer.is_object() && answer.contains("hits"))
          for (const auto& h : answer["hits"]) http_ids.push_back(h.value("id", ""));
      }
    }
    if (i >= warmup) same += zmq_ids == http_ids;
  }
  using bench::pct;
  const double z50 = pct(zmq_us, 0.5), z99 = pct(zmq_us, 0.99), h50 = pct(http_us, 0.5), h99 = pct(http_us, 0.99);
  std::printf("  %-8s %10s %10s\n", "", "p50 us", "p99 us");
  std::printf("  %-8s %10.0f %10.0f\n", "zeromq", z50, z99);
  std::printf("  %-8s %10.0f %10.0f\n", "http", h50, h99);
  std::printf("  http / zeromq: p50 %.2fx, p99 %.2fx; the same hits in the same order for %zu of %zu queries\n",
              h50 / std::max(z50, 1e-9), h99 / std::max(z99, 1e-9), same, queries);
  server.value()->stop();
  node.value()->stop();
  return kExitOk;
}

}  // namespace vasana
