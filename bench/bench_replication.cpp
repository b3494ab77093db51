// `vasana-bench replication`: replication lag and catch-up, with Redis side by side.
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
//  3. Catch-up (bench/bench_catchup.cpp): a node holding M ops of its own (written with LogWriter
//     directly) starts (with --settle-source, the bench then waits until it has built its HNSW
//     graphs); an empty peer starts and the time until it has applied all M to its state, then
//     until its recall lanes are level too, is measured, while a client queries it every 20 ms (the
//     recall latency an agent on that node sees meanwhile). Then, with the nodes stopped, the
//     same ops are verified, decoded and applied on this thread (state only, then state and
//     every lane), to show where the catch-up time goes.
//
// Prints figures; asserts nothing (machines here are shared and noisy).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "actors/node.hpp"
#include "bench/bench_catchup.hpp"
#include "bench/bench_cluster.hpp"
#include "bench/bench_commands.hpp"
#include "bench/bench_figures.hpp"
#include "bench/bench_op_mix.hpp"
#include "bench/bench_redis.hpp"
#include "cli/cli_common.hpp"
#include "frontends/node_client.hpp"

namespace vasana {

using namespace bench;

namespace {

using Clock = std::chrono::steady_clock;

// With every write sent, how long the client waits for one more answer before it gives up.
constexpr std::chrono::seconds kIdleGiveUp{10};

// One vasana_lag run (its comment says what it measures): the watchers, the paced writes and
// their answers, and the figures, as steps sharing the fields below.
class LagRun {
 public:
  LagRun(const Node& origin, const std::vector<Node*>& peers, NodeClient& client, double rate, double seconds,
         uint64_t last_seqno, TextGen& gen, size_t realm_writes, OpMix* mix, OpTally* tally)
      : origin_(origin), peers_(peers), client_(client), rate_(rate), seconds_(seconds), gen_(gen),
        realm_writes_(realm_writes), mix_(mix), tally_(tally) {
    f_.system = mix ? "vasana, 3 nodes, op mix" : "vasana, 3 nodes, ack after fdatasync";
    f_.target = rate;
    n_ = std::max<size_t>(1, size_t(std::llround(rate * seconds)));
    f_.writes = n_;
    base_ = last_seqno;
    writer_ = origin.instance();
    ack_.assign(n_, -1);
    visible_.assign(peers.size(), std::vector<int64_t>(n_, -1));
    ack_latency_.reserve(n_);
    limit_.store(n_);
  }

  // Peer messages the three serving sides send per write (and acks they receive).
  PeerTraffic traffic() const {
    PeerTraffic t = origin_.peer_traffic();
    for (const Node* p : peers_) {
      const PeerTraffic q = p->peer_traffic();
      t.fetches += q.fetches;
      t.pushes += q.pushes;
      t.adverts += q.adverts;
      t.acks += q.acks;
    }
    return t;
  }

  // One thread per peer, recording when each write becomes visible there.
  void start_watchers() {
    for (size_t p = 0; p < peers_.size(); ++p) {
      watchers_.emplace_back([this, p] {
        for (size_t k = 0; k < limit_.load(); ++k) {
          bool seen = false;
          while (!(seen = peers_[p]->wait_applied(writer_, Seqno(base_ + k + 1), std::chrono::milliseconds(100))))
            if (give_up_.load() || k >= limit_.load()) break;
          if (!seen) break;
          // Applied to the state; found by every lane only once no catch-up batch waits for the
          // lanes (a peer that fell behind applies a large chunk to the state first). Counted as
          // visible only then: conservative, as the backlog may hold other memories only.
          while (peers_[p]->lanes_backlog() > 0 && !give_up_.load())
            std::this_thread::sleep_for(std::chrono::microseconds(50));
          visible_[p][k] = now_ns();
        }
        ++watchers_done_;
      });
    }
  }

  // Sends the n writes paced at the rate, a window at most in flight, and takes their answers,
  // until all are answered or the run gives up (f_.problem says why).
  void write_all() {
    ClientRequest req;
    req.kind = ClientRequest::Kind::remember;
    req.memory.realm = "bench-lag";
    req.memory.kind = "episode";
    op_of_.resize(mix_ ? n_ : 0);
    t0_ = now_ns();
    const double interval_ns = 1e9 / rate_;
    const int64_t hard_end = t0_ + int64_t((seconds_ * 3 + 30) * 1e9);
    last_ack_ = t0_;
    last_answer_ = t0_;
    dropped0_ = origin_.status().client_replies_dropped;
    while (answered_ < n_) {
      const int64_t now = now_ns();
      if (now > hard_end) {
        f_.problem = unanswered(std::to_string(int(seconds_ * 3 + 30)) + " s after the start");
        break;
      }
      if (sent_ == n_ && now - last_answer_ > int64_t(kIdleGiveUp.count()) * 1000000000) {
        f_.problem = unanswered(std::to_string(kIdleGiveUp.count()) + " s after the last answer");
        break;
      }
      const size_t due = std::min<size_t>(n_, size_t(double(now - t0_) / interval_ns) + 1);
      send_due(req, due);
      take_answers();
    }
  }

  // Stops the watchers once they have seen every acknowledged write (30 s at most), then fills
  // the figures; *last_seqno: the origin's last seqno after the run.
  LagFigures finish(const PeerTraffic& traffic0, uint64_t* last_seqno) {
    if (tally_)
      for (const auto& [rid, p] : planned_) tally_->failed(p.op, "never answered");
    f_.achieved = f_.acked > 1 ? double(f_.acked) / (double(last_ack_ - t0_) / 1e9) : 0;
    // Writes whose replies were lost still took their seqnos: the peers are watched up to the
    // highest one acknowledged, and the next run starts after the last one the origin wrote.
    limit_.store(acked_span_);
    // Every peer should have it all within moments; give the watchers 30 s at most.
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (watchers_done_.load() < watchers_.size() && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    give_up_.store(true);
    for (auto& t : watchers_) t.join();
    *last_seqno = std::max(base_ + acked_span_, applied_up_to(origin_, writer_, base_ + sent_));
    fill_figures(traffic0);
    return f_;
  }

 private:
  std::string unanswered(const std::string& when) const {
    const uint64_t dropped = origin_.status().client_replies_dropped - dropped0_;
    return "gave up: " + std::to_string(n_ - answered_) + " writes unanswered " + when + " (the origin dropped " +
           std::to_string(dropped) + " replies its client socket's queue could not take)";
  }

  // Sends writes until due are sent or a window of them waits for answers.
  void send_due(ClientRequest& req, size_t due) {
    while (sent_ < due && sent_ - answered_ < kWindow) {
      req.memory.text = gen_.next();
      if (realm_writes_) req.memory.realm = "bench-lag-" + std::to_string((base_ + sent_) / realm_writes_);
      PlannedOp p;
      if (mix_) p = mix_->next(req.memory.realm, req.memory.text);
      auto rid = client_.send(mix_ ? p.request : req);
      ++sent_;
      if (!rid.ok()) {
        ++f_.errors;
        ++answered_;
        if (tally_) tally_->failed(p.op, rid.status().message());
        continue;
      }
      sent_at_[*rid] = now_ns();
      if (mix_) planned_.emplace(*rid, std::move(p));
    }
  }

  // Takes every answer that arrives within 1 ms, and those waiting behind it.
  void take_answers() {
    auto r = client_.receive(std::chrono::milliseconds(1));
    while (r.ok()) {
      const int64_t t = now_ns();
      auto it = sent_at_.find(r->request_id);
      if (it == sent_at_.end()) {  // a late answer to an earlier run's request
        r = client_.receive(std::chrono::milliseconds(0));
        continue;
      }
      ++answered_;
      last_answer_ = t;
      auto pl = planned_.find(r->request_id);
      const bool ok = r->kind == ClientResponse::Kind::remembered ||
                      (mix_ && r->kind == ClientResponse::Kind::written);
      if (ok) {
        const uint64_t k = r->id.seqno.value - base_ - 1;
        if (k < n_) ack_[k] = t;
        if (k < n_) acked_span_ = std::max(acked_span_, size_t(k + 1));
        ack_latency_.push_back(double(t - it->second) / 1000.0);
        if (pl != planned_.end()) {
          if (k < n_) op_of_[k] = pl->second.op;
          if (tally_) tally_->acked(pl->second.op, ack_latency_.back());
        }
        ++f_.acked;
        last_ack_ = t;
      } else {
        ++f_.errors;
        if (f_.problem.empty()) f_.problem = "write refused: " + r->message;
        if (tally_ && pl != planned_.end()) tally_->failed(pl->second.op, r->message);
      }
      if (pl != planned_.end()) {
        mix_->answered(pl->second, *r);
        planned_.erase(pl);
      }
      sent_at_.erase(it);
      r = client_.receive(std::chrono::milliseconds(0));
    }
  }

  // Lags, per-op lags into the tally, the detail with peer messages per write, and what went
  // missing.
  void fill_figures(const PeerTraffic& traffic0) {
    fill_lags(&f_, ack_, visible_, ack_latency_);
    if (tally_)
      for (const auto& vis : visible_)
        for (size_t k = 0; k < op_of_.size(); ++k)
          if (ack_[k] >= 0 && vis[k] >= 0)
            tally_->lag_us[size_t(op_of_[k])].push_back(double(vis[k] - ack_[k]) / 1000.0);
    f_.detail = lag_detail(ack_, visible_, {"n1", "n2"});
    const PeerTraffic traffic1 = traffic();
    const double w = double(std::max<size_t>(1, f_.acked));
    char per_write[200];
    std::snprintf(per_write, sizeof per_write,
                  "; peer messages per write, all nodes: %.2f pushes, %.2f adverts, %.2f fetches, %.2f acks",
                  double(traffic1.pushes - traffic0.pushes) / w, double(traffic1.adverts - traffic0.adverts) / w,
                  double(traffic1.fetches - traffic0.fetches) / w, double(traffic1.acks - traffic0.acks) / w);
    f_.detail += per_write;
    if (f_.missing && f_.problem.empty())
      f_.problem = std::to_string(f_.missing) + " (write, peer) pairs not visible within 30 s of the last ack";
  }

  const Node& origin_;
  const std::vector<Node*>& peers_;
  NodeClient& client_;
  const double rate_, seconds_;
  TextGen& gen_;
  const size_t realm_writes_;
  OpMix* const mix_;
  OpTally* const tally_;

  LagFigures f_;
  size_t n_ = 0;      // writes to send
  uint64_t base_ = 0;  // the origin's last seqno before the run: write k takes seqno base_ + k + 1
  InstanceId writer_;
  std::vector<int64_t> ack_;                   // write k -> when its ack reached the client; -1: none
  std::vector<std::vector<int64_t>> visible_;  // [peer][k] -> when recall-visible there; -1: not
  std::vector<double> ack_latency_;
  std::atomic<size_t> limit_{0};  // the watchers watch writes below it
  std::atomic<bool> give_up_{false};
  std::atomic<size_t> watchers_done_{0};
  std::vector<std::thread> watchers_;

  std::unordered_map<uint64_t, int64_t> sent_at_;
  std::unordered_map<uint64_t, PlannedOp> planned_;  // request id -> the mix's op
  std::vector<MixOp> op_of_;                         // seqno - base - 1 -> op
  int64_t t0_ = 0;
  size_t sent_ = 0, answered_ = 0;
  int64_t last_ack_ = 0, last_answer_ = 0;
  size_t acked_span_ = 0;  // 1 + the highest seqno - base - 1 acknowledged
  uint64_t dropped0_ = 0;
};

// Writes n = rate * seconds memories to origin through client, paced at rate, and measures when
// each becomes visible on every peer. *last_seqno: the origin's last seqno before; after.
// realm_writes: 0 = every write in one realm; N = a new realm every N writes.
// mix: null = remember only; else the requests come from it (every client write op, each one
// op, so one seqno, when acknowledged), and tally gets each op's ack latency, lags and errors.
LagFigures vasana_lag(const Node& origin, const std::vector<Node*>& peers, NodeClient& client, double rate,
                      double seconds, uint64_t* last_seqno, TextGen& gen, size_t realm_writes,
                      OpMix* mix = nullptr, OpTally* tally = nullptr) {
  LagRun run(origin, peers, client, rate, seconds, *last_seqno, gen, realm_writes, mix, tally);
  run.start_watchers();
  const PeerTraffic traffic0 = run.traffic();
  run.write_all();
  return run.finish(traffic0, last_seqno);
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

// What `vasana-bench replication` was asked for (its options; defaults when not given).
struct ReplicationOptions {
  bool with_mix = false;  // --mix all
  double seconds = 4;     // per rate
  std::vector<double> rates;
  size_t catchup_ops = 1000000;
  size_t realm_writes = 0;
  SemanticLaneOptions semantic;
  size_t probe_ms = 20;
};

// Reads the options from args into *o; kExitOk, or the exit code of the usage failure (reported).
int parse_replication_options(const Args& args, ReplicationOptions* o) {
  auto mix_mode = parse_mix(args);
  if (!mix_mode.ok()) return bench::fail(kExitUsage, "replication: " + mix_mode.status().message());
  o->with_mix = *mix_mode == MixMode::all;
  if (auto s = args.get("seconds")) {
    o->seconds = std::atof(s->c_str());
    if (o->seconds <= 0 || o->seconds > 600) return bench::fail(kExitUsage, "replication: --seconds must be from 0 to 600");
  }
  bool rates_ok = true;
  o->rates = parse_rates(args.get("rates").value_or("1000,10000"), &rates_ok);
  if (!rates_ok) return bench::fail(kExitUsage, "replication: --rates takes writes per second such as 1000,10000");
  if (auto c = args.get("catchup-ops")) {
    const long n = std::atol(c->c_str());
    if (n <= 0 || n > 100000000) return bench::fail(kExitUsage, "replication: --catchup-ops takes a count such as 1000000");
    o->catchup_ops = size_t(n);
  }
  if (auto r = args.get("realm-writes")) {
    const long n = std::atol(r->c_str());
    if (n <= 0) return bench::fail(kExitUsage, "replication: --realm-writes takes a count such as 1000");
    o->realm_writes = size_t(n);
  }
  auto semantic_or = semantic_options(args);
  if (!semantic_or.ok()) return bench::fail(kExitUsage, "replication: " + semantic_or.status().message());
  o->semantic = *semantic_or;
  if (auto p = args.get("probe-ms")) {
    const long n = std::atol(p->c_str());
    if (n < 0 || n > 60000 || (n == 0 && *p != "0"))
      return bench::fail(kExitUsage, "replication: --probe-ms takes milliseconds from 0 (no queries) to 60000");
    o->probe_ms = size_t(n);
  }
  return kExitOk;
}

// The run's heading: the directory, this disk's fdatasync, what the lag rows measure, and the
// rows' header.
void print_lag_intro(const std::string& root, const ReplicationOptions& o) {
  std::printf("vasana-bench replication: %s, %.1f s per rate\n\n", root.c_str(), o.seconds);
  print_fdatasync(root, 1.0);
  std::printf("replication lag: one client writes at a fixed rate (open loop, pipelined on one connection) to the\n"
              "origin; lag = the time a peer first sees a write (recall-visible) - the time its acknowledgement\n"
              "reached the client; negative when a peer applied it before the answer reached the client.\n"
              "All times in microseconds.\n");
  if (o.realm_writes)
    std::printf("vasana writes go to a new realm every %zu writes (--realm-writes).\n", o.realm_writes);
  std::printf("vasana realms of at most %zu memories are searched exactly (--semantic-exact-limit): no node\n"
              "builds a semantic graph for them; a larger realm's graph takes its insertions on every node.\n",
              o.semantic.exact_limit);
  if (o.with_mix)
    std::printf("--mix all: after the puts-only rows, the same client at the same rates sends a seeded mix of every\n"
                "client write op against memories it created and had acknowledged earlier in the run:\n%s.\n"
                "Each op's lag is measured as a put's: its seqno applied on the peer with no lane backlog.\n",
                mix_description().c_str());
  print_lag_header();
  std::fflush(stdout);
}

// The vasana lag rows, one per rate: puts only, then (--mix all) the op mix.
struct VasanaLagRows {
  std::vector<LagFigures> puts, mix;
};

// On three running nodes (node 0 the origin): a warm-up, then the rows, each printed as it is
// measured; a row that cannot run says why. Stops the nodes at the end.
void measure_lag_rows(const std::vector<std::unique_ptr<Node>>& nodes, const ReplicationOptions& o, LogBuffer& logs,
                      TextGen& gen, VasanaLagRows* rows) {
  std::vector<Node*> all = {nodes[0].get(), nodes[1].get(), nodes[2].get()};
  std::vector<Node*> peers = {nodes[1].get(), nodes[2].get()};
  std::string problem;
  if (!wait_sessions_up(all, std::chrono::seconds(20))) problem = "the peer sessions did not all come up within 20 s";
  auto client = NodeClient::connect(nodes[0]->endpoints().front());
  if (problem.empty() && !client.ok()) problem = client.status().message();
  uint64_t last_seqno = 0;
  // A rate that gave up does not stop the next: its lost replies' writes are counted from
  // the origin's own stream (vasana_lag), and its late answers are not taken for the next's.
  bool gave_up = false;
  if (problem.empty()) {
    // Warm-up, not counted: 200 writes at 1,000/s, until both peers have them.
    LagFigures warm = vasana_lag(*nodes[0], peers, *client.value(), 1000, 0.2, &last_seqno, gen, o.realm_writes);
    if (!warm.problem.empty()) problem = "warm-up: " + warm.problem;
  }
  for (double r : o.rates) {
    if (!problem.empty()) {
      LagFigures f;
      f.system = "vasana, 3 nodes, ack after fdatasync";
      f.target = r;
      f.problem = problem;
      rows->puts.push_back(f);
      print_lag_row(f);
      continue;
    }
    rows->puts.push_back(vasana_lag(*nodes[0], peers, *client.value(), r, o.seconds, &last_seqno, gen, o.realm_writes));
    print_lag_row(rows->puts.back());
    gave_up = gave_up || rows->puts.back().problem.find("gave up") == 0;
  }
  OpMix mix(1);
  for (size_t i = 0; o.with_mix && i < o.rates.size(); ++i) {
    LagFigures f;
    OpTally tally;
    if (problem.empty()) {
      f = vasana_lag(*nodes[0], peers, *client.value(), o.rates[i], o.seconds, &last_seqno, gen, o.realm_writes, &mix,
                     &tally);
    } else {
      f.system = "vasana, 3 nodes, op mix";
      f.target = o.rates[i];
      f.problem = problem;
    }
    rows->mix.push_back(f);
    print_lag_row(f);
    if (f.ran) print_mix_lag_table(tally);
    gave_up = gave_up || f.problem.find("gave up") == 0;
  }
  if (!problem.empty() || gave_up) logs.dump();
  if (client.ok()) client.value().reset();
  for (auto& n : nodes) n->stop();
}

// Starts the three nodes in root/lag and measures the vasana rows on them. kExitOk, or the exit
// code of a failure to start them (reported after cleanup()).
int measure_vasana_lag(const std::string& root, const ReplicationOptions& o, LogBuffer& logs, TextGen& gen,
                       VasanaLagRows* rows, const std::function<void()>& cleanup) {
  auto members = prepare_members(root + "/lag", {"n0", "n1", "n2"});
  if (!members.ok()) {
    cleanup();
    return bench::fail(kExitFailed, "replication: " + members.status().message());
  }
  std::vector<std::unique_ptr<Node>> nodes;
  for (size_t i = 0; i < members->size(); ++i) {
    NodeOptions options = member_options(*members, i, o.semantic);
    options.write_policy = bench_write_policy();
    auto n = Node::start(std::move(options), logs.sink((*members)[i].name));
    if (!n.ok()) {
      nodes.clear();
      cleanup();
      return bench::fail(kExitFailed, "replication: " + (*members)[i].name + ": " + n.status().message());
    }
    nodes.push_back(std::move(n.value()));
  }
  measure_lag_rows(nodes, o, logs, gen, rows);
  return kExitOk;
}

// The Redis rows (redis-server from PATH): from memory (*plain) and with appendfsync always
// (*aof); none with --skip-redis or without redis-server, which it says.
void measure_redis_lag(const Args& args, const std::string& root, const ReplicationOptions& o, TextGen& gen,
                       std::vector<LagFigures>* plain, std::vector<LagFigures>* aof) {
  const std::string redis = find_on_path("redis-server");
  if (args.has("skip-redis")) {
    std::printf("  (Redis comparison skipped: --skip-redis)\n");
  } else if (redis.empty()) {
    std::printf("  (Redis comparison skipped: redis-server is not on PATH; on Debian 12: apt-get install redis-server)\n");
  } else {
    *plain = redis_rows(redis, root + "/redis-memory", "redis primary+replica, appendonly no",
                        {"--appendonly", "no"}, o.rates, o.seconds, gen);
    *aof = redis_rows(redis, root + "/redis-fsync", "redis primary+replica, appendfsync always",
                      {"--appendonly", "yes", "--appendfsync", "always"}, o.rates, o.seconds, gen);
  }
}

// What the vasana and Redis rows each acknowledge after, and vasana's lag p99 over Redis's per rate.
void print_redis_ratios(const std::vector<double>& rates, const std::vector<LagFigures>& vasana_rows,
                        const std::vector<LagFigures>& redis_plain, const std::vector<LagFigures>& redis_aof) {
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

// The op mix's lag, ack latency and rate against puts only's, per rate.
void print_mix_ratios(const std::vector<double>& rates, const VasanaLagRows& rows) {
  std::printf("\nop mix against puts only, same cluster and client, per rate (us; ratio mix / puts)\n");
  for (size_t i = 0; i < rates.size() && i < rows.mix.size(); ++i) {
    const LagFigures& p = rows.puts[i];
    const LagFigures& m = rows.mix[i];
    auto ratio = [](double a, double b) {
      if (b <= 0) return std::string("n/a");
      char b2[32];
      std::snprintf(b2, sizeof b2, "%.2fx", a / b);
      return std::string(b2);
    };
    if (!p.ran || !m.ran) {
      std::printf("  %6.0f/s: not measured\n", rates[i]);
      continue;
    }
    std::printf("  %6.0f/s: lag p50 %.0f puts, %.0f mix (%s); lag p99 %.0f puts, %.0f mix (%s); "
                "ack p50 %.0f / %.0f (%s), ack p99 %.0f / %.0f (%s); achieved %.0f / %.0f per s\n",
                rates[i], p.lag_p50, m.lag_p50, ratio(m.lag_p50, p.lag_p50).c_str(), p.lag_p99, m.lag_p99,
                ratio(m.lag_p99, p.lag_p99).c_str(), p.ack_p50, m.ack_p50, ratio(m.ack_p50, p.ack_p50).c_str(),
                p.ack_p99, m.ack_p99, ratio(m.ack_p99, p.ack_p99).c_str(), p.achieved, m.achieved);
  }
}

}  // namespace

int cmd_bench_replication(const Words& words) {
  auto args = parse_args(
      words, {"dir", "seconds", "rates", "catchup-ops", "realm-writes", "probe-ms", "semantic-exact-limit", "mix"},
      {"skip-redis", "skip-catchup", "settle-source", "keep"});
  if (!args.ok()) return bench::fail(kExitUsage, "replication: " + args.status().message());
  ReplicationOptions o;
  if (int rc = parse_replication_options(*args, &o); rc != kExitOk) return rc;
  const std::string parent = args->get("dir").value_or("/tmp");
  std::string tmpl = parent + "/vasana-bench-repl-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return bench::fail(kExitFailed, "replication: cannot create a directory in " + parent);
  const std::string root = std::filesystem::absolute(buf.data()).string();
  auto cleanup = [&] {
    if (!args->has("keep")) std::filesystem::remove_all(root);
  };

  print_lag_intro(root, o);
  LogBuffer logs;
  TextGen gen;
  VasanaLagRows vasana_rows;
  if (int rc = measure_vasana_lag(root, o, logs, gen, &vasana_rows, cleanup); rc != kExitOk) return rc;

  std::vector<LagFigures> redis_plain, redis_aof;
  measure_redis_lag(*args, root, o, gen, &redis_plain, &redis_aof);
  std::fflush(stdout);

  if (!redis_plain.empty()) print_redis_ratios(o.rates, vasana_rows.puts, redis_plain, redis_aof);
  if (o.with_mix) print_mix_ratios(o.rates, vasana_rows);
  std::fflush(stdout);

  int rc = kExitOk;
  if (!args->has("skip-catchup"))
    rc = run_catchup(root + "/catchup", o.catchup_ops, o.probe_ms, args->has("settle-source"), o.semantic, logs);
  cleanup();
  return rc;
}

}  // namespace vasana
