#include "status/node_probe.hpp"

#include <algorithm>
#include <cstring>

namespace vasana {

namespace {

uint64_t bits_of(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

double double_of(uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), buckets_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double value) {
  // The first bucket whose bound is >= value (Prometheus buckets are "less than or equal").
  const size_t i = static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  uint64_t cur = sum_bits_.load(std::memory_order_relaxed);
  while (!sum_bits_.compare_exchange_weak(cur, bits_of(double_of(cur) + value), std::memory_order_relaxed)) {
  }
}

HistogramCounts Histogram::counts() const {
  HistogramCounts c;
  c.bounds = bounds_;
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    c.cumulative.push_back(running);
  }
  c.sum = double_of(sum_bits_.load(std::memory_order_relaxed));
  return c;
}

std::vector<double> io_seconds_buckets() {
  return {0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
          0.005,   0.01,     0.025,   0.05,   0.1,     0.25,   0.5,   1.0};
}

std::vector<double> recall_seconds_buckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5};
}

std::vector<double> group_commit_buckets() { return {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}; }

NodeProbe::NodeProbe(const std::vector<std::string>& lanes, const std::vector<std::string>& transports,
                     const std::vector<std::string>& kinds)
    : log_write_(io_seconds_buckets()),
      log_sync_(io_seconds_buckets()),
      group_commit_(group_commit_buckets()),
      recall_(recall_seconds_buckets()) {
  for (const auto& l : lanes) lanes_.emplace(l, std::make_unique<Histogram>(recall_seconds_buckets()));
  for (const auto& t : transports)
    for (const auto& k : kinds)
      for (const char* result : {"ok", "permission-denied"}) requests_[{t, k, result}] = 0;
}

void NodeProbe::log_committed(double write_seconds, double sync_seconds, size_t records) {
  log_write_.observe(write_seconds);
  log_sync_.observe(sync_seconds);
  group_commit_.observe(static_cast<double>(records));
}

void NodeProbe::recall_answered(double seconds, const std::vector<std::string>& lanes,
                                const std::vector<double>& lane_seconds) {
  recall_.observe(seconds);
  for (size_t i = 0; i < lanes.size() && i < lane_seconds.size(); ++i) {
    auto it = lanes_.find(lanes[i]);
    if (it != lanes_.end()) it->second->observe(lane_seconds[i]);
  }
}

void NodeProbe::request_answered(const std::string& transport, const std::string& kind, const std::string& result) {
  std::lock_guard<std::mutex> g(mu_);
  ++requests_[{transport, kind, result}];
}

void NodeProbe::integrity_found(const std::string& kind, uint64_t n) {
  std::lock_guard<std::mutex> g(mu_);
  integrity_[kind] += n;
}

void NodeProbe::http_refused(const std::string& reason, uint64_t n) {
  std::lock_guard<std::mutex> g(mu_);
  http_refused_[reason] += n;
}

std::map<std::string, uint64_t> NodeProbe::integrity_at_start() const {
  std::lock_guard<std::mutex> g(mu_);
  return integrity_;
}

ProbeSnapshot NodeProbe::snapshot() const {
  ProbeSnapshot s;
  s.log_write = log_write_.counts();
  s.log_sync = log_sync_.counts();
  s.group_commit = group_commit_.counts();
  s.recall = recall_.counts();
  for (const auto& [name, h] : lanes_) s.recall_lanes.emplace(name, h->counts());
  std::lock_guard<std::mutex> g(mu_);
  s.requests = requests_;
  s.integrity_at_start = integrity_;
  s.http_refused = http_refused_;
  s.http_connections = http_connections_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace vasana
