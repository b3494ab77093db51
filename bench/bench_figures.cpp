#include "bench/bench_figures.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <tuple>

namespace vasana::bench {

using Clock = std::chrono::steady_clock;

double rss_mib() {
  std::ifstream in("/proc/self/statm");
  long pages_total = 0, pages_resident = 0;
  in >> pages_total >> pages_resident;
  return double(pages_resident) * double(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

double seconds_since(int64_t t0_ns) { return double(now_ns() - t0_ns) / 1e9; }

std::vector<float> random_unit(std::mt19937_64& rng, uint32_t dim) {
  std::normal_distribution<float> g;
  std::vector<float> v(dim);
  double norm = 0;
  for (float& x : v) {
    x = g(rng);
    norm += double(x) * x;
  }
  for (float& x : v) x = float(x / std::sqrt(norm));
  return v;
}

double pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5))];
}


Result<SemanticLaneOptions> semantic_options(const Args& args) {
  SemanticLaneOptions options;
  if (auto e = args.get("semantic-exact-limit")) {
    const long long n = std::atoll(e->c_str());
    if (n < 0 || n > 100000000 || e->find_first_not_of("0123456789") != std::string::npos || e->empty())
      return Status::InvalidArgument("--semantic-exact-limit takes a memory count from 0 to 100000000 (got '" + *e +
                                     "')");
    options.exact_limit = size_t(n);
  }
  // The graph's build and search breadth, within the node configuration's ranges.
  for (const auto& [flag, lo, hi, field] :
       {std::make_tuple("semantic-ef-construction", 8LL, 2048LL, &options.index.ef_construction),
        std::make_tuple("semantic-ef-search", 8LL, 4096LL, &options.index.ef_search)}) {
    auto e = args.get(flag);
    if (!e) continue;
    const long long n = std::atoll(e->c_str());
    if (e->empty() || e->find_first_not_of("0123456789") != std::string::npos || n < lo || n > hi)
      return Status::InvalidArgument(std::string("--") + flag + " takes a number from " + std::to_string(lo) + " to " +
                                     std::to_string(hi) + " (got '" + *e + "')");
    *field = size_t(n);
  }
  return options;
}

// Per peer: lag p50/p99, and when it had every write (after the last acknowledgement); the lag
// of the first and the last tenth of the writes (a backlog shows as a growing lag, and so do the
// three nodes' graph insertions once the realm written to passes the semantic exact limit: with
// --semantic-exact-limit 2000, the first tenth of an 8 s run at 1k/s comes before its graph).
std::string lag_detail(const std::vector<int64_t>& ack, const std::vector<std::vector<int64_t>>& visible,
                       const std::vector<std::string>& names) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(0);
  int64_t last_ack = -1;
  for (int64_t a : ack) last_ack = std::max(last_ack, a);
  const size_t tenth = std::max<size_t>(1, ack.size() / 10);
  std::vector<double> first, last;
  for (size_t p = 0; p < visible.size(); ++p) {
    std::vector<double> lag;
    int64_t last_seen = -1;
    for (size_t k = 0; k < ack.size(); ++k) {
      if (ack[k] < 0 || visible[p][k] < 0) continue;
      const double us = double(visible[p][k] - ack[k]) / 1000.0;
      lag.push_back(us);
      last_seen = std::max(last_seen, visible[p][k]);
      if (k < tenth) first.push_back(us);
      if (k >= ack.size() - tenth) last.push_back(us);
    }
    out << (p ? "; " : "") << names[p] << " p50 " << pct(lag, 0.5) << " p99 " << pct(lag, 0.99)
        << ", had every write " << double(last_seen - last_ack) / 1e6 << " ms after the last ack";
  }
  out << "; lag p50 / p99 of the first tenth of the writes: " << pct(first, 0.5) << " / " << pct(first, 0.99)
      << ", of the last tenth: " << pct(last, 0.5) << " / " << pct(last, 0.99);
  return out.str();
}

void fill_lags(LagFigures* f, const std::vector<int64_t>& ack, const std::vector<std::vector<int64_t>>& visible,
               const std::vector<double>& ack_latency) {
  std::vector<double> lag;
  for (const auto& vis : visible)
    for (size_t k = 0; k < ack.size(); ++k) {
      if (ack[k] < 0) continue;
      if (vis[k] < 0) {
        ++f->missing;
        continue;
      }
      const double us = double(vis[k] - ack[k]) / 1000.0;
      if (us < 0) ++f->negative;
      lag.push_back(us);
    }
  f->samples = lag.size();
  f->lag_p50 = pct(lag, 0.50);
  f->lag_p99 = pct(lag, 0.99);
  f->lag_max = lag.empty() ? 0 : *std::max_element(lag.begin(), lag.end());
  f->ack_p50 = pct(ack_latency, 0.50);
  f->ack_p99 = pct(ack_latency, 0.99);
  f->ran = true;
}

void print_lag_header() {
  std::printf("  %-42s %7s %10s %7s %9s %9s %9s %9s %9s %6s\n", "system", "rate/s", "achieved/s", "writes",
              "ack p50", "ack p99", "lag p50", "lag p99", "lag max", "lag<0");
}

void print_lag_row(const LagFigures& f) {
  if (!f.ran) {
    std::printf("  %-42s %7.0f  not measured: %s\n", f.system.c_str(), f.target, f.problem.c_str());
  } else {
    std::printf("  %-42s %7.0f %10.0f %7zu %9.0f %9.0f %9.0f %9.0f %9.0f %5.1f%%\n", f.system.c_str(), f.target,
                f.achieved, f.acked, f.ack_p50, f.ack_p99, f.lag_p50, f.lag_p99, f.lag_max,
                f.samples ? 100.0 * double(f.negative) / double(f.samples) : 0.0);
    if (!f.detail.empty()) std::printf("      %s\n", f.detail.c_str());
    if (!f.problem.empty()) std::printf("  %-42s   note: %s\n", "", f.problem.c_str());
    if (f.achieved < 0.95 * f.target)
      std::printf("  %-42s   note: the target rate of %.0f/s was not sustained (%.0f/s achieved)\n", "", f.target,
                  f.achieved);
  }
  std::fflush(stdout);
}

std::optional<std::vector<size_t>> memory_counts(const std::string& list) {
  std::vector<size_t> sizes;
  std::stringstream in(list);
  std::string part;
  while (std::getline(in, part, ',')) {
    const long n = std::atol(part.c_str());
    if (n <= 0 || n > 10000000) return std::nullopt;
    sizes.push_back(size_t(n));
  }
  if (sizes.empty()) return std::nullopt;
  return sizes;
}

}  // namespace vasana::bench
