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

// The lanes a node runs with its default configuration.
std::vector<std::unique_ptr<Lane>> node_lanes() { return make_all_lanes(SemanticLaneOptions{}, NodeOptions{}.hdc_lane); }

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

// Recall on b while it catches up, one query every probe_ms over its client endpoint: what an
// agent on that node sees meanwhile (each query waits for whatever holds the engine's lock).
// probe_ms 0: no queries. The figures may be read once stop() has returned.
class RecallProbe {
 public:
  RecallProbe(const Node& node, size_t probe_ms) : thread_([this, &node, probe_ms] { run(node, probe_ms); }) {}
  // Ends the queries and waits for the last one.
  void stop() {
    stop_.store(true);
    thread_.join();
  }
  std::vector<double> latencies_us;
  size_t errors = 0;

 private:
  void run(const Node& node, size_t probe_ms) {
    if (probe_ms == 0) return;
    auto client = NodeClient::connect(node.endpoints().front());
    if (!client.ok()) return;
    SyntheticCorpus queries(7);
    while (!stop_.load()) {
      ClientRequest req;
      req.kind = ClientRequest::Kind::recall;
      const std::string text = queries.memory().text;
      req.recall.text = text.substr(0, text.find(' ', text.find(' ') + 1));  // its first two words
      req.recall.realms = {"realm0", "realm1"};
      const int64_t q0 = now_ns();
      auto r = client.value()->call(req, std::chrono::seconds(10));
      if (r.ok() && r->kind == ClientResponse::Kind::recalled) latencies_us.push_back(double(now_ns() - q0) / 1000.0);
      else ++errors;
      std::this_thread::sleep_for(std::chrono::milliseconds(probe_ms));
    }
  }

  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: started once the figures above exist
};

// How node b's catch-up went, in seconds from its start.
struct CatchupTimes {
  double b_ready = 0;     // start to ready
  uint64_t done = 0;      // ops of a's writer applied on b
  double first_s = -1;    // the first op applied; -1: none
  bool finished = false;  // all m applied (else: no progress for 120 s)
  double catchup_s = 0;   // to all applied, or to giving up
  double lanes_level_s = -1;    // to every lane level with the state; -1: not (stalled, or not finished)
  size_t backlog_at_state = 0;  // b's lane backlog when its state was level
};

// One catch-up run, its steps in run() order; each step leaves its figures in the fields below
// for the later ones. A step returns kExitOk, or the exit code of its failure.
struct CatchupBench {
  CatchupBench(const std::string& root, size_t m, size_t probe_ms, bool settle, const SemanticLaneOptions& semantic,
               LogBuffer& logs)
      : root(root), m(m), probe_ms(probe_ms), settle(settle), semantic(semantic), logs(logs) {}

  const std::string& root;
  size_t m;
  size_t probe_ms;
  bool settle;
  const SemanticLaneOptions& semantic;
  LogBuffer& logs;

  std::vector<Member> members;        // a, b
  std::vector<std::string> payloads;  // a's ops as written, kept to replay them
  uint64_t ms0 = 0;                   // op i is stamped ms0 + i
  double mib = 0;                     // the size of a's stream
  std::unique_ptr<Node> na, nb;
  CatchupTimes times;
  std::vector<OpValue> ops;  // payloads decoded
  double lanes_s = 0, batched_s = 0, indexed_s = 0;

  const Member& a() const { return members[0]; }
  // Op i's place in a's stream.
  OrderKey key(size_t i) const { return OrderKey{Hlc::make(ms0 + i, 0), a().id.instance, Seqno(i + 1)}; }

  int run();
  int write_source_stream();
  int start_source();
  int catch_up();
  void wait_state_level(int64_t t0);
  void wait_lanes_level(int64_t t0);
  void print_catchup(const RecallProbe& probe, double rss);
  void stop_nodes();
  int replay_on_one_thread();
  void time_verify();
  int decode_payloads();
  void time_state_only();
  void time_lanes_op_by_op();
  void time_batches_then_backlog();
  void time_with_indexer();
  void print_where_time_goes();
};

// The whole run: a's stream, a started, b's catch-up timed, then the same ops on one thread.
int CatchupBench::run() {
  std::printf("\ncatch-up: a node holding %zu ops of its own starts; an empty peer starts and fetches and applies "
              "them all\n",
              m);
  std::fflush(stdout);
  auto prepared = prepare_members(root, {"a", "b"});
  if (!prepared.ok()) return bench::fail(kExitFailed, "replication: " + prepared.status().message());
  members = std::move(*prepared);
  if (int rc = write_source_stream(); rc != kExitOk) return rc;
  mib = double(dir_bytes(a().dir.writer_dir(a().id.instance))) / (1024.0 * 1024.0);
  if (int rc = start_source(); rc != kExitOk) return rc;
  if (int rc = catch_up(); rc != kExitOk) return rc;
  return replay_on_one_thread();
}

// Node a's stream, written directly (no node, no lanes): the ops kept to replay them below.
int CatchupBench::write_source_stream() {
  payloads.reserve(m);
  ms0 = system_wall_ms() - m;
  const int64_t t0 = now_ns();
  auto rec = recover_own_stream(a().dir, a().id, nullptr, false);
  if (!rec.ok()) return bench::fail(kExitFailed, "replication: " + rec.status().message());
  auto w = LogWriter::open(posix_file_system(), a().dir.writer_dir(a().id.instance), a().id.instance,
                           a().id.vector_space, rec->tail, LogWriterOptions{}, system_wall_ms());
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
              double(dir_bytes(a().dir.writer_dir(a().id.instance))) / (1024.0 * 1024.0), seconds_since(t0));
  std::fflush(stdout);
  return kExitOk;
}

// Starts node a on its stream and, with settle, waits until its index work is done.
int CatchupBench::start_source() {
  int64_t t0 = now_ns();
  auto started = Node::start(member_options(members, 0, semantic), logs.sink("a"));
  if (!started.ok()) return bench::fail(kExitFailed, "replication: node a: " + started.status().message());
  na = std::move(started.value());
  const double a_ready = seconds_since(t0);
  std::printf("  node a start to ready (replay into the state, then the lanes built side by side): %.1f s\n", a_ready);
  std::fflush(stdout);
  if (settle) {
    t0 = now_ns();
    const bool settled = poll_until_zero([&] { return na->background_pending(); },
                                         "settling: vectors node a has still to put in its graphs:", t0,
                                         std::chrono::milliseconds(100), 10);
    if (!settled)
      std::printf("  node a's index work stalled (no progress for 120 s, %zu left); the catch-up starts anyway\n",
                  na->background_pending());
    else
      std::printf("  node a settled (every vector in its HNSW graphs, no index work left) %.1f s after ready\n",
                  seconds_since(t0));
    std::fflush(stdout);
  }
  return kExitOk;
}

// Starts b empty and times it until its state, then its lanes, are level with a's stream, with
// recall probed meanwhile; prints the figures and stops both nodes.
int CatchupBench::catch_up() {
  const int64_t t0 = now_ns();
  auto started = Node::start(member_options(members, 1, semantic), logs.sink("b"));
  if (!started.ok()) return bench::fail(kExitFailed, "replication: node b: " + started.status().message());
  nb = std::move(started.value());
  times.b_ready = seconds_since(t0);
  RecallProbe probe(*nb, probe_ms);
  wait_state_level(t0);
  times.catchup_s = seconds_since(t0);
  wait_lanes_level(t0);
  probe.stop();
  const double rss = rss_mib();
  print_catchup(probe, rss);
  stop_nodes();
  return kExitOk;
}

// Polled (not waited on: a waiter on the engine wakes after every op it applies) until b has
// applied all m ops, or has made no progress for 120 s.
void CatchupBench::wait_state_level(int64_t t0) {
  uint64_t last_done = 0;
  int64_t last_progress = now_ns(), last_print = now_ns();
  for (;;) {
    times.done = applied_up_to(*nb, a().id.instance, m);
    const int64_t now = now_ns();
    if (times.done > 0 && times.first_s < 0) times.first_s = seconds_since(t0);
    if (times.done == m) {
      times.finished = true;
      break;
    }
    if (times.done != last_done) last_progress = now;
    if (now - last_print >= int64_t(3e9)) {
      std::fprintf(stderr, "  catch-up: %zu / %zu ops applied on b after %.0f s (%.0f/s so far)\n", size_t(times.done),
                   m, seconds_since(t0), double(times.done) / seconds_since(t0));
      last_print = now;
    }
    last_done = times.done;
    if (now - last_progress > int64_t(120e9)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Then until the lanes have indexed what the state holds: b's indexer thread works off the
// lane backlog the catch-up batches left (recall finds every memory from then on).
void CatchupBench::wait_lanes_level(int64_t t0) {
  if (!times.finished) return;
  times.backlog_at_state = nb->lanes_backlog();
  if (poll_until_zero([&] { return nb->lanes_backlog(); }, "catch-up: lane backlog on b", t0,
                      std::chrono::milliseconds(20), 3))
    times.lanes_level_s = seconds_since(t0);
}

// b's catch-up figures, the probe's recall latencies and this process's resident memory (rss).
void CatchupBench::print_catchup(const RecallProbe& probe, double rss) {
  const CatchupTimes& t = times;
  if (!t.finished) {
    logs.dump();
    std::printf("  catch-up stalled: no progress for 120 s at %zu / %zu ops after %.1f s\n", size_t(t.done), m,
                t.catchup_s);
  } else {
    std::printf("  node b: started in %.2f s, first op applied %.2f s after its start, all %zu ops applied to the state\n"
                "  %.1f s after its start: %.0f ops/s, %.1f MiB/s (from the first op on: %.0f ops/s)\n",
                t.b_ready, t.first_s, m, t.catchup_s, double(m) / t.catchup_s, mib / t.catchup_s,
                double(m) / std::max(1e-9, t.catchup_s - t.first_s));
    if (t.lanes_level_s < 0)
      std::printf("  lane backlog stalled: no progress for 120 s at %zu memories (%zu when the state was level)\n",
                  nb->lanes_backlog(), t.backlog_at_state);
    else
      std::printf("  and every lane level with the state (lane backlog %zu when the state was level, then 0) %.1f s\n"
                  "  after its start: %.0f ops/s (from the first op on: %.0f ops/s)\n",
                  t.backlog_at_state, t.lanes_level_s, double(m) / t.lanes_level_s,
                  double(m) / std::max(1e-9, t.lanes_level_s - t.first_s));
  }
  const std::vector<double>& probe_us = probe.latencies_us;
  if (probe_ms > 0)
    std::printf("  recall on b meanwhile (one query, then a %zu ms pause): %zu answered, %zu failed; latency p50 %.0f us,\n"
                "  p99 %.0f us, max %.0f us\n",
                probe_ms, probe_us.size(), probe.errors, pct(probe_us, 0.5), pct(probe_us, 0.99),
                probe_us.empty() ? 0.0 : *std::max_element(probe_us.begin(), probe_us.end()));
  std::printf("  resident memory of this process with both nodes: %.0f MiB\n", rss);
  std::fflush(stdout);
}

// Stops b, then a, then lets both go.
void CatchupBench::stop_nodes() {
  nb->stop();
  na->stop();
  nb.reset();
  na.reset();
}

// Where the time goes: the same ops, on this thread, with no node, network or disk writes.
int CatchupBench::replay_on_one_thread() {
  std::printf("  the same %zu ops on one thread, nodes stopped (where the catch-up time goes):\n", m);
  std::fflush(stdout);
  time_verify();
  if (int rc = decode_payloads(); rc != kExitOk) return rc;
  payloads.clear();
  payloads.shrink_to_fit();
  time_state_only();
  time_lanes_op_by_op();
  time_batches_then_backlog();
  time_with_indexer();
  print_where_time_goes();
  return kExitOk;
}

// Reads a's segments back, verifying each record.
void CatchupBench::time_verify() {
  const int64_t t0 = now_ns();
  auto scan = scan_writer(a().dir.writer_dir(a().id.instance), a().id.instance, a().id.vector_space, false, nullptr);
  const double s = seconds_since(t0);
  std::printf("    read and verify (CRC32C, SHA-256 chain) a's segments: %8.1f s  %9.0f ops/s%s\n", s,
              double(m) / s, scan.ok() && scan->records == m ? "" : "  (record count differs!)");
}

// Decodes the kept payloads into ops.
int CatchupBench::decode_payloads() {
  const int64_t t0 = now_ns();
  ops.reserve(m);
  for (const auto& p : payloads) {
    auto op = decode_op(static_cast<uint16_t>(OpType::put_memory), p);
    if (!op.ok()) return bench::fail(kExitFailed, "replication: decode: " + op.status().to_string());
    ops.push_back(std::move(op.value()));
  }
  const double s = seconds_since(t0);
  std::printf("    decode the ops:                                        %8.1f s  %9.0f ops/s\n", s, double(m) / s);
  return kExitOk;
}

// Applies the ops to a fresh engine's state alone.
void CatchupBench::time_state_only() {
  auto engine = std::make_unique<RecallEngine>(node_lanes(), ScoringWeights{});
  const int64_t t0 = now_ns();
  for (size_t i = 0; i < m; ++i) (void)engine->apply_to_state(key(i), ops[i]);
  const double state_s = seconds_since(t0);
  std::printf("    apply to the state only (no lanes):                    %8.1f s  %9.0f ops/s\n", state_s,
              double(m) / state_s);
  std::fflush(stdout);
}

// Applies the ops one by one to a fresh engine's state and every lane.
void CatchupBench::time_lanes_op_by_op() {
  auto engine = std::make_unique<RecallEngine>(node_lanes(), ScoringWeights{});
  const int64_t t0 = now_ns();
  int64_t last = t0;
  for (size_t i = 0; i < m; ++i) {
    (void)engine->apply(key(i), ops[i]);
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

// What node b does now: batches of a chunk's size (4 MiB of records) to the state only,
// then the lane backlog worked off in steps of kBackgroundStepIds memories, each one write-lock hold.
void CatchupBench::time_batches_then_backlog() {
  auto engine = std::make_unique<RecallEngine>(node_lanes(), ScoringWeights{});
  const double bytes_per_op = mib * 1048576.0 / double(std::max<size_t>(1, m));
  const size_t chunk = std::max<size_t>(1, size_t(double(4u << 20) / std::max(1.0, bytes_per_op)));
  int64_t t0 = now_ns();
  std::vector<std::pair<OrderKey, OpValue>> batch;
  for (size_t i = 0; i < m; i += chunk) {
    batch.clear();
    for (size_t j = i; j < std::min(m, i + chunk); ++j) batch.emplace_back(key(j), ops[j]);
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
  const double drained_s = seconds_since(t0);
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

// The same again with a node's indexer beside it: a thread at nice 10 putting the semantic
// lane's new vectors into its HNSW graphs (actors/node_start.cpp), which a catching-up node runs.
void CatchupBench::time_with_indexer() {
  auto engine = std::make_unique<RecallEngine>(node_lanes(), ScoringWeights{});
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
  const int64_t t0 = now_ns();
  int64_t last = t0;
  for (size_t i = 0; i < m; ++i) {
    (void)engine->apply(key(i), ops[i]);
    if ((i & 16383) == 0 && now_ns() - last > int64_t(3e9)) {
      std::fprintf(stderr, "  apply with lanes, indexer beside: %zu / %zu (%.0f/s)\n", i, m,
                   double(i) / seconds_since(t0));
      last = now_ns();
    }
  }
  indexed_s = seconds_since(t0);
  stop.store(true);
  indexer.join();
  const size_t graphed = moved.load();
  std::printf("    the same with a node's indexer thread beside it (nice 10, HNSW insertions; %zu vectors\n"
              "    put into the graphs meanwhile):                        %8.1f s  %9.0f ops/s\n",
              graphed, indexed_s, double(m) / indexed_s);
}

// The replays set against the catch-up time to the state (when b caught up).
void CatchupBench::print_where_time_goes() {
  const double catchup_s = times.catchup_s;
  if (times.finished)
    std::printf("  of the catch-up time to the state (%.1f s), applying in batches to the state alone takes %.0f%%\n"
                "  (op by op with every lane, as before the batch apply, would take %.0f%%, %.0f%% with the indexer\n"
                "  beside it); the rest is fetching (one fetch in flight per writer, sent before the chunk it follows is applied),\n"
                "  verifying, storing (a write per chunk; the fdatasyncs on the syncer thread beside it) and node a's own\n"
                "  indexer\n",
                catchup_s, 100.0 * batched_s / catchup_s, 100.0 * lanes_s / catchup_s, 100.0 * indexed_s / catchup_s);
  std::fflush(stdout);
}

}  // namespace

// probe_ms: the pause between two recall queries on the catching-up node; 0: no queries.
// settle: before b starts, wait until a has no index work left (its HNSW graphs built), as a
// serving node that has run a while has; otherwise a builds them during the catch-up, on the
// same cores.
int run_catchup(const std::string& root, size_t m, size_t probe_ms, bool settle, const SemanticLaneOptions& semantic,
                LogBuffer& logs) {
  CatchupBench run(root, m, probe_ms, settle, semantic, logs);
  return run.run();
}

}  // namespace vasana::bench
