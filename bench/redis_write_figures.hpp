// The Redis side of `vasana-bench write`: redis-server with appendonly yes and appendfsync always
// (a SET acknowledged after its AOF fsync, as vasana acknowledges a write after its fdatasync),
// its data on the same disk as vasana's, loaded by redis-benchmark (bench/redis_benchmark_run.hpp)
// at vasana's writer counts with values the size of vasana's memory texts; and the table of both
// side by side.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench/redis_benchmark_run.hpp"

namespace vasana::bench {

struct RedisWriteRun {
  std::string problem;  // why Redis did not run at all ("" when it did)
  std::string version;  // redis_version from INFO server
  std::vector<RedisBenchmarkFigures> rows;  // one per client count; a row may hold its own problem
};

// For each client count: a fresh redis-server under root/redis-N on a free loopback port; a
// first run of 20 SETs per client (at least 500) gives the rate, from which the second, measured
// run is sized to last about `seconds` (killed after 3 x seconds + 30 s); the server is stopped
// before the next count. problem is set, and nothing run, when redis-server or redis-benchmark is
// not on PATH.
RedisWriteRun run_redis_writes(const std::string& root, const std::vector<size_t>& clients, size_t value_bytes,
                               double seconds);

// vasana's figures for one writer count, one connection per writer.
struct VasanaWriteRow {
  size_t writers = 0;
  double rate = 0, p50_us = 0, p99_us = 0;
};

// One row per client count: vasana and Redis throughput, p50 and p99, each with the ratio
// vasana / Redis; rows whose Redis run failed say why below the table.
void print_write_comparison(const std::vector<VasanaWriteRow>& vasana, const RedisWriteRun& redis, size_t value_bytes);

}  // namespace vasana::bench
