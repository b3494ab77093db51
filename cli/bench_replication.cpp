// `vasana bench replication`: replication lag and catch-up, with Redis side by side.
//
//  1. Lag: three nodes in this process (each its own data directory, a full mesh over loopback
//     TCP with CurveZMQ keys made here, cluster "bench"). One client writes to node 0 at a fixed
//     rate (open loop, pipelined over one connection); for every write the time its
//     acknowledgement reached the client is recorded, and one watcher thread per peer node
//     records when that peer's recall first sees it (Node::wait_applied, in seqno order, and no
//     lane backlog left: a large chunk goes to the state before the lanes).
//     lag = visible on the peer - acknowledged on the origin, across both peers. It may be
//     negative: a peer can apply a write before the origin's answer has reached the client.
//  2. The same with Redis (redis-server from PATH, started and stopped here): a primary and a
//     replica on loopback, SET at the same rate to the primary (ack = reply received), and a
//     subscriber on the replica receiving each key's keyspace event (lag = event received -
//     ack). Once with the primary acknowledging from memory (appendonly no), once with
//     appendonly yes + appendfsync always.
//  3. Catch-up: a node holding M ops of its own (written with LogWriter directly) starts (with
//     --settle-source, the bench then waits until it has built its HNSW graphs); an empty peer
//     starts and the time until it has applied all M to its state, then until its
//     recall lanes are level too, is measured, while a client queries it every 20 ms (the
//     recall latency an agent on that node sees meanwhile). Then, with the nodes stopped, the
//     same ops are verified, decoded and applied on this thread (state only, then state and
//     every lane), to show where the catch-up time goes.
//
// Prints figures; asserts nothing (machines here are shared and noisy).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "actors/node.hpp"
#include "cli/bench_figures.hpp"
#include "cli/bench_redis.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/loopback_port.hpp"
#include "cli/synthetic_corpus.hpp"
#include "cli/node_client.hpp"
#include "cli/resp_client.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"
#include "store/hybrid_clock.hpp"
#include "store/stream_repair.hpp"
#include "store/writer_scan.hpp"
#include "sync/curve_keys.hpp"

namespace vasana {

using namespace bench;

namespace {

using Clock = std::chrono::steady_clock;

// Node log lines, kept and shown only when something goes wrong.
struct LogBuffer {
  std::mutex mutex;
  std::vector<std::string> lines;
  LogSink sink(const std::string& name) {
    return [this, name](const std::string& line) {
      std::lock_guard<std::mutex> g(mutex);
      if (lines.size() < 20000) lines.push_back(name + ": " + line);
    };
  }
  void dump() {
    std::lock_guard<std::mutex> g(mutex);
    const size_t from = lines.size() > 60 ? lines.size() - 60 : 0;
    std::fprintf(stderr, "bench replication: the nodes' last %zu log lines:\n", lines.size() - from);
    for (size_t i = from; i < lines.size(); ++i) std::fprintf(stderr, "  %s\n", lines[i].c_str());
  }
};

// One node of an in-process cluster: its data directory, identity, keys and peer endpoint.
struct Member {
  std::string name;
  DataDir dir;
  Identity id;
  CurveKeyPair keys;
  std::string listen;
};

Result<std::vector<Member>> prepare_members(const std::string& root, const std::vector<std::string>& names) {
  std::vector<Member> out;
  for (const auto& name : names) {
    Member m;
    m.name = name;
    m.dir = DataDir{root + "/" + name};
    auto id = init_data_dir(m.dir, VectorSpace{});
    if (!id.ok()) return id.status();
    m.id = *id;
    auto keys = generate_curve_keys();
    if (!keys.ok()) return keys.status();
    m.keys = *keys;
    const int port = free_loopback_port();
    if (port <= 0) return Status::IoError("no free loopback port");
    m.listen = "tcp://127.0.0.1:" + std::to_string(port);
    out.push_back(std::move(m));
  }
  return out;
}

// Node i of members, fetching from every other member (a full mesh).
NodeOptions member_options(const std::vector<Member>& members, size_t i, const SemanticLaneOptions& semantic) {
  NodeOptions o;
  o.dir = members[i].dir;
  o.semantic = semantic;
  o.sync.cluster = "bench";
  o.sync.listen = members[i].listen;
  o.sync.secret_key = members[i].keys.secret_z85;
  for (size_t j = 0; j < members.size(); ++j)
    if (j != i) o.sync.peers.push_back(PeerConfig{members[j].listen, members[j].keys.public_z85});
  return o;
}

// True once every node has a session up with every peer it fetches from.
bool wait_sessions_up(const std::vector<Node*>& nodes, std::chrono::seconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    bool all = true;
    for (Node* n : nodes) {
      const NodeStatus st = n->status();
      for (const auto& p : st.peers) all = all && p.up;
      all = all && !st.peers.empty();
    }
    if (all) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// The highest seqno of writer that node has applied (binary search over wait_applied, 0 ms).
uint64_t applied_up_to(const Node& node, InstanceId writer, uint64_t hi) {
  uint64_t lo = 0;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (node.wait_applied(writer, Seqno(mid), std::chrono::milliseconds(0))) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Writes n = rate * seconds memories to origin through client, paced at rate, and measures when
// each becomes visible on every peer. *last_seqno: the origin's last seqno before; after.
// realm_writes: 0 = every write in one realm; N = a new realm every N writes.
LagFigures vasana_lag(const Node& origin, const std::vector<Node*>& peers, NodeClient& client, double rate,
                      double seconds, uint64_t* last_seqno, TextGen& gen, size_t realm_writes) {
  LagFigures f;
  f.system = "vasana, 3 nodes, ack after fdatasync";
  f.target = rate;
  const size_t n = std::max<size_t>(1, size_t(std::llround(rate * seconds)));
  f.writes = n;
  const uint64_t base = *last_seqno;
  const InstanceId writer = origin.instance();
  std::vector<int64_t> ack(n, -1);
  std::vector<std::vector<int64_t>> visible(peers.size(), std::vector<int64_t>(n, -1));
  std::vector<double> ack_latency;
  ack_latency.reserve(n);
  std::atomic<size_t> limit{n};
  std::atomic<bool> give_up{false};
  std::atomic<size_t> watchers_done{0};
  std::vector<std::thread> watchers;
  for (size_t p = 0; p < peers.size(); ++p) {
    watchers.emplace_back([&, p] {
      for (size_t k = 0; k < limit.load(); ++k) {
        bool seen = false;
        while (!(seen = peers[p]->wait_applied(writer, Seqno(base + k + 1), std::chrono::milliseconds(100))))
          if (give_up.load() || k >= limit.load()) break;
        if (!seen) break;
        // Applied to the state; found by every lane only once no catch-up batch waits for the
        // lanes (a peer that fell behind applies a large chunk to the state first). Counted as
        // visible only then: conservative, as the backlog may hold other memories only.
        while (peers[p]->lanes_backlog() > 0 && !give_up.load())
          std::this_thread::sleep_for(std::chrono::microseconds(50));
        visible[p][k] = now_ns();
      }
      ++watchers_done;
    });
  }

  // Peer messages the three serving sides send per write (and acks they receive).
  auto traffic = [&] {
    PeerTraffic t = origin.peer_traffic();
    for (const Node* p : peers) {
      const PeerTraffic q = p->peer_traffic();
      t.fetches += q.fetches;
      t.pushes += q.pushes;
      t.adverts += q.adverts;
      t.acks += q.acks;
    }
    return t;
  };
  const PeerTraffic traffic0 = traffic();

  ClientRequest req;
  req.kind = ClientRequest::Kind::remember;
  req.memory.realm = "bench-lag";
  req.memory.kind = "episode";
  std::unordered_map<uint64_t, int64_t> sent_at;
  const int64_t t0 = now_ns();
  const double interval_ns = 1e9 / rate;
  const int64_t hard_end = t0 + int64_t((seconds * 3 + 30) * 1e9);
  size_t sent = 0, answered = 0;
  int64_t last_ack = t0;
  while (answered < n) {
    const int64_t now = now_ns();
    if (now > hard_end) {
      f.problem = "gave up: " + std::to_string(n - answered) + " writes unanswered " +
                  std::to_string(int(seconds * 3 + 30)) + " s after the start";
      break;
    }
    const size_t due = std::min<size_t>(n, size_t(double(now - t0) / interval_ns) + 1);
    while (sent < due && sent - answered < kWindow) {
      req.memory.text = gen.next();
      if (realm_writes) req.memory.realm = "bench-lag-" + std::to_string((base + sent) / realm_writes);
      auto rid = client.send(req);
      ++sent;
      if (!rid.ok()) {
        ++f.errors;
        ++answered;
        continue;
      }
      sent_at[*rid] = now_ns();
    }
    auto r = client.receive(std::chrono::milliseconds(1));
    while (r.ok()) {
      const int64_t t = now_ns();
      ++answered;
      auto it = sent_at.find(r->request_id);
      if (r->kind == ClientResponse::Kind::remembered) {
        const uint64_t k = r->id.seqno.value - base - 1;
        if (k < n) ack[k] = t;
        if (it != sent_at.end()) ack_latency.push_back(double(t - it->second) / 1000.0);
        ++f.acked;
        last_ack = t;
      } else {
        ++f.errors;
        if (f.problem.empty()) f.problem = "write refused: " + r->message;
      }
      if (it != sent_at.end()) sent_at.erase(it);
      r = client.receive(std::chrono::milliseconds(0));
    }
  }
  f.achieved = f.acked > 1 ? double(f.acked) / (double(last_ack - t0) / 1e9) : 0;
  limit.store(f.acked);
  // Every peer should have it all within moments; give the watchers 30 s at most.
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (watchers_done.load() < watchers.size() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  give_up.store(true);
  for (auto& t : watchers) t.join();
  *last_seqno = base + f.acked;
  fill_lags(&f, ack, visible, ack_latency);
  f.detail = lag_detail(ack, visible, {"n1", "n2"});
  const PeerTraffic traffic1 = traffic();
  const double w = double(std::max<size_t>(1, f.acked));
  char per_write[200];
  std::snprintf(per_write, sizeof per_write,
                "; peer messages per write, all nodes: %.2f pushes, %.2f adverts, %.2f fetches, %.2f acks",
                double(traffic1.pushes - traffic0.pushes) / w, double(traffic1.adverts - traffic0.adverts) / w,
                double(traffic1.fetches - traffic0.fetches) / w, double(traffic1.acks - traffic0.acks) / w);
  f.detail += per_write;
  if (f.missing && f.problem.empty())
    f.problem = std::to_string(f.missing) + " (write, peer) pairs not visible within 30 s of the last ack";
  return f;
}

// --- Catch-up ---------------------------------------------------------------------------

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
  if (!members.ok()) return fail(kExitFailed, "bench replication: " + members.status().message());
  Member& a = (*members)[0];

  // Node a's stream, written directly (no node, no lanes): the ops kept to replay them below.
  std::vector<std::string> payloads;
  payloads.reserve(m);
  const uint64_t ms0 = system_wall_ms() - m;
  {
    const int64_t t0 = now_ns();
    auto rec = recover_own_stream(a.dir, a.id, nullptr);
    if (!rec.ok()) return fail(kExitFailed, "bench replication: " + rec.status().message());
    auto w = LogWriter::open(posix_file_system(), a.dir.writer_dir(a.id.instance), a.id.instance, a.id.vector_space,
                             rec->tail, LogWriterOptions{}, system_wall_ms());
    if (!w.ok()) return fail(kExitFailed, "bench replication: " + w.status().message());
    SyntheticCorpus corpus;
    for (size_t i = 0; i < m; ++i) {
      payloads.push_back(encode_put_memory(corpus.memory()));
      w.value()->stage(Hlc::make(ms0 + i, 0), static_cast<uint16_t>(OpType::put_memory), payloads.back());
      if (i % 4096 == 4095 || i + 1 == m) {
        Status s = w.value()->commit();
        if (s.ok()) s = w.value()->maybe_seal(system_wall_ms());
        if (!s.ok()) return fail(kExitFailed, "bench replication: " + s.to_string());
      }
    }
    std::printf("  node a's stream written directly: %zu ops, %.0f MiB in %.1f s\n", m,
                double(dir_bytes(a.dir.writer_dir(a.id.instance))) / (1024.0 * 1024.0), seconds_since(t0));
    std::fflush(stdout);
  }
  const double mib = double(dir_bytes(a.dir.writer_dir(a.id.instance))) / (1024.0 * 1024.0);

  int64_t t0 = now_ns();
  auto na = Node::start(member_options(*members, 0, semantic), logs.sink("a"));
  if (!na.ok()) return fail(kExitFailed, "bench replication: node a: " + na.status().message());
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
  if (!nb.ok()) return fail(kExitFailed, "bench replication: node b: " + nb.status().message());
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
      if (!op.ok()) return fail(kExitFailed, "bench replication: decode: " + op.status().to_string());
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
    // lane's new vectors into its HNSW graphs (actors/node.cpp), which a catching-up node runs.
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

// 128-byte append + fdatasync, one at a time, for `seconds`: what one sync costs on this disk
// (the origin pays one before it acknowledges, each peer one before it applies).
void print_fdatasync(const std::string& dir, double seconds) {
  const std::string path = dir + "/fdatasync.probe";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char buf[128] = {1};
  std::vector<double> lat;
  const int64_t t0 = now_ns();
  while (seconds_since(t0) < seconds) {
    const int64_t t = now_ns();
    if (::write(fd, buf, sizeof buf) != ssize_t(sizeof buf) || ::fdatasync(fd) != 0) break;
    lat.push_back(double(now_ns() - t) / 1000.0);
  }
  ::close(fd);
  ::unlink(path.c_str());
  std::printf("this disk: fdatasync of a 128-byte append p50 %.0f us, p99 %.0f us (%zu in %.1f s)\n\n", pct(lat, 0.5),
              pct(lat, 0.99), lat.size(), seconds);
}

std::vector<double> parse_rates(const std::string& text, bool* ok) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string part;
  *ok = true;
  while (std::getline(in, part, ',')) {
    const double r = std::atof(part.c_str());
    if (r < 1 || r > 1e6) *ok = false;
    out.push_back(r);
  }
  if (out.empty()) *ok = false;
  return out;
}

}  // namespace

int cmd_bench_replication(const Words& words) {
  auto args = parse_args(
      words, {"dir", "seconds", "rates", "catchup-ops", "realm-writes", "probe-ms", "semantic-exact-limit"},
      {"skip-redis", "skip-catchup", "settle-source", "keep"});
  if (!args.ok()) return fail(kExitUsage, "bench replication: " + args.status().message());
  double seconds = 4;
  if (auto s = args->get("seconds")) {
    seconds = std::atof(s->c_str());
    if (seconds <= 0 || seconds > 600) return fail(kExitUsage, "bench replication: --seconds must be from 0 to 600");
  }
  bool rates_ok = true;
  std::vector<double> rates = parse_rates(args->get("rates").value_or("1000,10000"), &rates_ok);
  if (!rates_ok) return fail(kExitUsage, "bench replication: --rates takes writes per second such as 1000,10000");
  size_t catchup_ops = 1000000;
  if (auto c = args->get("catchup-ops")) {
    const long n = std::atol(c->c_str());
    if (n <= 0 || n > 100000000) return fail(kExitUsage, "bench replication: --catchup-ops takes a count such as 1000000");
    catchup_ops = size_t(n);
  }
  size_t realm_writes = 0;
  if (auto r = args->get("realm-writes")) {
    const long n = std::atol(r->c_str());
    if (n <= 0) return fail(kExitUsage, "bench replication: --realm-writes takes a count such as 1000");
    realm_writes = size_t(n);
  }
  auto semantic_or = semantic_options(*args);
  if (!semantic_or.ok()) return fail(kExitUsage, "bench replication: " + semantic_or.status().message());
  const SemanticLaneOptions semantic = *semantic_or;
  size_t probe_ms = 20;
  if (auto p = args->get("probe-ms")) {
    const long n = std::atol(p->c_str());
    if (n < 0 || n > 60000 || (n == 0 && *p != "0"))
      return fail(kExitUsage, "bench replication: --probe-ms takes milliseconds from 0 (no queries) to 60000");
    probe_ms = size_t(n);
  }
  const std::string parent = args->get("dir").value_or("/tmp");
  std::string tmpl = parent + "/vasana-bench-repl-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return fail(kExitFailed, "bench replication: cannot create a directory in " + parent);
  const std::string root = std::filesystem::absolute(buf.data()).string();
  auto cleanup = [&] {
    if (!args->has("keep")) std::filesystem::remove_all(root);
  };

  std::printf("vasana bench replication: %s, %.1f s per rate\n\n", root.c_str(), seconds);
  print_fdatasync(root, 1.0);
  std::printf("replication lag: one client writes at a fixed rate (open loop, pipelined on one connection) to the\n"
              "origin; lag = the time a peer first sees a write (recall-visible) - the time its acknowledgement\n"
              "reached the client; negative when a peer applied it before the answer reached the client.\n"
              "All times in microseconds.\n");
  if (realm_writes)
    std::printf("vasana writes go to a new realm every %zu writes (--realm-writes).\n", realm_writes);
  std::printf("vasana realms of at most %zu memories are searched exactly (--semantic-exact-limit): no node\n"
              "builds a semantic graph for them; a larger realm's graph takes its insertions on every node.\n",
              semantic.exact_limit);
  print_lag_header();
  std::fflush(stdout);
  LogBuffer logs;
  TextGen gen;
  std::vector<LagFigures> vasana_rows;
  {
    auto members = prepare_members(root + "/lag", {"n0", "n1", "n2"});
    if (!members.ok()) {
      cleanup();
      return fail(kExitFailed, "bench replication: " + members.status().message());
    }
    std::vector<std::unique_ptr<Node>> nodes;
    for (size_t i = 0; i < members->size(); ++i) {
      auto n = Node::start(member_options(*members, i, semantic), logs.sink((*members)[i].name));
      if (!n.ok()) {
        nodes.clear();
        cleanup();
        return fail(kExitFailed, "bench replication: " + (*members)[i].name + ": " + n.status().message());
      }
      nodes.push_back(std::move(n.value()));
    }
    std::vector<Node*> all = {nodes[0].get(), nodes[1].get(), nodes[2].get()};
    std::vector<Node*> peers = {nodes[1].get(), nodes[2].get()};
    std::string problem;
    if (!wait_sessions_up(all, std::chrono::seconds(20))) problem = "the peer sessions did not all come up within 20 s";
    auto client = NodeClient::connect(nodes[0]->endpoints().front());
    if (problem.empty() && !client.ok()) problem = client.status().message();
    uint64_t last_seqno = 0;
    if (problem.empty()) {
      // Warm-up, not counted: 200 writes at 1,000/s, until both peers have them.
      LagFigures warm = vasana_lag(*nodes[0], peers, *client.value(), 1000, 0.2, &last_seqno, gen, realm_writes);
      if (!warm.problem.empty()) problem = "warm-up: " + warm.problem;
    }
    for (double r : rates) {
      if (!problem.empty()) {
        LagFigures f;
        f.system = "vasana, 3 nodes, ack after fdatasync";
        f.target = r;
        f.problem = problem;
        vasana_rows.push_back(f);
        print_lag_row(f);
        continue;
      }
      vasana_rows.push_back(vasana_lag(*nodes[0], peers, *client.value(), r, seconds, &last_seqno, gen, realm_writes));
      print_lag_row(vasana_rows.back());
      if (vasana_rows.back().problem.find("gave up") == 0) problem = "an earlier rate gave up";
    }
    if (!problem.empty()) logs.dump();
    if (client.ok()) client.value().reset();
    for (auto& n : nodes) n->stop();
  }

  std::vector<LagFigures> redis_plain, redis_aof;
  const std::string redis = find_on_path("redis-server");
  if (args->has("skip-redis")) {
    std::printf("  (Redis comparison skipped: --skip-redis)\n");
  } else if (redis.empty()) {
    std::printf("  (Redis comparison skipped: redis-server is not on PATH; on Debian 12: apt-get install redis-server)\n");
  } else {
    redis_plain = redis_rows(redis, root + "/redis-memory", "redis primary+replica, appendonly no",
                             {"--appendonly", "no"}, rates, seconds, gen);
    redis_aof = redis_rows(redis, root + "/redis-fsync", "redis primary+replica, appendfsync always",
                           {"--appendonly", "yes", "--appendfsync", "always"}, rates, seconds, gen);
  }
  std::fflush(stdout);

  if (!redis_plain.empty()) {
    std::printf("\nfair durability: vasana acknowledges a write after its fdatasync on the origin; the first Redis\n"
                "primary acknowledges from memory (appendonly no: an acknowledged write can be lost with the\n"
                "primary), the second after its AOF fsync (appendfsync always). Both Redis rows push the command\n"
                "to the replica as it executes; the vasana origin pushes it to its peers after its fdatasync\n"
                "(CurveZMQ); each peer verifies it, writes it and applies it to the state and every lane (its\n"
                "fdatasync of the copy runs beside that). The vasana watchers run in-process; the Redis\n"
                "keyspace event crosses one more loopback socket.\n");
    std::printf("\nratio of lag p99, vasana / Redis, per rate\n");
    for (size_t i = 0; i < rates.size(); ++i) {
      auto ratio = [](const LagFigures& v, const LagFigures& r) {
        if (!v.ran || !r.ran || r.lag_p99 <= 0) return std::string("n/a");
        char b[32];
        std::snprintf(b, sizeof b, "%.1fx", v.lag_p99 / r.lag_p99);
        return std::string(b);
      };
      std::printf("  %6.0f/s: %s against appendonly no (%.0f / %.0f us), %s against appendfsync always (%.0f / %.0f us)\n",
                  rates[i], ratio(vasana_rows[i], redis_plain[i]).c_str(), vasana_rows[i].lag_p99,
                  redis_plain[i].lag_p99, ratio(vasana_rows[i], redis_aof[i]).c_str(), vasana_rows[i].lag_p99,
                  redis_aof[i].lag_p99);
    }
  }
  std::fflush(stdout);

  int rc = kExitOk;
  if (!args->has("skip-catchup"))
    rc = run_catchup(root + "/catchup", catchup_ops, probe_ms, args->has("settle-source"), semantic, logs);
  cleanup();
  return rc;
}

}  // namespace vasana
