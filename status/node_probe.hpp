// What a node measures as it works, for the Prometheus exporter (status/metrics_exporter.hpp):
// the writer's commit timings and batch sizes, recall latency per lane, client requests by
// transport, kind and result, and integrity failures found at start. Domain code calls the
// probe's plain methods; only the exporter turns what it holds into metrics. The HTTP server
// counts its refusals and open connections here too (http_refused, http_connections).
//
// Threading: every method is thread-safe. Observing a histogram is lock-free (atomic buckets);
// request_answered(), integrity_found() and http_refused() take a short mutex (one map lookup). snapshot() may
// run beside all of them; it is not an atomic cut (a histogram's count and sum may be one
// observation apart).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace vasana {

// A histogram's contents: cumulative counts per upper bound (Prometheus "le"), then the count
// of every observation (+Inf), and the sum of the observed values.
struct HistogramCounts {
  std::vector<double> bounds;        // ascending upper bounds
  std::vector<uint64_t> cumulative;  // bounds.size() + 1 entries; the last is the total count
  double sum = 0;
};

// Fixed buckets, lock-free observe().
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  HistogramCounts counts() const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // bounds_.size() + 1, not cumulative
  std::atomic<uint64_t> sum_bits_{0};                 // a double, updated by compare-exchange
};

// The bucket bounds of the probe's histograms (seconds; records).
std::vector<double> io_seconds_buckets();
std::vector<double> recall_seconds_buckets();
std::vector<double> group_commit_buckets();

struct ProbeSnapshot {
  HistogramCounts log_write;     // write() of one group commit's bytes, seconds
  HistogramCounts log_sync;      // fdatasync of one group commit, seconds
  HistogramCounts group_commit;  // records per group commit
  HistogramCounts recall;        // a whole recall on the query actor, seconds
  std::map<std::string, HistogramCounts> recall_lanes;  // one lane's search, seconds, by lane
  // (transport, kind, result) -> answers sent
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> requests;
  std::map<std::string, uint64_t> integrity_at_start;  // by kind
  std::map<std::string, uint64_t> http_refused;        // by reason (NodeProbe::http_refused)
  int64_t http_connections = 0;                        // open now
};

class NodeProbe {
 public:
  // lanes: every lane name recall may run (each gets its histogram from the start).
  // transports, kinds: the client transports served ("ipc", "tcp") and the request kinds: the
  // request counters for results "ok" and "permission-denied" exist from the start, at 0, for
  // each transport and kind, so a dashboard has a series before the first refusal.
  NodeProbe(const std::vector<std::string>& lanes, const std::vector<std::string>& transports,
            const std::vector<std::string>& kinds);

  // The writer thread, after a group commit made `records` records durable.
  void log_committed(double write_seconds, double sync_seconds, size_t records);
  // A query thread, after a recall: its total time and each lane's search time (parallel
  // vectors; a lane not known at construction is ignored).
  void recall_answered(double seconds, const std::vector<std::string>& lanes, const std::vector<double>& lane_seconds);
  // The client endpoint, for every answer it sends.
  void request_answered(const std::string& transport, const std::string& kind, const std::string& result);
  // At start: n integrity failures of this kind were found (and handled).
  void integrity_found(const std::string& kind, uint64_t n);
  // The HTTP server (frontends/http_admission.hpp): n requests or connections refused before the node
  // saw them, for this reason; n = 0 makes the series exist.
  void http_refused(const std::string& reason, uint64_t n = 1);
  // The HTTP server: connections open now.
  void http_connections(int64_t open) { http_connections_.store(open, std::memory_order_relaxed); }

  ProbeSnapshot snapshot() const;
  // What integrity_found() booked, by kind.
  std::map<std::string, uint64_t> integrity_at_start() const;

 private:
  Histogram log_write_, log_sync_, group_commit_, recall_;
  std::map<std::string, std::unique_ptr<Histogram>> lanes_;  // fixed after construction
  mutable std::mutex mu_;
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> requests_;  // guarded by mu_
  std::map<std::string, uint64_t> integrity_;                                         // guarded by mu_
  std::map<std::string, uint64_t> http_refused_;                                      // guarded by mu_
  std::atomic<int64_t> http_connections_{0};
};

}  // namespace vasana
