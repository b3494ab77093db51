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

// Writes n = rate * seconds memories to origin through client, paced at rate, and measures when
// each becomes visible on every peer. *last_seqno: the origin's last seqno before; after.
// realm_writes: 0 = every write in one realm; N = a new realm every N writes.
// mix: null = remember only; else the requests come from it (every client write op, each one
// op, so one seqno, when acknowledged), and tally gets each op's ack latency, lags and errors.
LagFigures vasana_lag(const Node& origin, const std::vector<Node*>& peers, NodeClient& client, double rate,
                      double seconds, uint64_t* last_seqno, TextGen& gen, size_t realm_writes,
                      OpMix* mix = nullptr, OpTally* tally = nullptr) {
  LagFigures f;
  f.system = mix ? "vasana, 3 nodes, op mix" : "vasana, 3 nodes, ack after fdatasync";
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
  std::unordered_map<uint64_t, PlannedOp> planned;  // request id -> the mix's op
  std::vector<MixOp> op_of(mix ? n : 0);            // seqno - base - 1 -> op
  const int64_t t0 = now_ns();
  const double interval_ns = 1e9 / rate;
  const int64_t hard_end = t0 + int64_t((seconds * 3 + 30) * 1e9);
  size_t sent = 0, answered = 0;
  int64_t last_ack = t0, last_answer = t0;
  size_t acked_span = 0;  // 1 + the highest seqno - base - 1 acknowledged
  const uint64_t dropped0 = origin.status().client_replies_dropped;
  auto unanswered = [&](const std::string& when) {
    const uint64_t dropped = origin.status().client_replies_dropped - dropped0;
    return "gave up: " + std::to_string(n - answered) + " writes unanswered " + when + " (the origin dropped " +
           std::to_string(dropped) + " replies its client socket's queue could not take)";
  };
  while (answered < n) {
    const int64_t now = now_ns();
    if (now > hard_end) {
      f.problem = unanswered(std::to_string(int(seconds * 3 + 30)) + " s after the start");
      break;
    }
    if (sent == n && now - last_answer > int64_t(kIdleGiveUp.count()) * 1000000000) {
      f.problem = unanswered(std::to_string(kIdleGiveUp.count()) + " s after the last answer");
      break;
    }
    const size_t due = std::min<size_t>(n, size_t(double(now - t0) / interval_ns) + 1);
    while (sent < due && sent - answered < kWindow) {
      req.memory.text = gen.next();
      if (realm_writes) req.memory.realm = "bench-lag-" + std::to_string((base + sent) / realm_writes);
      PlannedOp p;
      if (mix) p = mix->next(req.memory.realm, req.memory.text);
      auto rid = client.send(mix ? p.request : req);
      ++sent;
      if (!rid.ok()) {
        ++f.errors;
        ++answered;
        if (tally) tally->failed(p.op, rid.status().message());
        continue;
      }
      sent_at[*rid] = now_ns();
      if (mix) planned.emplace(*rid, std::move(p));
    }
    auto r = client.receive(std::chrono::milliseconds(1));
    while (r.ok()) {
      const int64_t t = now_ns();
      auto it = sent_at.find(r->request_id);
      if (it == sent_at.end()) {  // a late answer to an earlier run's request
        r = client.receive(std::chrono::milliseconds(0));
        continue;
      }
      ++answered;
      last_answer = t;
      auto pl = planned.find(r->request_id);
      const bool ok = r->kind == ClientResponse::Kind::remembered ||
                      (mix && r->kind == ClientResponse::Kind::written);
      if (ok) {
        const uint64_t k = r->id.seqno.value - base - 1;
        if (k < n) ack[k] = t;
        if (k < n) acked_span = std::max(acked_span, size_t(k + 1));
        ack_latency.push_back(double(t - it->second) / 1000.0);
        if (pl != planned.end()) {
          if (k < n) op_of[k] = pl->second.op;
          if (tally) tally->acked(pl->second.op, ack_latency.back());
        }
        ++f.acked;
        last_ack = t;
      } else {
        ++f.errors;
        if (f.problem.empty()) f.problem = "write refused: " + r->message;
        if (tally && pl != planned.end()) tally->failed(pl->second.op, r->message);
      }
      if (pl != planned.end()) {
        mix->answered(pl->second, *r);
        planned.erase(pl);
      }
      sent_at.erase(it);
      r = client.receive(std::chrono::milliseconds(0));
    }
  }
  if (tally)
    for (const auto& [rid, p] : planned) tally->failed(p.op, "never answered");
  f.achieved = f.acked > 1 ? double(f.acked) / (double(last_ack - t0) / 1e9) : 0;
  // Writes whose replies were lost still took their seqnos: the peers are watched up to the
  // highest one acknowledged, and the next run starts after the last one the origin wrote.
  limit.store(acked_span);
  // Every peer should have it all within moments; give the watchers 30 s at most.
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (watchers_done.load() < watchers.size() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  give_up.store(true);
  for (auto& t : watchers) t.join();
  *last_seqno = std::max(base + acked_span, applied_up_to(origin, writer, base + sent));
  fill_lags(&f, ack, visible, ack_latency);
  if (tally)
    for (const auto& vis : visible)
      for (size_t k = 0; k < op_of.size(); ++k)
        if (ack[k] >= 0 && vis[k] >= 0) tally->lag_us[size_t(op_of[k])].push_back(double(vis[k] - ack[k]) / 1000.0);
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
      words, {"dir", "seconds", "rates", "catchup-ops", "realm-writes", "probe-ms", "semantic-exact-limit", "mix"},
      {"skip-redis", "skip-catchup", "settle-source", "keep"});
  if (!args.ok()) return bench::fail(kExitUsage, "replication: " + args.status().message());
  auto mix_mode = parse_mix(*args);
  if (!mix_mode.ok()) return bench::fail(kExitUsage, "replication: " + mix_mode.status().message());
  const bool with_mix = *mix_mode == MixMode::all;
  double seconds = 4;
  if (auto s = args->get("seconds")) {
    seconds = std::atof(s->c_str());
    if (seconds <= 0 || seconds > 600) return bench::fail(kExitUsage, "replication: --seconds must be from 0 to 600");
  }
  bool rates_ok = true;
  std::vector<double> rates = parse_rates(args->get("rates").value_or("1000,10000"), &rates_ok);
  if (!rates_ok) return bench::fail(kExitUsage, "replication: --rates takes writes per second such as 1000,10000");
  size_t catchup_ops = 1000000;
  if (auto c = args->get("catchup-ops")) {
    const long n = std::atol(c->c_str());
    if (n <= 0 || n > 100000000) return bench::fail(kExitUsage, "replication: --catchup-ops takes a count such as 1000000");
    catchup_ops = size_t(n);
  }
  size_t realm_writes = 0;
  if (auto r = args->get("realm-writes")) {
    const long n = std::atol(r->c_str());
    if (n <= 0) return bench::fail(kExitUsage, "replication: --realm-writes takes a count such as 1000");
    realm_writes = size_t(n);
  }
  auto semantic_or = semantic_options(*args);
  if (!semantic_or.ok()) return bench::fail(kExitUsage, "replication: " + semantic_or.status().message());
  const SemanticLaneOptions semantic = *semantic_or;
  size_t probe_ms = 20;
  if (auto p = args->get("probe-ms")) {
    const long n = std::atol(p->c_str());
    if (n < 0 || n > 60000 || (n == 0 && *p != "0"))
      return bench::fail(kExitUsage, "replication: --probe-ms takes milliseconds from 0 (no queries) to 60000");
    probe_ms = size_t(n);
  }
  const std::string parent = args->get("dir").value_or("/tmp");
  std::string tmpl = parent + "/vasana-bench-repl-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return bench::fail(kExitFailed, "replication: cannot create a directory in " + parent);
  const std::string root = std::filesystem::absolute(buf.data()).string();
  auto cleanup = [&] {
    if (!args->has("keep")) std::filesystem::remove_all(root);
  };

  std::printf("vasana-bench replication: %s, %.1f s per rate\n\n", root.c_str(), seconds);
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
  if (with_mix)
    std::printf("--mix all: after the puts-only rows, the same client at the same rates sends a seeded mix of every\n"
                "client write op against memories it created and had acknowledged earlier in the run:\n%s.\n"
                "Each op's lag is measured as a put's: its seqno applied on the peer with no lane backlog.\n",
                mix_description().c_str());
  print_lag_header();
  std::fflush(stdout);
  LogBuffer logs;
  TextGen gen;
  std::vector<LagFigures> vasana_rows, mix_rows;
  {
    auto members = prepare_members(root + "/lag", {"n0", "n1", "n2"});
    if (!members.ok()) {
      cleanup();
      return bench::fail(kExitFailed, "replication: " + members.status().message());
    }
    std::vector<std::unique_ptr<Node>> nodes;
    for (size_t i = 0; i < members->size(); ++i) {
      NodeOptions options = member_options(*members, i, semantic);
      options.write_policy = bench_write_policy();
      auto n = Node::start(std::move(options), logs.sink((*members)[i].name));
      if (!n.ok()) {
        nodes.clear();
        cleanup();
        return bench::fail(kExitFailed, "replication: " + (*members)[i].name + ": " + n.status().message());
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
    // A rate that gave up does not stop the next: its lost replies' writes are counted from
    // the origin's own stream (vasana_lag), and its late answers are not taken for the next's.
    bool gave_up = false;
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
      gave_up = gave_up || vasana_rows.back().problem.find("gave up") == 0;
    }
    OpMix mix(1);
    for (size_t i = 0; with_mix && i < rates.size(); ++i) {
      LagFigures f;
      OpTally tally;
      if (problem.empty()) {
        f = vasana_lag(*nodes[0], peers, *client.value(), rates[i], seconds, &last_seqno, gen, realm_writes, &mix,
                       &tally);
      } else {
        f.system = "vasana, 3 nodes, op mix";
        f.target = rates[i];
        f.problem = problem;
      }
      mix_rows.push_back(f);
      print_lag_row(f);
      if (f.ran) print_mix_lag_table(tally);
      gave_up = gave_up || f.problem.find("gave up") == 0;
    }
    if (!problem.empty() || gave_up) logs.dump();
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
  if (with_mix) {
    std::printf("\nop mix against puts only, same cluster and client, per rate (us; ratio mix / puts)\n");
    for (size_t i = 0; i < rates.size() && i < mix_rows.size(); ++i) {
      const LagFigures& p = vasana_rows[i];
      const LagFigures& m = mix_rows[i];
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
  std::fflush(stdout);

  int rc = kExitOk;
  if (!args->has("skip-catchup"))
    rc = run_catchup(root + "/catchup", catchup_ops, probe_ms, args->has("settle-source"), semantic, logs);
  cleanup();
  return rc;
}

}  // namespace vasana
