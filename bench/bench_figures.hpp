// What the benchmarks share: the clock, percentiles and resident memory (bench recall and bench
// replication), and for the replication lag rows of vasana and Redis the texts written, the
// figures of one row and how they are computed and printed (bench/bench_replication.cpp,
// bench/bench_redis.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "replica/semantic_lane.hpp"

namespace vasana::bench {

int64_t now_ns();
double seconds_since(int64_t t0_ns);
double pct(std::vector<double> v, double p);
// A unit vector of dim random components (a stand-in for a client's embedding model).
std::vector<float> random_unit(std::mt19937_64& rng, uint32_t dim);
// This process's resident memory, MiB.
double rss_mib();

// The semantic lane's options for --semantic-exact-limit N (bench recall, bench replication):
// the default ones, with that exact limit when given. InvalidArgument naming the option for a
// value that is not a count from 0 to 100,000,000 (the config file's range).
Result<SemanticLaneOptions> semantic_options(const Args& args);

// The store sizes of --memories ("10000,100000"): each a count from 1 to 10,000,000. nullopt
// when any is not.
std::optional<std::vector<size_t>> memory_counts(const std::string& list);

// Memory texts of about 125 bytes that vary (the writes of bench write and bench replication).
struct TextGen {
  uint64_t counter = 0;
  std::string next() {
    static const char* kWords[] = {"deployment", "pipeline", "retries", "flaky",   "integration", "tests",
                                   "build",      "budget",   "repository", "staging", "cluster",   "latency",
                                   "owner",      "schema",   "release",  "rollback", "canary",     "alert",
                                   "quota",      "region"};
    std::string t = "observed that the";
    uint64_t x = ++counter * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 14; ++i, x = x * 6364136223846793005ull + 1442695040888963407ull)
      t += std::string(" ") + kWords[(x >> 33) % 20];
    return t;
  }
};


struct LagFigures {
  std::string system;
  double target = 0, achieved = 0;
  size_t writes = 0, acked = 0, errors = 0, missing = 0, negative = 0;
  double ack_p50 = 0, ack_p99 = 0;  // request sent -> acknowledgement received, us
  double lag_p50 = 0, lag_p99 = 0, lag_max = 0;  // us
  size_t samples = 0;
  bool ran = false;
  std::string problem;
  std::string detail;  // per peer, and how the lag moved during the run
};

inline constexpr size_t kWindow = 4096;  // most writes in flight on one connection (open loop up to this)

// Fills f's lag figures from each write's acknowledgement time (ns, -1 = never acknowledged),
// the time each peer first saw it (ns, -1 = never), and each write's acknowledgement latency.
void fill_lags(LagFigures* f, const std::vector<int64_t>& ack, const std::vector<std::vector<int64_t>>& visible,
               const std::vector<double>& ack_latency);

// Per peer (names): lag p50/p99 and when it had every write (after the last acknowledgement);
// the lag of the first and the last tenth of the writes (a backlog shows as a growing lag).
std::string lag_detail(const std::vector<int64_t>& ack, const std::vector<std::vector<int64_t>>& visible,
                       const std::vector<std::string>& names);

void print_lag_header();
void print_lag_row(const LagFigures& f);

}  // namespace vasana::bench
