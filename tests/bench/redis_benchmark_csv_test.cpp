// The parse of redis-benchmark's --csv output (bench/redis_benchmark_run.hpp): the SET row's
// rate, p50 and p99, and nothing from output that is not such a row.
#include <catch2/catch.hpp>

#include <string>

#include "bench/redis_benchmark_run.hpp"

namespace vasana::test {

namespace {

// What redis-benchmark 7.0 printed for `-t set -d 126 -c 8 -n 2000 -r 1000000 -P 1 --csv`.
const std::string kHeader =
    "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\","
    "\"p99_latency_ms\",\"max_latency_ms\"\n";
const std::string kSetRow = "\"SET\",\"2635.05\",\"2.957\",\"0.256\",\"1.087\",\"11.495\",\"15.975\",\"20.239\"\n";

}  // namespace

TEST_CASE("redis-benchmark's CSV gives the SET row's rate, p50 and p99 in microseconds") {
  auto f = bench::parse_redis_benchmark_csv(kHeader + kSetRow);
  REQUIRE(f);
  CHECK(f->rate == Approx(2635.05));
  CHECK(f->p50_us == Approx(1087));
  CHECK(f->p99_us == Approx(15975));
  // Other lines around it (a warning, another test's row) do not matter.
  auto g = bench::parse_redis_benchmark_csv("WARNING: something\r\n" + kHeader +
                                            "\"GET\",\"9.0\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\"\n" + kSetRow);
  REQUIRE(g);
  CHECK(g->rate == Approx(2635.05));
}

TEST_CASE("redis-benchmark output without a whole SET row gives no figures") {
  CHECK_FALSE(bench::parse_redis_benchmark_csv(""));
  CHECK_FALSE(bench::parse_redis_benchmark_csv(kHeader));
  CHECK_FALSE(bench::parse_redis_benchmark_csv("Could not connect to Redis at 127.0.0.1:1: Connection refused\n"));
  CHECK_FALSE(bench::parse_redis_benchmark_csv(kHeader + "\"SET\",\"2635.05\",\"2.957\",\"0.256\",\"1.087\"\n"));
  CHECK_FALSE(bench::parse_redis_benchmark_csv(kHeader + "\"SET\",\"2635.05\",\"2.957\",\"0.256\",\"x\",\"11.495\","
                                                         "\"15.975\",\"20.239\"\n"));
  CHECK_FALSE(bench::parse_redis_benchmark_csv(kHeader + "\"SET\",\"0\",\"2.957\",\"0.256\",\"1.087\",\"11.495\","
                                                         "\"15.975\",\"20.239\"\n"));
}

}  // namespace vasana::test
