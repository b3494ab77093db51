// The Prometheus families of a NodeProbe's snapshot (status/node_probe.hpp) and of the build, for
// the metrics exporter (status/metrics_exporter.hpp): histograms of the writer's commits and of
// recall, request and build-info counters. Only the exporter includes this (prometheus-cpp types).
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

#include "status/node_probe.hpp"

namespace vasana {

// vasana_log_write_seconds, vasana_log_fdatasync_seconds, vasana_group_commit_records,
// vasana_recall_seconds, vasana_recall_lane_seconds{lane},
// vasana_client_requests_total{transport,kind,result}, vasana_http_refused_total{reason},
// vasana_http_connections.
std::vector<prometheus::MetricFamily> probe_families(const ProbeSnapshot& p);

// vasana_build_info{version,commit} 1.
prometheus::MetricFamily build_info_family();

}  // namespace vasana
