#include "bench/bench_redis.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "bench/resp_client.hpp"
#include "frontends/loopback_port.hpp"

namespace vasana::bench {

using Clock = std::chrono::steady_clock;

namespace {

// "" once the replica reports its link to the primary up (within 15 s).
std::string wait_replica_linked(int replica_port) {
  const auto deadline = Clock::now() + std::chrono::seconds(15);
  std::string last;
  while (Clock::now() < deadline) {
    RespConnection c;
    if (c.connect(replica_port)) {
      auto r = c.call({"INFO", "replication"}, 1000);
      if (r && r->type == '$') {
        if (r->text.find("master_link_status:up") != std::string::npos) return "";
        last = r->text;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "the replica's link to the primary is not up after 15 s: " + last;
}

LagFigures redis_lag(const std::string& system, int primary_port, int replica_port, double rate, double seconds,
                     const std::string& prefix, TextGen& gen) {
  LagFigures f;
  f.system = system;
  f.target = rate;
  const size_t n = std::max<size_t>(1, size_t(std::llround(rate * seconds)));
  f.writes = n;
  std::vector<int64_t> ack(n, -1);
  std::vector<std::vector<int64_t>> visible(1, std::vector<int64_t>(n, -1));
  std::vector<double> ack_latency;
  ack_latency.reserve(n);

  const std::string channel_prefix = "__keyspace@0__:" + prefix;
  RespConnection sub;
  if (!sub.connect(replica_port)) {
    f.problem = "subscriber: " + sub.why();
    return f;
  }
  auto confirm = sub.call({"PSUBSCRIBE", channel_prefix + "*"}, 5000);
  if (!confirm || confirm->type != '*' || confirm->items.empty() || confirm->items[0].text != "psubscribe") {
    f.problem = "PSUBSCRIBE on the replica was not confirmed: " + sub.why();
    return f;
  }
  std::atomic<bool> stop{false};
  std::atomic<size_t> seen{0};
  std::thread subscriber([&] {
    while (!stop.load() && seen.load() < n) {
      if (!sub.read_some(50)) break;
      const int64_t t = now_ns();
      while (auto v = sub.next()) {
        if (v->type != '*' || v->items.size() != 4 || v->items[0].text != "pmessage" || v->items[3].text != "set")
          continue;
        const std::string& channel = v->items[2].text;
        if (channel.compare(0, channel_prefix.size(), channel_prefix) != 0) continue;
        const size_t k = std::strtoull(channel.c_str() + channel_prefix.size(), nullptr, 10);
        if (k < n && visible[0][k] < 0) {
          visible[0][k] = t;
          ++seen;
        }
      }
    }
  });

  RespConnection w;
  if (!w.connect(primary_port)) {
    stop.store(true);
    subscriber.join();
    f.problem = "writer: " + w.why();
    return f;
  }
  std::vector<int64_t> sent_at(n, 0);
  const int64_t t0 = now_ns();
  const double interval_ns = 1e9 / rate;
  const int64_t hard_end = t0 + int64_t((seconds * 3 + 30) * 1e9);
  size_t sent = 0, answered = 0;
  int64_t last_ack = t0;
  std::string batch;
  while (answered < n) {
    const int64_t now = now_ns();
    if (now > hard_end) {
      f.problem = "gave up: " + std::to_string(n - answered) + " SETs unanswered";
      break;
    }
    const size_t due = std::min<size_t>(n, size_t(double(now - t0) / interval_ns) + 1);
    batch.clear();
    const int64_t ts = now_ns();
    while (sent < due && sent - answered < kWindow) {
      batch += resp_command({"SET", prefix + std::to_string(sent), gen.next()});
      sent_at[sent++] = ts;
    }
    if (!batch.empty() && !w.send(batch)) {
      f.problem = "writer: " + w.why();
      break;
    }
    if (!w.read_some(1)) {
      f.problem = "writer: " + w.why();
      break;
    }
    const int64_t t = now_ns();
    while (auto v = w.next()) {
      const size_t k = answered++;  // replies come in the order of the commands
      if (v->type == '+') {
        ack[k] = t;
        ack_latency.push_back(double(t - sent_at[k]) / 1000.0);
        ++f.acked;
        last_ack = t;
      } else {
        ++f.errors;
        if (f.problem.empty()) f.problem = "SET answered " + v->text;
      }
    }
  }
  f.achieved = f.acked > 1 ? double(f.acked) / (double(last_ack - t0) / 1e9) : 0;
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (seen.load() < f.acked && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  stop.store(true);
  subscriber.join();
  fill_lags(&f, ack, visible, ack_latency);
  if (f.missing && f.problem.empty())
    f.problem = std::to_string(f.missing) + " keyspace events not received within 10 s of the last ack";
  return f;
}

}  // namespace

std::vector<LagFigures> redis_rows(const std::string& program, const std::string& root, const std::string& label,
                                   const std::vector<std::string>& primary_options, const std::vector<double>& rates,
                                   double seconds, TextGen& gen) {
  std::vector<LagFigures> rows;
  auto failed = [&](const std::string& why) {
    for (double r : rates) {
      LagFigures f;
      f.system = label;
      f.target = r;
      f.problem = why;
      rows.push_back(f);
      print_lag_row(f);
    }
    return rows;
  };
  RedisServer primary(program, "redis primary", root + "/primary");
  const int pport = free_loopback_port();
  std::string e = primary.start(pport, primary_options);
  if (!e.empty()) return failed(e);
  RedisServer replica(program, "redis replica", root + "/replica");
  const int rport = free_loopback_port();
  e = replica.start(rport, {"--appendonly", "no", "--notify-keyspace-events", "KA", "--replicaof", "127.0.0.1",
                            std::to_string(pport)});
  if (!e.empty()) return failed(e);
  e = wait_replica_linked(rport);
  if (!e.empty()) return failed(e);
  // A short warm-up, not counted: connections, allocations, the first replication bytes.
  {
    const std::string warm = root.substr(root.rfind('/') + 1) + ":warm:";
    (void)redis_lag(label, pport, rport, 1000, 0.2, warm, gen);
  }
  for (double r : rates) {
    std::ostringstream prefix;
    prefix << "lag:" << size_t(r) << ":";
    rows.push_back(redis_lag(label, pport, rport, r, seconds, prefix.str(), gen));
    print_lag_row(rows.back());
  }
  replica.stop();
  primary.stop();
  return rows;
}

}  // namespace vasana::bench
