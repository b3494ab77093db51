// `vasana-bench recall`: recall latency per lane and fused over a synthetic corpus, with one
// client and several, with and without concurrent writes; resident memory per memory; and the
// time a node takes from start to ready on a data directory of that size. Prints figures,
// asserts nothing.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>
#include <string>
#include <optional>
#include <thread>
#include <vector>

#include "actors/node.hpp"
#include "bench/bench_commands.hpp"
#include "bench/bench_figures.hpp"
#include "bench/synthetic_corpus.hpp"
#include "cli/cli_common.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "replica/hash_embedder.hpp"
#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"
#include "replica/vector_index.hpp"
#include "store/hybrid_clock.hpp"
#include "store/stream_repair.hpp"

namespace vasana {

using bench::pct;
using bench::rss_mib;
using bench::semantic_options;

namespace {

using Clock = std::chrono::steady_clock;

// bench recall's memories as the recall engine takes them.
PutMemoryOp put_of(SyntheticCorpus& c) {
  MemoryInput m = c.memory();
  PutMemoryOp p;
  p.realm = std::move(m.realm);
  p.text = std::move(m.text);
  return p;
}

struct Latency {
  double p50 = 0, p99 = 0;
};

// known_at: transaction time of the queries (none: now).
Latency run_queries(const RecallEngine& e, SyntheticCorpus& c, const std::vector<std::string>& lanes, size_t n,
                    size_t threads, bool side_by_side = true, std::optional<int64_t> known_at = std::nullopt) {
  std::vector<std::vector<double>> lat(threads);
  std::vector<std::string> texts;
  for (size_t i = 0; i < n; ++i) texts.push_back(c.text(3 + i % 5));
  std::vector<std::thread> ts;
  for (size_t t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      for (size_t i = t; i < n; i += threads) {
        RecallRequest r;
        r.text = texts[i];
        r.scope.realms = {i % 3 ? "realm0" : "realm5"};
        r.scope.as_of_ms = int64_t(system_wall_ms());
        r.limit = 10;
        r.lanes = lanes;
        r.now_ms = r.scope.as_of_ms;
        r.lanes_side_by_side = side_by_side;
        r.scope.known_at_ms = known_at;
        auto t0 = Clock::now();
        auto res = e.recall(r);
        lat[t].push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
    });
  }
  for (auto& t : ts) t.join();
  std::vector<double> all;
  for (auto& v : lat) all.insert(all.end(), v.begin(), v.end());
  return Latency{pct(all, 0.5), pct(all, 0.99)};
}

// A semantic index of n embedded memories whose graph is not built yet (a node just started, or
// catching up, or a realm within the exact limit): the exact buffer searched as the lane does
// (search: ranked by int8 codes, the best compared exactly) beside every row compared in floats
// (search_exact: what the buffer search did before the codes), same queries, same index, one
// after the other; then the same index with its graph built.
void buffered_search_figures(size_t n, size_t queries) {
  HashEmbedder embedder;
  SyntheticCorpus c(11);
  VectorIndex index(embedder.dim());
  for (size_t i = 0; i < n; ++i) (void)index.put(uint32_t(i), embedder.embed(c.memory().text).value());
  std::vector<std::vector<float>> qs;
  for (size_t i = 0; i < queries; ++i) qs.push_back(embedder.embed(c.text(3 + i % 5)).value());
  const size_t k = 10 * ScoringWeights{}.pool_factor;  // the lane's pool for limit 10
  std::vector<double> coded, floats;
  size_t same = 0;
  for (const auto& q : qs) {
    auto t0 = Clock::now();
    const auto a = index.search(q.data(), k);
    auto t1 = Clock::now();
    const auto b = index.search_exact(q.data(), k);
    auto t2 = Clock::now();
    coded.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    floats.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    bool equal = a.size() == b.size();
    for (size_t i = 0; equal && i < a.size(); ++i) equal = a[i].slot == b[i].slot;
    same += equal;
  }
  std::printf("  semantic index of %zu vectors before its graph is built, k %zu: int8-ranked buffer p50 %.0f us, p99 "
              "%.0f us;\n  every row in floats p50 %.0f us, p99 %.0f us (%.1fx); same answer for %zu of %zu queries\n",
              n, k, pct(coded, 0.5), pct(coded, 0.99), pct(floats, 0.5), pct(floats, 0.99),
              pct(floats, 0.5) / std::max(1e-9, pct(coded, 0.5)), same, qs.size());
  std::fflush(stdout);

  // The same index with every vector in its HNSW graph (what a realm past the exact limit gets):
  // the CPU each insertion costs, and how many of the exact best 10 a graph search finds (a
  // graph hit counts when its similarity reaches the exact 10th best: ties are not misses).
  // Not above kGraphFiguresUpTo: at 1M the build alone would take about 17 minutes here, and the
  // engine below builds its own graphs anyway.
  constexpr size_t kGraphFiguresUpTo = 200000;
  if (n > kGraphFiguresUpTo) {
    std::printf("  (graph search figures only up to %zu vectors)\n", kGraphFiguresUpTo);
    return;
  }
  auto g0 = Clock::now();
  while (index.pending() > 0)
    if (!index.index_pending(1024).ok()) return;
  const double insert_us = std::chrono::duration<double, std::micro>(Clock::now() - g0).count() / double(n);
  std::vector<double> graph;
  double found = 0;
  for (const auto& q : qs) {
    auto t0 = Clock::now();
    const auto a = index.search(q.data(), k);
    graph.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    const auto b = index.search_exact(q.data(), 10);
    if (b.empty()) continue;
    size_t hits = 0;
    for (size_t i = 0; i < std::min<size_t>(10, a.size()); ++i) hits += a[i].similarity >= b.back().similarity;
    found += double(hits) / double(b.size());
  }
  std::printf("  the same with every vector in its HNSW graph (%.0f us of CPU per insertion): graph search p50 %.0f us,"
              " p99 %.0f us,\n  finding %.0f%% of the exact best 10\n",
              insert_us, pct(graph, 0.5), pct(graph, 0.99), 100.0 * found / double(qs.size()));
  std::fflush(stdout);
}

}  // namespace

int cmd_bench_recall(const Words& words) {
  auto args = parse_args(words, {"memories", "queries", "dir", "semantic-exact-limit"}, {});
  if (!args.ok()) return bench::fail(kExitUsage, "recall: " + args.status().message());
  auto semantic = semantic_options(*args);
  if (!semantic.ok()) return bench::fail(kExitUsage, "recall: " + semantic.status().message());
  std::vector<size_t> sizes = {10000, 100000};
  if (auto m = args->get("memories")) {
    auto counts = bench::memory_counts(*m);
    if (!counts) return bench::fail(kExitUsage, "recall: --memories takes counts such as 10000,100000");
    sizes = *counts;
  }
  size_t queries = 500;
  if (auto q = args->get("queries")) queries = size_t(std::max(1L, std::atol(q->c_str())));
  const std::string parent = args->get("dir").value_or(".");

  std::printf("vasana-bench recall: %zu queries per row, limit 10, realms of 50%% / 25%% / 3%% of the memories;\n"
              "realms of at most %zu memories searched exactly (--semantic-exact-limit), larger ones with a graph\n",
              queries, semantic->exact_limit);
  for (size_t n : sizes) {
    std::printf("\n%zu memories:\n", n);
    buffered_search_figures(n, std::min<size_t>(queries, 200));
    SyntheticCorpus corpus;
    const double rss0 = rss_mib();
    auto engine = std::make_unique<RecallEngine>(make_all_lanes(*semantic), ScoringWeights{});
    auto t0 = Clock::now();
    uint64_t ms = system_wall_ms() - n;
    for (size_t i = 0; i < n; ++i) {
      Status s = engine->apply(OrderKey{Hlc::make(ms + i, 0), InstanceId(1), Seqno(i + 1)}, put_of(corpus));
      if (!s.ok()) return bench::fail(kExitFailed, "recall: " + s.to_string());
    }
    engine->warm();
    const double build_s = std::chrono::duration<double>(Clock::now() - t0).count();
    // The semantic lane's graph is built behind the writes (new vectors are searched exactly
    // meanwhile); the figures below are for the steady state after it caught up.
    const size_t to_graph = engine->background_pending();
    auto g0 = Clock::now();
    while (engine->background_pending() > 0) engine->background_step(1024);
    const double graph_s = std::chrono::duration<double>(Clock::now() - g0).count();
    const double rss = rss_mib() - rss0;
    std::printf("%zu memories: applied in %.2f s (%.0f/s); ", n, build_s, double(n) / build_s);
    if (to_graph == 0)
      std::printf("no semantic graph (no realm holds more than the exact limit); ");
    else
      std::printf("semantic graphs built behind in %.1f s (%zu vectors, %.0f/s); ", graph_s, to_graph,
                  double(to_graph) / std::max(graph_s, 1e-9));
    std::printf("resident %.0f MiB (%.0f bytes per memory)\n", rss, rss * 1024 * 1024 / double(n));
    std::printf("  %-12s %10s %10s %14s %14s\n", "lanes", "p50 us", "p99 us", "p50 2 clients", "p99 2 clients");
    std::vector<std::vector<std::string>> rows;
    for (const auto& l : engine->lane_names()) rows.push_back({l});
    rows.push_back({});
    Latency fused;
    for (const auto& lanes : rows) {
      Latency one = run_queries(*engine, corpus, lanes, queries, 1);
      Latency two = run_queries(*engine, corpus, lanes, queries, 2);
      if (lanes.empty()) fused = one;
      std::printf("  %-12s %10.0f %10.0f %14.0f %14.0f\n", lanes.empty() ? "fused" : lanes[0].c_str(), one.p50, one.p99,
                  two.p50, two.p99);
      std::fflush(stdout);
    }
    Latency serial = run_queries(*engine, corpus, {}, queries, 1, false);
    Latency serial2 = run_queries(*engine, corpus, {}, queries, 2, false);
    std::printf("  %-12s %10.0f %10.0f %14.0f %14.0f   (lanes one after another on the query's thread)\n",
                "fused-serial", serial.p50, serial.p99, serial2.p50, serial2.p99);
    // Fused as the store held it when half the memories were applied (transaction time travel).
    const int64_t middle = int64_t(ms + n / 2);
    Latency past = run_queries(*engine, corpus, {}, queries, 1, true, middle);
    Latency past2 = run_queries(*engine, corpus, {}, queries, 2, true, middle);
    std::printf("  %-12s %10.0f %10.0f %14.0f %14.0f   (fused, known_at = the middle of the load: p50 %.2fx fused's)\n",
                "fused-known", past.p50, past.p99, past2.p50, past2.p99, past.p50 / std::max(fused.p50, 1e-9));
    // Fused, one client, while a writer applies 1,000 ops a second.
    std::atomic<bool> stop{false};
    std::thread writer([&] {
      SyntheticCorpus wc;
      uint64_t seq = n;
      while (!stop.load()) {
        (void)engine->apply(OrderKey{Hlc::make(system_wall_ms(), seq % 60000), InstanceId(1), Seqno(++seq)}, put_of(wc));
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
    Latency busy = run_queries(*engine, corpus, {}, queries, 1);
    stop.store(true);
    writer.join();
    std::printf("  %-12s %10.0f %10.0f   (fused, one client, 1k writes/s applied meanwhile)\n", "fused+writes",
                busy.p50, busy.p99);

    // Start to ready: a node replaying a data directory of n memories.
    std::string tmpl = parent + "/vasana-bench-recall-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) return bench::fail(kExitFailed, "recall: cannot create a directory in " + parent);
    const std::string root = std::filesystem::absolute(buf.data()).string();
    DataDir dir{root + "/node"};
    auto id = init_data_dir(dir, VectorSpace{});
    if (!id.ok()) return bench::fail(kExitFailed, "recall: " + id.status().message());
    {
      auto rec = recover_own_stream(dir, *id, nullptr, false);
      auto w = LogWriter::open(posix_file_system(), dir.writer_dir(id->instance), id->instance, id->vector_space,
                               rec->tail, LogWriterOptions{}, system_wall_ms());
      if (!w.ok()) return bench::fail(kExitFailed, "recall: " + w.status().message());
      SyntheticCorpus dc;
      for (size_t i = 0; i < n; ++i) {
        const PutMemoryOp p = put_of(dc);
        MemoryInput m;
        m.realm = p.realm;
        m.text = p.text;
        w.value()->stage(Hlc::make(ms + i, 0), static_cast<uint16_t>(OpType::put_memory), encode_put_memory(m));
        if (i % 4096 == 4095 || i + 1 == n) (void)w.value()->commit();
      }
    }
    engine.reset();
    NodeOptions opts;
    opts.dir = dir;
    opts.semantic = *semantic;
    auto s0 = Clock::now();
    auto node = Node::start(opts, nullptr);
    const double ready_s = std::chrono::duration<double>(Clock::now() - s0).count();
    if (!node.ok()) return bench::fail(kExitFailed, "recall: " + node.status().message());
    node.value()->stop();
    std::filesystem::remove_all(root);
    std::printf("  start to ready on a data directory of %zu memories: %.2f s\n", n, ready_s);
  }
  return kExitOk;
}

}  // namespace vasana
