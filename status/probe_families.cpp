#include "status/probe_families.hpp"

#include <limits>
#include <utility>

#include "status/build_info.hpp"

namespace vasana {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily histogram_family(const char* name, const char* help) {
  MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = MetricType::Histogram;
  return f;
}

void add_histogram(MetricFamily& f, std::vector<ClientMetric::Label> labels, const HistogramCounts& c) {
  ClientMetric m;
  m.label = std::move(labels);
  m.histogram.sample_count = c.cumulative.empty() ? 0 : c.cumulative.back();
  m.histogram.sample_sum = c.sum;
  for (size_t i = 0; i < c.bounds.size() && i < c.cumulative.size(); ++i) {
    ClientMetric::Bucket b;
    b.upper_bound = c.bounds[i];
    b.cumulative_count = c.cumulative[i];
    m.histogram.bucket.push_back(b);
  }
  // The +Inf bucket: every observation.
  ClientMetric::Bucket inf;
  inf.upper_bound = std::numeric_limits<double>::infinity();
  inf.cumulative_count = m.histogram.sample_count;
  m.histogram.bucket.push_back(inf);
  f.metric.push_back(std::move(m));
}

}  // namespace

std::vector<MetricFamily> probe_families(const ProbeSnapshot& p) {
  std::vector<MetricFamily> out;
  MetricFamily write = histogram_family(
      "vasana_log_write_seconds",
      "Seconds one group commit took to write its records to the own writer's open segment (the write call, "
      "before the fdatasync).");
  add_histogram(write, {}, p.log_write);
  out.push_back(std::move(write));
  MetricFamily sync = histogram_family("vasana_log_fdatasync_seconds",
                                       "Seconds the fdatasync of one group commit took: the records are "
                                       "acknowledged after it.");
  add_histogram(sync, {}, p.log_sync);
  out.push_back(std::move(sync));
  MetricFamily group = histogram_family("vasana_group_commit_records",
                                        "Records made durable by one group commit (one write and one fdatasync).");
  add_histogram(group, {}, p.group_commit);
  out.push_back(std::move(group));
  MetricFamily recall = histogram_family(
      "vasana_recall_seconds",
      "Seconds one recall took on a query thread, from the start of its lane searches to its answer "
      "(after any read-your-writes wait).");
  add_histogram(recall, {}, p.recall);
  out.push_back(std::move(recall));
  MetricFamily lanes = histogram_family("vasana_recall_lane_seconds",
                                        "Seconds one lane's search took within a recall, by lane.");
  for (const auto& [lane, counts] : p.recall_lanes) add_histogram(lanes, {{"lane", lane}}, counts);
  out.push_back(std::move(lanes));

  MetricFamily requests;
  requests.name = "vasana_client_requests_total";
  requests.help =
      "Client requests answered since the process started, by transport (ipc: the data directory's socket, "
      "which HTTP and MCP also use; tcp), request kind and result (ok, or the error: bad-input, unavailable, "
      "io-failure, protocol-mismatch, internal, conflict, not-found, permission-denied).";
  requests.type = MetricType::Counter;
  for (const auto& [key, count] : p.requests) {
    ClientMetric m;
    m.label = {{"transport", std::get<0>(key)}, {"kind", std::get<1>(key)}, {"result", std::get<2>(key)}};
    m.counter.value = static_cast<double>(count);
    requests.metric.push_back(std::move(m));
  }
  out.push_back(std::move(requests));

  MetricFamily http_refused;
  http_refused.name = "vasana_http_refused_total";
  http_refused.help =
      "Requests and connections the HTTP server refused before the node saw them, by reason: unauthorized (401, a "
      "failed login), throttled (429 after failed logins), connection-limit, header-timeout, body-timeout, "
      "write-timeout, too-large, malformed, tls-handshake.";
  http_refused.type = MetricType::Counter;
  for (const auto& [reason, count] : p.http_refused) {
    ClientMetric m;
    m.label = {{"reason", reason}};
    m.counter.value = static_cast<double>(count);
    http_refused.metric.push_back(std::move(m));
  }
  out.push_back(std::move(http_refused));
  MetricFamily connections;
  connections.name = "vasana_http_connections";
  connections.help = "Connections the HTTP server has open now (0 without [http] listen).";
  connections.type = MetricType::Gauge;
  ClientMetric open;
  open.gauge.value = static_cast<double>(p.http_connections);
  connections.metric.push_back(std::move(open));
  out.push_back(std::move(connections));
  return out;
}

MetricFamily build_info_family() {
  MetricFamily f;
  f.name = "vasana_build_info";
  f.help = "Always 1; the labels say what this binary was built from: version and git commit.";
  f.type = MetricType::Gauge;
  ClientMetric m;
  m.label = {{"version", vasana_version()}, {"commit", vasana_git_commit()}};
  m.gauge.value = 1;
  f.metric.push_back(std::move(m));
  return f;
}

}  // namespace vasana
