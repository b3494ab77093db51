// One run of Redis's own load generator, redis-benchmark (Debian: redis-tools), for the Redis
// side of `vasana-bench write`: SET only, no pipelining (-P 1), one connection per client, each
// client sending its next SET after the previous reply; and the parse of its --csv output.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace vasana::bench {

struct RedisBenchmarkFigures {
  size_t clients = 0, requests = 0;
  double rate = 0, p50_us = 0, p99_us = 0;  // requests per second; latency per request
  std::string problem;                      // "" when the figures were measured
};

// The SET row of redis-benchmark's --csv output ("SET","rps","avg","min","p50","p95","p99","max",
// latencies in ms): rate, p50 and p99 (in us). nullopt when there is no such row of 7 numbers
// with a positive rate.
std::optional<RedisBenchmarkFigures> parse_redis_benchmark_csv(const std::string& output);

// Runs `program -h 127.0.0.1 -p port -t set -d value_bytes -c clients -n requests -r 1000000
// -P 1 --csv` (keys from a space of a million, so SETs create keys as remembers create
// memories), killed after timeout. problem says why when there are no figures.
RedisBenchmarkFigures run_redis_benchmark(const std::string& program, int port, size_t value_bytes, size_t clients,
                                          size_t requests, std::chrono::seconds timeout);

}  // namespace vasana::bench
