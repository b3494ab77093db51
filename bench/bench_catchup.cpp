#include "bench/bench_catchup.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <thread>
#include <vector>

#include "actors/node.hpp"
#include "bench/bench_commands.hpp"
#include "bench/bench_figures.hpp"
#include "bench/synthetic_corpus.hpp"
#include "cli/cli_common.hpp"
#include "frontends/node_client.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"
#include "store/hybrid_clock.hpp"
#include "store/stream_repair.hpp"
#include "store/writer_scan.hpp"

namespace vasana::bench {

namespace {

// Bytes of the regular files under path.
uint64_t dir_bytes(const std::string& path) {
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  return total;
}

// Polls left() every poll until it is 0 (true) or has not changed for 120 s (false), printing
// "  <label> N after S s" (S from t0) to stderr every print_every_s seconds.
bool poll_until_zero(const std::function<size_t()>& left, const char* label, int64_t t0,
                     std::chrono::milliseconds poll, double print_every_s) {
  size_t last = left();
  int64_t last_progress = now_ns(), last_print = now_ns();
  for (;;) {
    const size_t n = left();
    const int64_t now = now_ns();
    if (n == 0) return true;
    if (n != last) last_progress = now;
    last = n;
    if (now - last_print >= int64_t(print_every_s * 1e9)) {
      std::fprintf(stderr, "  %s %zu after %.0f s\n", label, n, seconds_since(t0));
      last_print = now;
    }
    if (now - last_progress > int64_t(120e9)) return false;
    std::this_thread::sleep_for(poll);
  }
}

}  // namespace

// probe_ms: the pause between two recall queries on the catching-up node; 0: no queries.
// settle: before b starts, wait until a has no index work left (its HNSW graphs built), as a
// serving node that has run a while has; otherwise a builds them during the catch-up, on the
// same cores.
int run_catchup(const std::string& root, size_t m, size_t probe_ms, bool settle, const SemanticLaneOptions& semantic,
                LogBuffer& logs) {
  std::printf("\ncatch-up: a node holding %zu ops of its own starts; an empty peer starts and fetches and applies "
              "them all\n",
              m);
  std::fflush(stdout);
  auto members = prepare_members(root, {"a", "b"});
  if (!members.ok()) return bench::fail(kExitFailed, "replication: " + members.status().message());
  Member& a = (*members)[0];

  // Node a's stream, written directly (no node, no lanes): the ops kept to replay them below.
  std::vector<std::string> payloads;
  payloads.reserve(m);
  const uint64_t ms0 = system_wall_ms() - m;
  {
    const int64_t t0 = now_ns();
    auto rec = recover_own_stream(a.dir, a.id, nullptr, false);
    if (!rec.ok()) return bench::fail(kExitFailed, "replication: " + rec.status().message());
    auto w = LogWriter::open(posix_file_system(), a.dir.writer_dir(a.id.instance), a.id.instance, a.id.vector_space,
                             rec->tail, LogWriterOptions{}, system_wall_ms());
    if (!w.ok()) return bench::fail(kExitFailed, "replication: " + w.status().message());
    SyntheticCorpus corpus;
    for (size_t i = 0; i < m; ++i) {
      payloads.push_back(encode_put_memory(corpus.memory()));
      w.value()->stage(Hlc::make(ms0 + i, 0), static_cast<uint16_t>(OpType::put_memory), payloads.back());
      if (i % 4096 == 4095 || i + 1 == m) {
        Status s = w.value()->commit();
        if (s.ok()) s = w.value()->maybe_seal(system_wall_ms());
        if (!s.ok()) return bench::fail(kExitFailed, "replication: " + s.to_string());
      }
    }
    std::printf("  node a's stream written directly: %zu ops, %.0f MiB in %.1f s\n", m,
                double(dir_bytes(a.dir.writer_dir(a.id.instance))) / (1024.0 * 1024.0), seconds_since(t0));
    std::fflush(stdout);
  }
  const double mib = double(dir_bytes(a.dir.writer_dir(a.id.instance))) / (1024.0 * 1024.0);

  int64_t t0 = now_ns();
  auto na = Node::start(member_options(*members, 0, semantic), logs.sink("a"));
  if (!na.ok()) return bench::fail(kExitFailed, "replication: node a: " + na.status().message());
  const double a_ready = seconds_since(t0);
  std::printf("  node a start to ready (replay into the state, then the lanes built side by side): %.1f s\n", a_ready);
  std::fflush(stdout);
  if (settle) {
    t0 = now_ns();
    const bool settled = poll_until_zero([&] { return na.value()->background_pending(); },
                                         "settling: vectors node a has still to put in its graphs:", t0,
                                         std::chrono::milliseconds(100), 10);
    if (!settled)
      std::printf("  node a's index work stalled (no progress for 120 s, %zu left); the catch-up starts anyway\n",
                  na.value()->background_pending());
    else
      std::printf("  node a settled (every vector in its HNSW graphs, no index work left) %.1f s after ready\n",
                  seconds_since(t0));
    std::fflush(stdout);
  }

  t0 = now_ns();
  auto nb = Node::start(member_options(*members, 1, semantic), logs.sink("b"));
  if (!nb.ok()) return bench::fail(kExitFailed, "replication: node b: " + nb.status().message());
  const double b_ready = seconds_since(t0);
  // Recall on b while it catches up, one query every probe_ms over its client endpoint: what an
  // agent on that node sees meanwhile (each query waits for whatever holds the engine's lock).
  std::atomic<bool> probe_stop{false};
  std::vector<double> probe_us;
  size_t probe_errors = 0;
  std::thread probe([&] {
    if (probe_ms == 0) return;
    auto client = NodeClient::connect(nb.value()->endpoints().front());
    if (!client.ok()) return;
    SyntheticCorpus queries(7);
    while (!probe_stop.load()) {
      ClientRequest req;
      req.kind = ClientRequest::Kind::recall;
      const std::string text = queries.memory().text;
      req.recall.text = text.substr(0, text.find(' ', text.find(' ') + 1));  // its first two words
      req.recall.realms = {"realm0", "realm1"};
      const int64_t q0 = now_ns();
      auto r = client.value()->call(req, std::chrono::seconds(10));
      if (r.ok() && r->kind == ClientResponse::Kind::recalled) probe_us.push_back(double(now_ns() - q0) / 1000.0);
      else ++probe_errors;
      std::this_thread::sleep_for(std::chrono::milliseconds(probe_ms));
    }
  });
  // Polled (not waited on: a waiter on the engine wakes after every op it applies).
  uint64_t done = 0, last_done = 0;
  int64_t last_progress = now_ns(), last_print = now_ns();
  double first_s = -1;
  bool finished = false;
  for (;;) {
    done = applied_up_to(*nb.value(), a.id.instance, m);
    const int64_t now = now_ns();
    if (done > 0 && first_s < 0) first_s = seconds_since(t0);
    if (done == m) {
      finished = true;
      break;
    }
    if (done != last_done) last_progress = now;
    if (now - last_print >= int64_t(3e9)) {
      std::fprintf(stderr, "  catch-up: %zu / %zu ops applied on b after %.0f s (%.0f/s so far)\n", size_t(done), m,
                   seconds_since(t0), double(done) / seconds_since(t0));
      last_print = now;
    }
    last_done = done;
    if (now - last_progress > int64_t(120e9)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double catchup_s = seconds_since(t0);
  // Then until the lanes have indexed what the state holds: b's indexer thread works off the
  // lane backlog the catch-up batches left (recall finds every memory from then on).
  double lanes_level_s = -1;
  size_t backlog_at_state = 0;
  if (finished) {
    backlog_at_state = nb.value()->lanes_backlog();
    if (poll_until_zero([&] { return nb.value()->lanes_backlog(); }, "catch-up: lane backlog on b", t0,
                        std::chrono::milliseconds(20), 3))
      lanes_level_s = seconds_since(t0);
  }
  probe_stop.store(true);
  probe.join();
  const double rss = rss_mib();
  if (!finished) {
    logs.dump();
    std::printf("  catch-up stalled: no progress for 120 s at %zu / %zu ops after %.1f s\n", size_t(done), m,
                catchup_s);
  } else {
    std::printf("  node b: started in %.2f s, first op applied %.2f s after its start, all %zu ops applied to the state\n"
                "  %.1f s after its start: %.0f ops/s, %.1f MiB/s (from the first op on: %.0f ops/s)\n",
                b_ready, first_s, m, catchup_s, double(m) / catchup_s, mib / catchup_s,
                double(m) / std::max(1e-9, catchup_s - first_s));
    if (lanes_level_s < 0)
      std::printf("  lane backlog stalled: no progress for 120 s at %zu memories (%zu when the state was level)\n",
                  nb.value()->lanes_backlog(), backlog_at_state);
    else
      std::printf("  and every lane level with the state (lane backlog %zu when the state was level, then 0) %.1f s\n"
                  "  after its start: %.0f ops/s (from the first op on: %.0f ops/s)\n",
                  backlog_at_state, lanes_level_s, double(m) / lanes_level_s,
                  double(m) / std::max(1e-9, lanes_level_s - first_s));
  }
  if (probe_ms > 0)
    std::printf("  recall on b meanwhile (one query, then a %zu ms pause): %zu answered, %zu failed; latency p50 %.0f us,\n"
                "  p99 %.0f us, max %.0f us\n",
                probe_ms, probe_us.size(), probe_errors, pct(probe_us, 0.5), pct(probe_us, 0.99),
                probe_us.empty() ? 0.0 : *std::max_element(probe_us.begin(), probe_us.end()));
  std::printf("  resident memory of this process with both nodes: %.0f MiB\n", rss);
  std::fflush(stdout);
  nb.value()->stop();
  na.value()->stop();
  nb.value().reset();
  na.value().reset();

  // Where the time goes: the same ops, on this thread, with no node, network or disk writes.
  std::printf("  the same %zu ops on one thread, nodes stopped (where the catch-up time goes):\n", m);
  std::fflush(stdout);
  {
    t0 = now_ns();
    auto scan = scan_writer(a.dir.writer_dir(a.id.instance), a.id.instance, a.id.vector_space, false, nullptr);
    const double s = seconds_since(t0);
    std::printf("    read and verify (CRC32C, SHA-256 chain) a's segments: %8.1f s  %9.0f ops/s%s\n", s,
                double(m) / s, scan.ok() && scan->records == m ? "" : "  (record count differs!)");
  }
  std::vector<OpValue> ops;
  {
    t0 = now_ns();
    ops.reserve(m);
    for (const auto& p : payloads) {
      auto op = decode_op(static_cast<uint16_t>(OpType::put_memory), p);
      if (!op.ok()) return bench::fail(kExitFailed, "replication: decode: " + op.status().to_string());
      ops.push_back(std::move(op.value()));
    }
    const double s = seconds_since(t0);
    std::printf("    decode the ops:                                        %8.1f s  %9.0f ops/s\n", s, double(m) / s);
  }
  payloads.clear();
  payloads.shrink_to_fit();
  double state_s = 0, lanes_s = 0;
  {
    auto engine = std::make_unique<RecallEngine>(make_all_lanes(), ScoringWeights{});
    t0 = now_ns();
    for (size_t i = 0; i < m; ++i)
      (void)engine->apply_to_state(OrderKey{Hlc::make(ms0 + i, 0), a.id.instance, Seqno(i + 1)}, ops[i]);
    state_s = seconds_since(t0);
    std::printf("    apply to the state only (no lanes):                    %8.1f s  %9.0f ops/s\n", state_s,
                double(m) / state_s);
    std::fflush(stdout);
  }
  {
    auto engine = std::make_unique<RecallEngine>(make_all_lanes(), ScoringWeights{});
    t0 = now_ns();
    int64_t last = t0;
    for (size_t i = 0; i < m; ++i) {
      (void)engine->apply(OrderKey{Hlc::make(ms0 + i, 0), a.id.instance, Seqno(i + 1)}, ops[i]);
      if ((i & 16383) == 0 && now_ns() - last > int64_t(3e9)) {
        std::fprintf(stderr, "  apply with lanes: %zu / %zu (%.0f/s)\n", i, m, double(i) / seconds_since(t0));
        last = now_ns();
      }
    }
    lanes_s = seconds_since(t0);
    std::printf("    apply to the state and every lane, op by op (a catching-up node before batches; the semantic "
                "graph deferred):\n"
                "                                                           %8.1f s  %9.0f ops/s\n",
                lanes_s, double(m) / lanes_s);
  }
  double batched_s = 0, drained_s = 0;
  {
    // What node b does now: batches of a chunk's size (4 MiB of records) to the state only,
    // then the lane backlog worked off in steps of kBackgroundStepIds memories, each one write-lock hold.
    auto engine = std::make_unique<RecallEngine>(make_all_lanes(), ScoringWeights{});
    const double bytes_per_op = mib * 1048576.0 / double(std::max<size_t>(1, m));
    const size_t chunk = std::max<size_t>(1, size_t(double(4u << 20) / std::max(1.0, bytes_per_op)));
    t0 = now_ns();
    std::vector<std::pair<OrderKey, OpValue>> batch;
    for (size_t i = 0; i < m; i += chunk) {
      batch.clear();
      for (size_t j = i; j < std::min(m, i + chunk); ++j)
        batch.emplace_back(OrderKey{Hlc::make(ms0 + j, 0), a.id.instance, Seqno(j + 1)}, ops[j]);
      (void)engine->apply_batch(batch);
    }
    batched_s = seconds_since(t0);
    const size_t backlog = engine->lanes_backlog();
    std::vector<double> holds;
    t0 = now_ns();
    for (;;) {
      const int64_t h = now_ns();
      if (engine->index_lane_backlog(kBackgroundStepIds) == 0) break;
      holds.push_back(double(now_ns() - h) / 1000.0);
    }
    drained_s = seconds_since(t0);
    std::printf("    apply in chunk-sized batches (%zu ops each), state only:   %8.1f s  %9.0f ops/s\n", chunk,
                batched_s, double(m) / batched_s);
    const size_t over_5ms = size_t(std::count_if(holds.begin(), holds.end(), [](double us) { return us > 5000; }));
    std::printf("    then the lane backlog (%zu memories), %zu a write-lock hold: %8.1f s  %9.0f memories/s\n"
                "      (hold p50 %.0f us, p99 %.0f us, max %.0f us, %zu of %zu holds over 5 ms); both: %.0f ops/s\n",
                backlog, kBackgroundStepIds, drained_s, double(backlog) / std::max(1e-9, drained_s), pct(holds, 0.5),
                pct(holds, 0.99),
                holds.empty() ? 0.0 : *std::max_element(holds.begin(), holds.end()), over_5ms, holds.size(),
                double(m) / (batched_s + drained_s));
    std::fflush(stdout);
  }
  double indexed_s = 0;
  size_t graphed = 0;
  {
    // The same again with a node's indexer beside it: a thread at nice 10 putting the semantic
    // lane's new vectors into its HNSW graphs (actors/node_start.cpp), which a catching-up node runs.
    auto engine = std::make_unique<RecallEngine>(make_all_lanes(), ScoringWeights{});
    std::atomic<bool> stop{false};
    std::atomic<size_t> moved{0};
    std::thread indexer([&] {
      (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
      while (!stop.load(std::memory_order_relaxed)) {
        const size_t n = engine->background_step(kBackgroundStepIds);
        moved += n;
        if (n == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
    t0 = now_ns();
    int64_t last = t0;
    for (size_t i = 0; i < m; ++i) {
      (void)engine->apply(OrderKey{Hlc::make(ms0 + i, 0), a.id.instance, Seqno(i + 1)}, ops[i]);
      if ((i & 16383) == 0 && now_ns() - last > int64_t(3e9)) {
        std::fprintf(stderr, "  apply with lanes, indexer beside: %zu / %zu (%.0f/s)\n", i, m,
                     double(i) / seconds_since(t0));
        last = now_ns();
      }
    }
    indexed_s = seconds_since(t0);
    stop.store(true);
    indexer.join();
    graphed = moved.load();
    std::printf("    the same with a node's indexer thread beside it (nice 10, HNSW insertions; %zu vectors\n"
                "    put into the graphs meanwhile):                        %8.1f s  %9.0f ops/s\n",
                graphed, indexed_s, double(m) / indexed_s);
  }
  if (finished)
    std::printf("  of the catch-up time to the state (%.1f s), applying in batches to the state alone takes %.0f%%\n"
                "  (op by op with every lane, as before the batch apply, would take %.0f%%, %.0f%% with the indexer\n"
                "  beside it); the rest is fetching (one fetch in flight per writer, sent before the chunk it follows is applied),\n"
                "  verifying, storing (a write per chunk; the fdatasyncs on the syncer thread beside it) and node a's own\n"
                "  indexer\n",
                catchup_s, 100.0 * batched_s / catchup_s, 100.0 * lanes_s / catchup_s, 100.0 * indexed_s / catchup_s);
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace vasana::bench
