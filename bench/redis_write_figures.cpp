#include "bench/redis_write_figures.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "bench/redis_server.hpp"
#include "frontends/loopback_port.hpp"

namespace vasana::bench {

namespace {

// The figures of `clients` clients against a fresh Redis with an fsync per acknowledged SET.
RedisBenchmarkFigures one_count(const std::string& server_program, const std::string& benchmark_program,
                                const std::string& dir, size_t clients, size_t value_bytes, double seconds,
                                std::string* version) {
  RedisBenchmarkFigures failed;
  failed.clients = clients;
  RedisServer server(server_program, "redis-server", dir);
  const std::string e = server.start(free_loopback_port(), {"--appendonly", "yes", "--appendfsync", "always"});
  if (!e.empty()) {
    failed.problem = e;
    return failed;
  }
  if (server.info("persistence", "aof_enabled") != "1") {
    failed.problem = "redis-server does not report its append-only file enabled (INFO persistence)";
    return failed;
  }
  if (version->empty()) *version = server.info("server", "redis_version");
  const size_t first_n = std::max<size_t>(500, clients * 20);
  const auto first = run_redis_benchmark(benchmark_program, server.port(), value_bytes, clients, first_n,
                                         std::chrono::seconds(60));
  if (!first.problem.empty()) return first;
  const size_t n = std::clamp<size_t>(size_t(std::llround(first.rate * seconds)), clients * 20, 100000000);
  const auto timeout = std::chrono::seconds(int64_t(seconds * 3) + 30);
  auto figures = run_redis_benchmark(benchmark_program, server.port(), value_bytes, clients, n, timeout);
  server.stop();
  return figures;
}

std::string ratio(double vasana, double redis) {
  if (!(redis > 0)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", vasana / redis);
  return buf;
}

}  // namespace

RedisWriteRun run_redis_writes(const std::string& root, const std::vector<size_t>& clients, size_t value_bytes,
                               double seconds) {
  RedisWriteRun run;
  const std::string server = find_on_path("redis-server"), benchmark = find_on_path("redis-benchmark");
  if (server.empty()) {
    run.problem = "redis-server is not on PATH (Debian 12: apt-get install redis-server)";
    return run;
  }
  if (benchmark.empty()) {
    run.problem = "redis-benchmark is not on PATH (Debian 12: apt-get install redis-tools)";
    return run;
  }
  for (size_t c : clients)
    run.rows.push_back(
        one_count(server, benchmark, root + "/redis-" + std::to_string(c), c, value_bytes, seconds, &run.version));
  return run;
}

void print_write_comparison(const std::vector<VasanaWriteRow>& vasana, const RedisWriteRun& redis, size_t value_bytes) {
  std::printf("beside Redis %s: redis-server with appendonly yes and appendfsync always (a SET acknowledged after\n"
              "its fsync), its data on the same disk; redis-benchmark -t set -d %zu -P 1 -r 1000000, one connection\n"
              "per client, each sending its next SET after the previous reply. vasana: the rows above with one\n"
              "connection per writer. ratio: vasana / Redis\n",
              redis.version.empty() ? "(version unknown)" : redis.version.c_str(), value_bytes);
  std::printf("  %8s %27s %27s %27s\n", "", "writes/s", "p50 us", "p99 us");
  std::printf("  %8s %9s %9s %7s %9s %9s %7s %9s %9s %7s\n", "clients", "vasana", "redis", "ratio", "vasana", "redis",
              "ratio", "vasana", "redis", "ratio");
  std::vector<std::string> notes;
  for (size_t i = 0; i < vasana.size(); ++i) {
    const VasanaWriteRow& v = vasana[i];
    const RedisBenchmarkFigures* r = i < redis.rows.size() ? &redis.rows[i] : nullptr;
    const bool ok = r && r->problem.empty();
    auto cell = [&](double x) {
      char buf[32];
      if (ok) std::snprintf(buf, sizeof buf, "%.0f", x);
      else std::snprintf(buf, sizeof buf, "-");
      return std::string(buf);
    };
    std::printf("  %8zu %9.0f %9s %7s %9.0f %9s %7s %9.0f %9s %7s\n", v.writers, v.rate, cell(ok ? r->rate : 0).c_str(),
                ok ? ratio(v.rate, r->rate).c_str() : "-", v.p50_us, cell(ok ? r->p50_us : 0).c_str(),
                ok ? ratio(v.p50_us, r->p50_us).c_str() : "-", v.p99_us, cell(ok ? r->p99_us : 0).c_str(),
                ok ? ratio(v.p99_us, r->p99_us).c_str() : "-");
    if (r && !ok) notes.push_back(std::to_string(v.writers) + " clients: " + r->problem);
  }
  for (const auto& n : notes) std::printf("  note: %s\n", n.c_str());
  std::fflush(stdout);
}

}  // namespace vasana::bench
