// `vasana-bench recall`: recall latency per lane and fused over a synthetic corpus, with one
// client and several, with and without concurrent writes; resident memory per memory; and the
// time a node takes from start to ready on a data directory of that size. With --vector-dim 384
// every memory and query carries a random vector of its own (a client's model), whose floats go
// to an archive database on disk as on a node (store/archive_store.hpp). Prints figures,
// asserts nothing.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <malloc.h>
#include <random>
#include <sstream>
#include <unistd.h>
#include <string>
#include <optional>
#include <thread>
#include <vector>

#include "actors/node.hpp"
#include "actors/stored_value_archive.hpp"
#include "bench/bench_commands.hpp"
#include "bench/bench_figures.hpp"
#include "bench/synthetic_corpus.hpp"
#include "cli/cli_common.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "replica/hash_embedder.hpp"
#include "replica/inner_product.hpp"
#include "replica/int8_codes.hpp"
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

// Client vectors of vector_dim dimensions (0: none, the built-in embedder embeds the texts).
struct ClientVectors {
  uint32_t dim = 0;
  std::mt19937_64 rng{11};
  std::vector<float> next() { return dim ? bench::random_unit(rng, dim) : std::vector<float>(); }
};

// bench recall's memories as the recall engine takes them.
PutMemoryOp put_of(SyntheticCorpus& c, ClientVectors& v) {
  MemoryInput m = c.memory();
  PutMemoryOp p;
  p.realm = std::move(m.realm);
  p.text = std::move(m.text);
  p.vector = v.next();
  return p;
}

struct Latency {
  double p50 = 0, p99 = 0;
};

// known_at: transaction time of the queries (none: now).
// vectors: each query's own vector, from it (dim 0: none).
Latency run_queries(const RecallEngine& e, SyntheticCorpus& c, ClientVectors& vectors,
                    const std::vector<std::string>& lanes, size_t n, size_t threads, bool side_by_side = true,
                    std::optional<int64_t> known_at = std::nullopt) {
  std::vector<std::vector<double>> lat(threads);
  std::vector<std::string> texts;
  std::vector<std::vector<float>> query_vectors;
  for (size_t i = 0; i < n; ++i) {
    texts.push_back(c.text(3 + i % 5));
    query_vectors.push_back(vectors.next());
  }
  std::vector<std::thread> ts;
  for (size_t t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      for (size_t i = t; i < n; i += threads) {
        RecallRequest r;
        r.text = texts[i];
        r.vector = query_vectors[i];
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

// recall@10 of hits (the first 10) against a float scan: the share of the float best 10 they
// hold. A hit counts when its float similarity reaches the float 10th best: ties are not misses.
double recall_at_10(const std::vector<float>& float_sims, float tenth, const std::vector<VectorHit>& hits) {
  size_t found = 0;
  for (size_t i = 0; i < std::min<size_t>(10, hits.size()); ++i) found += float_sims[hits[i].slot] >= tenth;
  return double(found) / 10.0;
}

// Resident MiB after glibc hands freed pages back, so that a difference is what is held.
double trimmed_rss_mib() {
  ::malloc_trim(0);
  return rss_mib();
}

// A semantic index of n embedded memories searched as the lane searches one realm: exactly
// (every code row compared: a realm within the exact limit, or any realm before its graph is
// built), then, up to kGraphFiguresUpTo vectors, in its HNSW graph. Each answer is measured
// against a float scan of the embedder's vectors (replica/inner_product.hpp): recall@10, the
// share of the float best 10 among the first 10 hits. And the index's resident bytes per
// vector, beside the layout that kept float rows (computed, not run: that code is gone).
void index_figures(size_t n, size_t queries, const VectorIndexOptions& options) {
  HashEmbedder embedder;
  const uint32_t dim = embedder.dim();
  SyntheticCorpus c(11);
  std::vector<std::vector<float>> vs;
  vs.reserve(n);
  for (size_t i = 0; i < n; ++i) vs.push_back(embedder.embed(c.memory().text).value());
  std::vector<std::vector<float>> qs;
  for (size_t i = 0; i < queries; ++i) qs.push_back(embedder.embed(c.text(3 + i % 5)).value());
  const size_t k = 10 * ScoringWeights{}.pool_factor;  // the lane's pool for limit 10

  const double rss0 = trimmed_rss_mib();
  VectorIndex index(dim, options);
  for (size_t i = 0; i < n; ++i) (void)index.put(uint32_t(i), vs[i]);
  const double buffer_bytes = (trimmed_rss_mib() - rss0) * 1024 * 1024 / double(n);

  // The float truth of each query: every vector's float similarity and the 10th best of them.
  std::vector<std::vector<float>> sims(qs.size());
  std::vector<float> tenth(qs.size());
  std::vector<double> scan_us, exact_us;
  double exact_recall = 0;
  for (size_t qi = 0; qi < qs.size(); ++qi) {
    auto t0 = Clock::now();
    sims[qi].resize(n);
    for (size_t i = 0; i < n; ++i) sims[qi][i] = inner_product(qs[qi].data(), vs[i].data(), dim);
    std::vector<float> sorted = sims[qi];
    const size_t at = std::min<size_t>(10, n) - 1;
    std::nth_element(sorted.begin(), sorted.begin() + long(at), sorted.end(), std::greater<float>());
    tenth[qi] = sorted[at];
    auto t1 = Clock::now();
    const auto hits = index.search_exact(qs[qi].data(), k);
    auto t2 = Clock::now();
    scan_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    exact_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    exact_recall += recall_at_10(sims[qi], tenth[qi], hits);
  }
  exact_recall /= double(qs.size());
  // The float layout's bytes per vector: a buffer row of floats with its int8 code and scale
  // beside it; a graph point of level-0 links (M 16: 4 + 32 * 4 bytes), float vector and label.
  const double float_buffer_row = 4.0 * dim + dim + 4, links = 4 + 32 * 4, label = 8;
  const double float_graph_point = links + 4.0 * dim + label, graph_point = links + double(code_row_bytes(dim)) + label;
  std::printf("  semantic index of %zu vectors, k %zu, %zu queries; recall@10 = share of a float scan's best 10:\n",
              n, k, qs.size());
  std::printf("    %-30s p50 %7.0f us  p99 %7.0f us\n", "float scan (the reference)", pct(scan_us, 0.5),
              pct(scan_us, 0.99));
  std::printf("    %-30s p50 %7.0f us  p99 %7.0f us  recall@10 %5.1f%%\n", "exact search over int8 rows",
              pct(exact_us, 0.5), pct(exact_us, 0.99), 100.0 * exact_recall);
  std::printf("    index bytes per vector, all in the exact buffer: %.0f resident (code row %zu);"
              " float rows kept %.0f (computed)\n",
              buffer_bytes, code_row_bytes(dim), float_buffer_row);
  std::fflush(stdout);

  // The same index with every vector in its HNSW graph (what a realm past the exact limit gets).
  // Not above kGraphFiguresUpTo: at 1M the build alone would take many minutes here, and the
  // engine below builds its own graphs anyway.
  constexpr size_t kGraphFiguresUpTo = 200000;
  if (n > kGraphFiguresUpTo) {
    std::printf("    (graph figures only up to %zu vectors)\n", kGraphFiguresUpTo);
    return;
  }
  // The index's bytes with its graph: the buffer's, plus what resident memory grew by while the
  // graph took the buffer's rows (the float truth above is held throughout, so not counted).
  const double before_graph = trimmed_rss_mib();
  auto g0 = Clock::now();
  while (index.pending() > 0)
    if (!index.index_pending(1024).ok()) return;
  const double insert_us = std::chrono::duration<double, std::micro>(Clock::now() - g0).count() / double(n);
  const double graph_bytes = buffer_bytes + (trimmed_rss_mib() - before_graph) * 1024 * 1024 / double(n);
  std::vector<double> graph_us;
  double graph_recall = 0, of_exact = 0;
  for (size_t qi = 0; qi < qs.size(); ++qi) {
    auto t0 = Clock::now();
    const auto a = index.search(qs[qi].data(), k);
    graph_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    graph_recall += recall_at_10(sims[qi], tenth[qi], a);
    // And against the exact int8 best 10 (what the graph approximates): a hit counts when it
    // reaches the exact 10th best's similarity.
    const auto b = index.search_exact(qs[qi].data(), 10);
    if (b.empty()) continue;
    size_t hits = 0;
    for (size_t i = 0; i < std::min<size_t>(10, a.size()); ++i) hits += a[i].similarity >= b.back().similarity;
    of_exact += double(hits) / double(b.size());
  }
  std::printf("    %-30s p50 %7.0f us  p99 %7.0f us  recall@10 %5.1f%%  (%.0f%% of the exact int8 best 10;"
              " %.0f us of CPU per insertion)\n",
              ("graph search (M " + std::to_string(options.m) + ", ef_c " + std::to_string(options.ef_construction) +
               ", ef " + std::to_string(options.ef_search) + ")").c_str(),
              pct(graph_us, 0.5), pct(graph_us, 0.99),
              100.0 * graph_recall / double(qs.size()), 100.0 * of_exact / double(qs.size()), insert_us);
  // The float layout held each point's float vector in the graph instead of its code row; the
  // rest (links, label, hnswlib's per-point lock and label map, its 2.6 MiB of fixed locks) is
  // the same, so its bytes are these plus the difference for every point held (capacity not
  // yet written to is not resident). The float build, measured the same way: 1,829 at 100k.
  std::printf("    index bytes per vector, all in the graph: %.0f resident (level-0 point %.0f);"
              " float vectors kept %.0f (computed)\n",
              graph_bytes, graph_point, graph_bytes + float_graph_point - graph_point);
  std::fflush(stdout);
}

// Seconds from start to ready of a node replaying a data directory (made at dir, removed after)
// of n memories, as bench recall applied them.
Result<double> start_to_ready_s(const DataDir& dir, size_t n, uint64_t ms, uint32_t vector_dim,
                                const SemanticLaneOptions& semantic, bool hdc) {
  auto id = init_data_dir(dir, VectorSpace{});
  if (!id.ok()) return id.status();
  {
    auto rec = recover_own_stream(dir, *id, nullptr, false);
    auto w = LogWriter::open(posix_file_system(), dir.writer_dir(id->instance), id->instance, id->vector_space,
                             rec->tail, LogWriterOptions{}, system_wall_ms());
    if (!w.ok()) return w.status();
    SyntheticCorpus dc;
    ClientVectors dv{vector_dim};
    for (size_t i = 0; i < n; ++i) {
      const PutMemoryOp p = put_of(dc, dv);
      MemoryInput m;
      m.realm = p.realm;
      m.text = p.text;
      m.vector = p.vector;
      w.value()->stage(Hlc::make(ms + i, 0), static_cast<uint16_t>(OpType::put_memory), encode_put_memory(m));
      if (i % 4096 == 4095 || i + 1 == n) (void)w.value()->commit();
    }
  }
  NodeOptions opts;
  opts.dir = dir;
  opts.semantic = semantic;
  opts.hdc_lane = hdc;
  auto s0 = Clock::now();
  auto node = Node::start(opts, nullptr);
  const double ready_s = std::chrono::duration<double>(Clock::now() - s0).count();
  if (!node.ok()) return node.status();
  node.value()->stop();
  std::filesystem::remove_all(dir.root);
  return ready_s;
}

}  // namespace

int cmd_bench_recall(const Words& words) {
  auto args = parse_args(
      words,
      {"memories", "queries", "dir", "semantic-exact-limit", "semantic-ef-construction", "semantic-ef-search",
       "vector-dim"},
      {"hdc"});
  if (!args.ok()) return bench::fail(kExitUsage, "recall: " + args.status().message());
  auto semantic = semantic_options(*args);
  if (!semantic.ok()) return bench::fail(kExitUsage, "recall: " + semantic.status().message());
  uint32_t vector_dim = 0;
  if (auto d = args->get("vector-dim")) {
    // The store's vector space is the built-in one, whose dimension a client's vectors must have.
    if (std::atol(d->c_str()) != long(semantic->dim))
      return bench::fail(kExitUsage, "recall: --vector-dim must be " + std::to_string(semantic->dim) +
                                         ", the built-in vector space's dimension");
    vector_dim = semantic->dim;
    semantic->embed_text = false;
  }
  std::vector<size_t> sizes = {10000, 100000};
  if (auto m = args->get("memories")) {
    auto counts = bench::memory_counts(*m);
    if (!counts) return bench::fail(kExitUsage, "recall: --memories takes counts such as 10000,100000");
    sizes = *counts;
  }
  size_t queries = 500;
  if (auto q = args->get("queries")) queries = size_t(std::max(1L, std::atol(q->c_str())));
  const std::string parent = args->get("dir").value_or(".");
  // The lanes a node runs by default; --hdc adds the HDC lane, as [recall] hdc_lane does.
  const bool hdc = args->has("hdc") || NodeOptions{}.hdc_lane;

  std::printf("vasana-bench recall: %zu queries per row, limit 10, realms of 50%% / 25%% / 3%% of the memories;\n"
              "realms of at most %zu memories searched exactly (--semantic-exact-limit), larger ones with a graph;\n"
              "the HDC lane %s\n",
              queries, semantic->exact_limit, hdc ? "on (--hdc)" : "off, as on a node by default (--hdc turns it on)");
  std::string tmpl = parent + "/vasana-bench-recall-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return bench::fail(kExitFailed, "recall: cannot create a directory in " + parent);
  const std::string root = std::filesystem::absolute(buf.data()).string();
  if (vector_dim) std::printf("every memory and query with a random %u-dimension vector of its own (--vector-dim)\n", vector_dim);
  for (size_t n : sizes) {
    std::printf("\n%zu memories:\n", n);
    index_figures(n, std::min<size_t>(queries, 300), semantic->index);
    SyntheticCorpus corpus;
    ClientVectors vectors{vector_dim};
    const double rss0 = trimmed_rss_mib();  // what index_figures freed is not the engine's to reuse
    auto engine = std::make_unique<RecallEngine>(make_all_lanes(*semantic, hdc), ScoringWeights{});
    // As on a node: the clients' vectors (and earlier texts) in an archive database on disk.
    std::filesystem::create_directories(root + "/archive-" + std::to_string(n));
    auto archive = ArchiveStore::open(DataDir{root + "/archive-" + std::to_string(n)}, VectorSpace{}, nullptr);
    engine->set_value_archive(std::make_shared<StoredValueArchive>(archive, nullptr));
    auto t0 = Clock::now();
    uint64_t ms = system_wall_ms() - n;
    for (size_t i = 0; i < n; ++i) {
      Status s = engine->apply(OrderKey{Hlc::make(ms + i, 0), InstanceId(1), Seqno(i + 1)}, put_of(corpus, vectors));
      if (!s.ok()) return bench::fail(kExitFailed, "recall: " + s.to_string());
    }
    (void)archive->flush();  // its write buffer on disk, as within a second on a node
    engine->warm();
    const double build_s = std::chrono::duration<double>(Clock::now() - t0).count();
    // The semantic lane's graph is built behind the writes (new vectors are searched exactly
    // meanwhile); the figures below are for the steady state after it caught up.
    const size_t to_graph = engine->background_pending();
    auto g0 = Clock::now();
    while (engine->background_pending() > 0) engine->background_step(1024);
    const double graph_s = std::chrono::duration<double>(Clock::now() - g0).count();
    // A node's indexer hands the heap's free pages back once it has drained (actors/heap_return.hpp):
    // the resident figure is after that, with the one before it beside.
    const double untrimmed = rss_mib() - rss0;
    const double rss = trimmed_rss_mib() - rss0;
    std::printf("%zu memories: applied in %.2f s (%.0f/s); ", n, build_s, double(n) / build_s);
    if (to_graph == 0)
      std::printf("no semantic graph (no realm holds more than the exact limit); ");
    else
      std::printf("semantic graphs built behind in %.1f s (%zu vectors, %.0f/s); ", graph_s, to_graph,
                  double(to_graph) / std::max(graph_s, 1e-9));
    std::printf("resident %.0f MiB (%.0f bytes per memory; %.0f before the heap's free pages were returned)\n", rss,
                rss * 1024 * 1024 / double(n), untrimmed * 1024 * 1024 / double(n));
    std::printf("  %-12s %10s %10s %14s %14s\n", "lanes", "p50 us", "p99 us", "p50 2 clients", "p99 2 clients");
    std::vector<std::vector<std::string>> rows;
    for (const auto& l : engine->lane_names()) rows.push_back({l});
    rows.push_back({});
    Latency fused;
    for (const auto& lanes : rows) {
      Latency one = run_queries(*engine, corpus, vectors, lanes, queries, 1);
      Latency two = run_queries(*engine, corpus, vectors, lanes, queries, 2);
      if (lanes.empty()) fused = one;
      std::printf("  %-12s %10.0f %10.0f %14.0f %14.0f\n", lanes.empty() ? "fused" : lanes[0].c_str(), one.p50, one.p99,
                  two.p50, two.p99);
      std::fflush(stdout);
    }
    Latency serial = run_queries(*engine, corpus, vectors, {}, queries, 1, false);
    Latency serial2 = run_queries(*engine, corpus, vectors, {}, queries, 2, false);
    std::printf("  %-12s %10.0f %10.0f %14.0f %14.0f   (lanes one after another on the query's thread)\n",
                "fused-serial", serial.p50, serial.p99, serial2.p50, serial2.p99);
    // Fused as the store held it when half the memories were applied (transaction time travel).
    const int64_t middle = int64_t(ms + n / 2);
    Latency past = run_queries(*engine, corpus, vectors, {}, queries, 1, true, middle);
    Latency past2 = run_queries(*engine, corpus, vectors, {}, queries, 2, true, middle);
    std::printf("  %-12s %10.0f %10.0f %14.0f %14.0f   (fused, known_at = the middle of the load: p50 %.2fx fused's)\n",
                "fused-known", past.p50, past.p99, past2.p50, past2.p99, past.p50 / std::max(fused.p50, 1e-9));
    // Fused, one client, while a writer applies 1,000 ops a second.
    std::atomic<bool> stop{false};
    std::thread writer([&] {
      SyntheticCorpus wc;
      ClientVectors wv{vector_dim};
      wv.rng.seed(12);
      uint64_t seq = n;
      while (!stop.load()) {
        (void)engine->apply(OrderKey{Hlc::make(system_wall_ms(), seq % 60000), InstanceId(1), Seqno(++seq)},
                            put_of(wc, wv));
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
    Latency busy = run_queries(*engine, corpus, vectors, {}, queries, 1);
    stop.store(true);
    writer.join();
    std::printf("  %-12s %10.0f %10.0f   (fused, one client, 1k writes/s applied meanwhile)\n", "fused+writes",
                busy.p50, busy.p99);

    engine.reset();
    archive->close();
    auto ready_s = start_to_ready_s(DataDir{root + "/node-" + std::to_string(n)}, n, ms, vector_dim, *semantic, hdc);
    if (!ready_s.ok()) return bench::fail(kExitFailed, "recall: " + ready_s.status().message());
    std::filesystem::remove_all(root + "/archive-" + std::to_string(n));
    std::printf("  start to ready on a data directory of %zu memories: %.2f s\n", n, *ready_s);
  }
  std::filesystem::remove_all(root);
  return kExitOk;
}

}  // namespace vasana
