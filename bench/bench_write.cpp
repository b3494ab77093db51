// `vasana-bench write`: durable, acknowledged writes per second and acknowledgement latency
// with 1, 8 and 64 concurrent writers, next to the physical limits of the same disk measured in
// the same run (raw fdatasync rate and latency, sequential write bandwidth), with the ratios,
// and next to Redis acknowledging after its own fsync at the same client counts
// (bench/redis_write_figures.hpp; --skip-redis leaves it out).
// Prints figures; asserts nothing (machines here are shared and noisy).
#include <fcntl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <zmq.hpp>

#include "actors/node.hpp"
#include "bench/bench_commands.hpp"
#include "bench/bench_figures.hpp"
#include "bench/bench_op_mix.hpp"
#include "bench/redis_write_figures.hpp"
#include "bench/thread_cpu.hpp"
#include "cli/cli_common.hpp"
#include "frontends/node_client.hpp"

namespace vasana {

namespace {

using Clock = std::chrono::steady_clock;

Clock::duration secs(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

double micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

struct SyncFigures {
  double rate = 0, p50_us = 0, p99_us = 0;
};

// Appends 128 bytes and fdatasyncs, again and again: the most a one-record-per-sync log could do.
SyncFigures measure_fdatasync(const std::string& dir, double seconds) {
  std::string path = dir + "/fdatasync.probe";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  SyncFigures f;
  if (fd < 0) return f;
  char buf[128] = {1};
  std::vector<double> lat;
  auto start = Clock::now(), end = start + secs(seconds);
  while (Clock::now() < end) {
    auto t0 = Clock::now();
    if (::write(fd, buf, sizeof buf) != sizeof buf || ::fdatasync(fd) != 0) break;
    lat.push_back(micros(Clock::now() - t0));
  }
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  ::close(fd);
  ::unlink(path.c_str());
  f.rate = lat.size() / elapsed;
  f.p50_us = bench::pct(lat, 0.50);
  f.p99_us = bench::pct(lat, 0.99);
  return f;
}

// Writes bytes in 1 MiB blocks and fdatasyncs once: MiB/s the disk takes sequentially.
double measure_bandwidth(const std::string& dir, size_t bytes) {
  std::string path = dir + "/bandwidth.probe";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return 0;
  std::vector<char> block(1 << 20, 'v');
  auto t0 = Clock::now();
  size_t done = 0;
  while (done < bytes && ::write(fd, block.data(), block.size()) == static_cast<ssize_t>(block.size())) done += block.size();
  ::fdatasync(fd);
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  ::close(fd);
  ::unlink(path.c_str());
  return done / (1024.0 * 1024.0) / s;
}

struct WriteFigures {
  size_t writers = 0;
  size_t connections = 0;
  double rate = 0, p50_us = 0, p99_us = 0, batch = 0;
  size_t errors = 0;      // error answers and requests never answered
  size_t unanswered = 0;  // requests without an answer kUnansweredWait after the end
  size_t skipped = 0;     // remembers answered with candidates_skipped (not searched by text)
  size_t acked = 0;       // acknowledged requests
  bench::ThreadCpu cpu;   // CPU seconds by thread name while the writers ran
  // Seconds from the last answer until every lane found every write (the node's lane backlog
  // empty), and until the semantic graphs held every vector too (background index work empty:
  // until then the vectors not in a graph are compared exactly); negative when that took over
  // kCatchUpWait.
  double caught_up_s = 0;
  double graphs_built_s = 0;
};

// How long after a run's end the lanes are given to catch up before the run says they did not.
constexpr std::chrono::seconds kCatchUpWait{60};

// How long after a run's end its requests still in flight are waited for; then they count as
// errors (unanswered), so a reply the node never sends ends the run instead of hanging it.
constexpr std::chrono::seconds kUnansweredWait{10};

// Each writer sends its next request only after the previous one was answered. Writers are
// spread over `connections` client sockets (writer w on socket w % connections): one socket per
// writer is what separate agent processes look like; fewer sockets carry several writers each,
// as the threads of one agent process would share a connection. One thread drives them all with
// zmq_poll, so the benchmark's own CPU use stays small next to the node's on a 2-core machine.
// Load::puts: remember requests; Load::pings: pings, which take the same path through the client
// endpoint but are answered there, never reaching the writer's thread or the disk (the
// endpoint's request ceiling);
// Load::mix: each writer its own OpMix (bench/bench_op_mix.hpp, seeded with its index), every
// acknowledged request's latency and every error also counted per op in *tally.
enum class Load { pings, puts, mix };

// Starts a node on a fresh data directory named for the run (root/node-WRITERS-CONNECTIONS-KIND);
// null, the failure printed, when it cannot.
std::unique_ptr<Node> start_bench_node(const std::string& root, size_t writers, size_t connections, Load load) {
  DataDir dir{root + "/node-" + std::to_string(writers) + "-" + std::to_string(connections) +
              (load == Load::puts ? "-w" : load == Load::mix ? "-m" : "-p")};
  auto id = init_data_dir(dir, VectorSpace{});
  if (!id.ok()) {
    std::fprintf(stderr, "vasana-bench write: %s\n", id.status().message().c_str());
    return nullptr;
  }
  NodeOptions opts;
  opts.dir = dir;
  opts.write_policy = bench::bench_write_policy();
  auto node = Node::start(opts, nullptr);
  if (!node.ok()) {
    std::fprintf(stderr, "vasana-bench write: %s\n", node.status().message().c_str());
    return nullptr;
  }
  return std::move(node.value());
}

// Stores corrections of phrases no generated text holds, over a connection of its own; stops at
// the first that fails (printed).
void store_corrections(const std::string& ep, size_t corrections) {
  auto setup = NodeClient::connect(ep);
  for (size_t i = 0; setup.ok() && i < corrections; ++i) {
    ClientRequest c;
    c.kind = ClientRequest::Kind::correct;
    c.correct.realm = "bench";
    c.correct.wrong = "legacyterm" + std::to_string(i);
    c.correct.right = "currentterm" + std::to_string(i);
    auto r = setup.value()->call(c, std::chrono::seconds(10));
    if (!r.ok() || r->kind == ClientResponse::Kind::error) {
      std::fprintf(stderr, "vasana-bench write: storing correction %zu failed: %s\n", i,
                   r.ok() ? r->message.c_str() : r.status().message().c_str());
      break;
    }
  }
}

// One run's requests and answers, driven as the comment on Load says: each writer sends its next
// request once the previous one is answered, until the end time; then the requests still in
// flight are waited for kUnansweredWait at most.
// --no-candidates: the remembers ask for no conflict candidates (replica/conflict_candidates.hpp).
bool g_no_candidates = false;

class ClosedLoop {
 public:
  ClosedLoop(const std::vector<std::unique_ptr<NodeClient>>& clients, size_t writers, double seconds, Load load,
             bench::OpTally* tally)
      : clients_(clients), connections_(clients.size()), writers_(writers), load_(load),
        writes_(load != Load::pings), tally_(tally), sent_(writers),
        planned_(load == Load::mix ? writers : 0), writer_of_(clients.size()) {
    req_.kind = writes_ ? ClientRequest::Kind::remember : ClientRequest::Kind::ping;
    req_.memory.realm = "bench";
    req_.memory.kind = "episode";
    req_.remember_options.no_candidates = g_no_candidates;
    if (load == Load::mix)
      for (size_t w = 0; w < writers; ++w) mixes_.emplace_back(w + 1);
    start = Clock::now();
    end_time_ = start + secs(seconds);
    last_answer = start;
  }

  // Every writer's first request, then the answers as they come.
  void run() {
    // epoll over ZeroMQ's notification descriptors: a wake-up costs work only for the connections
    // that have something, as separate client processes would each wait on their own socket.
    // (zmq_poll over 64 sockets asks every one of them on every call.)
    int ep_fd = ::epoll_create1(EPOLL_CLOEXEC);
    for (size_t c = 0; c < connections_; ++c) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = c;
      ::epoll_ctl(ep_fd, EPOLL_CTL_ADD, clients_[c]->notify_fd(), &ev);
    }
    for (size_t w = 0; w < writers_; ++w) send(w);
    std::vector<epoll_event> ready(connections_);
    while (in_flight_ > 0 && Clock::now() < end_time_ + kUnansweredWait) {
      int n = ::epoll_wait(ep_fd, ready.data(), static_cast<int>(ready.size()), 100);
      if (n <= 0) {
        for (size_t c = 0; c < connections_; ++c) drain(c);  // a missed edge costs at most 100 ms
        continue;
      }
      for (int i = 0; i < n; ++i) drain(static_cast<size_t>(ready[i].data.u64));
    }
    ::close(ep_fd);
  }

  // Requests never answered, each also an error (and a failure of its op in the tally).
  size_t count_unanswered() {
    size_t unanswered = 0;
    for (const auto& waiting : writer_of_)
      for (const auto& [rid, w] : waiting) {
        ++unanswered;
        if (tally_ && load_ == Load::mix)
          tally_->failed(planned_[w].op,
                         "no answer by " + std::to_string(kUnansweredWait.count()) + " s after the end of the run");
      }
    errors += unanswered;
    return unanswered;
  }

  std::vector<double> all;  // latency of every acknowledged request, us
  size_t errors = 0;
  size_t skipped = 0;  // remembers whose conflict candidates were not searched by text
  Clock::time_point start, last_answer;

 private:
  void send(size_t w) {
    if (writes_) req_.memory.text = texts_.next();
    if (load_ == Load::mix) planned_[w] = mixes_[w].next("bench", req_.memory.text);
    sent_[w] = Clock::now();
    auto rid = clients_[w % connections_]->send(load_ == Load::mix ? planned_[w].request : req_);
    if (!rid.ok()) return;
    writer_of_[w % connections_][*rid] = w;
    ++in_flight_;
  }

  // Takes every response waiting on connection c; each answered writer sends its next request.
  void drain(size_t c) {
    const auto ok_kind = writes_ ? ClientResponse::Kind::remembered : ClientResponse::Kind::pong;
    for (;;) {
      auto r = clients_[c]->receive(std::chrono::milliseconds(0));
      if (!r.ok()) return;
      auto it = writer_of_[c].find(r->request_id);
      if (it == writer_of_[c].end()) {
        ++errors;
        continue;
      }
      const size_t w = it->second;
      writer_of_[c].erase(it);
      --in_flight_;
      auto now = Clock::now();
      last_answer = now;
      if (load_ == Load::mix) {
        const bench::MixOp op = planned_[w].op;
        if (r->kind == ClientResponse::Kind::remembered || r->kind == ClientResponse::Kind::written) {
          all.push_back(micros(now - sent_[w]));
          if (tally_) tally_->acked(op, all.back());
        } else {
          ++errors;
          if (tally_) tally_->failed(op, r->message);
        }
        mixes_[w].answered(planned_[w], *r);
      } else if (r->kind == ok_kind) {
        all.push_back(micros(now - sent_[w]));
        skipped += r->candidates_skipped;
      } else {
        ++errors;
      }
      if (now < end_time_) send(w);
    }
  }

  const std::vector<std::unique_ptr<NodeClient>>& clients_;
  const size_t connections_, writers_;
  const Load load_;
  const bool writes_;
  bench::OpTally* const tally_;
  ClientRequest req_;
  // Texts vary, as real memories do (identical texts would make every index's job atypical).
  bench::TextGen texts_;
  std::vector<Clock::time_point> sent_;
  std::vector<bench::OpMix> mixes_;
  std::vector<bench::PlannedOp> planned_;
  std::vector<std::unordered_map<uint64_t, size_t>> writer_of_;  // per connection: request id -> writer
  size_t in_flight_ = 0;
  Clock::time_point end_time_;
};

// The node's mean records per flush, asked with a ping on a new connection; 0 when it cannot say.
double records_per_flush(const std::string& ep) {
  auto client = NodeClient::connect(ep);
  if (client.ok()) {
    ClientRequest ping;
    auto r = client.value()->call(ping, std::chrono::seconds(5));
    if (r.ok() && r->kind == ClientResponse::Kind::pong && r->info.flushes)
      return double(r->info.flushed_records) / double(r->info.flushes);
  }
  return 0;
}

// corrections: how many corrections (of phrases no generated text holds) the node stores before
// the run, so that every remember is checked against them.
WriteFigures measure_writes(const std::string& root, size_t writers, size_t connections, double seconds, Load load,
                            bench::OpTally* tally = nullptr, double* elapsed_out = nullptr, size_t corrections = 0) {
  WriteFigures f;
  f.writers = writers;
  f.connections = connections;
  std::unique_ptr<Node> node = start_bench_node(root, writers, connections, load);
  if (!node) return f;
  const std::string ep = node->endpoints().front();
  if (corrections > 0) store_corrections(ep, corrections);
  zmq::context_t ctx(1);
  std::vector<std::unique_ptr<NodeClient>> clients;
  for (size_t c = 0; c < connections; ++c) {
    auto cl = NodeClient::connect(ep, &ctx);
    if (!cl.ok()) {
      std::fprintf(stderr, "vasana-bench write: %s\n", cl.status().message().c_str());
      return f;
    }
    clients.push_back(std::move(cl.value()));
  }
  ClosedLoop loop(clients, writers, seconds, load, tally);
  const bench::ThreadCpu cpu0 = bench::sample_thread_cpu();
  loop.run();
  f.cpu = bench::cpu_between(cpu0, bench::sample_thread_cpu());
  f.unanswered = loop.count_unanswered();
  double elapsed = std::chrono::duration<double>(loop.last_answer - loop.start).count();
  if (elapsed_out) *elapsed_out = elapsed;
  const auto since_last = [&] {
    return std::max(0.0, std::chrono::duration<double>(Clock::now() - loop.last_answer).count());
  };
  f.caught_up_s = f.graphs_built_s = -1;
  for (const auto until = Clock::now() + kCatchUpWait; Clock::now() < until;) {
    if (f.caught_up_s < 0 && node->lanes_backlog() == 0) f.caught_up_s = since_last();
    if (f.caught_up_s >= 0 && node->background_pending() == 0) {
      f.graphs_built_s = since_last();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  f.batch = records_per_flush(ep);
  node->stop();
  f.rate = loop.all.size() / elapsed;
  f.p50_us = bench::pct(loop.all, 0.50);
  f.p99_us = bench::pct(loop.all, 0.99);
  f.errors = loop.errors;
  f.skipped = loop.skipped;
  f.acked = loop.all.size();
  return f;
}

// The mean size of the memory texts the writers send (bench::TextGen, from its start, as each
// run's writers use it): the value size Redis is given.
size_t mean_text_bytes() {
  bench::TextGen gen;
  constexpr size_t kTexts = 100000;
  size_t bytes = 0;
  for (size_t i = 0; i < kTexts; ++i) bytes += gen.next().size();
  return (bytes + kTexts / 2) / kTexts;
}

}  // namespace

// After the first table: when every lane found every write and the graphs were built, and the
// CPU each acknowledged remember cost, by thread name.
void print_catch_up_and_cpu(const std::vector<WriteFigures>& results) {
  const auto seconds_or_not = [](double s) {
    return s >= 0 ? std::to_string(s).substr(0, 5) + " s"
                  : "NOT within " + std::to_string(kCatchUpWait.count()) + " s";
  };
  std::printf("\nafter the last answer, every write found by every lane (lane backlog empty) / every vector in its\n"
              "realm's semantic graph (background index work empty):");
  for (const auto& f : results)
    std::printf(" %zu writers %s / %s;", f.writers, seconds_or_not(f.caught_up_s).c_str(),
                seconds_or_not(f.graphs_built_s).c_str());
  std::printf("\n");
  for (const auto& f : results) {
    if (f.acked == 0) continue;
    std::printf("CPU per acknowledged remember, %zu writers on %zu connections, by thread name (us; names below 1%% "
                "of the total left out):\n ", f.writers, f.connections);
    double total = 0;
    for (const auto& [name, secs] : f.cpu) total += secs;
    std::vector<std::pair<double, std::string>> by_cpu;
    for (const auto& [name, secs] : f.cpu)
      if (secs >= 0.01 * total) by_cpu.emplace_back(secs, name);
    std::sort(by_cpu.rbegin(), by_cpu.rend());
    for (const auto& [secs, name] : by_cpu) std::printf(" %s %.1f;", name.c_str(), secs * 1e6 / double(f.acked));
    std::printf(" all %.1f\n", total * 1e6 / double(f.acked));
  }
  std::fflush(stdout);
}

int cmd_bench_write(const Words& words) {
  auto args = parse_args(words, {"dir", "seconds", "writers", "mix", "corrections"}, {"keep", "skip-redis", "no-candidates"});
  if (!args.ok()) return bench::fail(kExitUsage, "write: " + args.status().message());
  g_no_candidates = args->has("no-candidates");
  auto mix = bench::parse_mix(*args);
  if (!mix.ok()) return bench::fail(kExitUsage, "write: " + mix.status().message());
  double seconds = 5;
  if (auto s = args->get("seconds")) {
    seconds = std::atof(s->c_str());
    if (seconds <= 0 || seconds > 3600) return bench::fail(kExitUsage, "write: --seconds must be from 0 to 3600");
  }
  size_t corrections = 0;
  if (auto c = args->get("corrections")) {
    const bool digits = !c->empty() && c->size() <= 6 && c->find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoul(*c) > 100000)
      return bench::fail(kExitUsage, "write: --corrections takes a count from 0 to 100000");
    corrections = std::stoul(*c);
  }
  std::vector<size_t> counts = {1, 8, 64};
  if (auto w = args->get("writers")) {
    counts.clear();
    size_t pos = 0;
    while (pos <= w->size()) {
      size_t comma = w->find(',', pos);
      std::string part = w->substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      long n = std::atol(part.c_str());
      if (n <= 0 || n > 1024) return bench::fail(kExitUsage, "write: --writers takes counts from 1 to 1024, e.g. 1,8,64");
      counts.push_back(static_cast<size_t>(n));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  std::string parent = args->get("dir").value_or(".");
  std::string tmpl = parent + "/vasana-bench-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return bench::fail(kExitFailed, "write: cannot create a directory in " + parent);
  std::string root = std::filesystem::absolute(buf.data()).string();

  std::printf("vasana-bench write: %s, %.1f s per phase\n\n", root.c_str(), seconds);
  std::printf("physical limits of this disk\n");
  std::fflush(stdout);
  SyncFigures sync = measure_fdatasync(root, seconds);
  std::printf("  fdatasync (128-byte append + fdatasync): %.0f/s, p50 %.0f us, p99 %.0f us\n", sync.rate, sync.p50_us,
              sync.p99_us);
  std::fflush(stdout);
  double mibs = measure_bandwidth(root, 256u << 20);
  std::printf("  sequential write (256 MiB, 1 MiB blocks, one fdatasync): %.0f MiB/s\n\n", mibs);
  std::printf("durable acknowledged writes: remember over the IPC client endpoint; each writer sends its next\n"
              "write only after the previous one was acknowledged\n");
  std::printf("(%s)\n", g_no_candidates ? "remembers ask for no conflict candidates: --no-candidates"
                                         : "remembers answer with their conflict candidates, as by default; skipped: "
                                           "the share answered without the search by text (the node was busy)");
  if (corrections > 0)
    std::printf("(the node holds %zu correction%s before each run: every remember is checked against them)\n",
                corrections, corrections == 1 ? "" : "s");
  std::printf("  %8s %11s %12s %10s %10s %12s %8s%s\n", "writers", "connections", "writes/s", "p50 us", "p99 us",
              "ops/fsync", "errors", g_no_candidates ? "" : "    skipped");
  auto note_unanswered = [](const WriteFigures& f) {
    if (f.unanswered)
      std::printf("  note: %zu requests the node never answered (waited %lld s after the end; counted as errors)\n",
                  f.unanswered, static_cast<long long>(kUnansweredWait.count()));
  };
  auto row = [&](const WriteFigures& f) {
    std::printf("  %8zu %11zu %12.0f %10.0f %10.0f %12.1f %8zu", f.writers, f.connections, f.rate, f.p50_us,
                f.p99_us, f.batch, f.errors);
    if (!g_no_candidates) std::printf(" %10.2f", f.acked > 0 ? double(f.skipped) / double(f.acked) : 0.0);
    std::printf("\n");
    note_unanswered(f);
    std::fflush(stdout);
  };
  std::vector<WriteFigures> results;
  for (size_t n : counts) {
    results.push_back(measure_writes(root, n, n, seconds, Load::puts, nullptr, nullptr, corrections));
    row(results.back());
  }
  // The most writers again, all on one connection (when that is a different setup).
  const size_t most = *std::max_element(counts.begin(), counts.end());
  const bool shared_run = most > 1;
  WriteFigures shared;
  if (shared_run) {
    shared = measure_writes(root, most, 1, seconds, Load::puts, nullptr, nullptr, corrections);
    row(shared);
  }
  print_catch_up_and_cpu(results);
  std::printf("\nrequest ceiling of the client endpoint: pings, answered by the endpoint's thread (no writer, no disk)\n");
  std::printf("  %8s %11s %12s %10s %10s\n", "writers", "connections", "pings/s", "p50 us", "p99 us");
  std::vector<WriteFigures> pings;
  for (size_t n : counts) {
    pings.push_back(measure_writes(root, n, n, seconds, Load::pings));
    const auto& f = pings.back();
    std::printf("  %8zu %11zu %12.0f %10.0f %10.0f\n", f.writers, f.connections, f.rate, f.p50_us, f.p99_us);
    note_unanswered(f);
    std::fflush(stdout);
  }
  if (shared_run) {
    WriteFigures shared_ping = measure_writes(root, most, 1, seconds, Load::pings);
    std::printf("  %8zu %11zu %12.0f %10.0f %10.0f\n", shared_ping.writers, shared_ping.connections,
                shared_ping.rate, shared_ping.p50_us, shared_ping.p99_us);
    note_unanswered(shared_ping);
    results.push_back(shared);
    pings.push_back(shared_ping);
  }

  std::printf("\nratios (targets in parentheses)\n");
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& f = results[i];
    std::printf("  %zu writers on %zu connection%s: %.1fx the raw fdatasync rate", f.writers, f.connections,
                f.connections == 1 ? "" : "s", sync.rate > 0 ? f.rate / sync.rate : 0);
    if (f.writers == 64) std::printf(" (target >= 10x)");
    std::printf(", %.2f of the ping ceiling", pings[i].rate > 0 ? f.rate / pings[i].rate : 0);
    std::printf("; p99 ack %.2fx the median fdatasync", sync.p50_us > 0 ? f.p99_us / sync.p50_us : 0);
    if (f.writers == 1) std::printf(" (target <= 3x)");
    std::printf("\n");
  }
  std::printf("\n");
  if (args->has("skip-redis")) {
    std::printf("(Redis comparison skipped: --skip-redis)\n");
  } else {
    const size_t value_bytes = mean_text_bytes();
    bench::RedisWriteRun redis = bench::run_redis_writes(root, counts, value_bytes, seconds);
    if (!redis.problem.empty()) {
      std::printf("(Redis comparison skipped: %s; vasana's figures alone above)\n", redis.problem.c_str());
    } else {
      std::vector<bench::VasanaWriteRow> rows;
      for (size_t i = 0; i < counts.size(); ++i)
        rows.push_back(bench::VasanaWriteRow{results[i].writers, results[i].rate, results[i].p50_us, results[i].p99_us});
      bench::print_write_comparison(rows, redis, value_bytes);
    }
  }
  std::fflush(stdout);
  if (*mix == bench::MixMode::all) {
    std::printf("\nop mix (--mix all): the same writers, each sending its next request only after the previous\n"
                "one was answered, send a seeded mix of every client write op against memories that writer\n"
                "created earlier in the run:\n%s.\n"
                "Latency per acknowledged request; puts only: the rows of the first table (same writers, same run).\n",
                bench::mix_description().c_str());
    for (size_t i = 0; i < counts.size(); ++i) {
      bench::OpTally tally;
      double elapsed = 0;
      measure_writes(root, counts[i], counts[i], seconds, Load::mix, &tally, &elapsed);
      const WriteFigures& p = results[i];
      bench::print_mix_write_table(counts[i], tally, elapsed, bench::RunFigures{p.rate, p.p50_us, p.p99_us, p.errors});
    }
  }
  if (!args->has("keep")) std::filesystem::remove_all(root);
  return kExitOk;
}

}  // namespace vasana
