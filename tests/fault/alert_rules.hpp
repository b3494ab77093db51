// The shipped alert rules (ops/prometheus/alerts.yml) for tests that have a real Prometheus
// evaluate them: the rules with their time constants scaled so a test lasts seconds (the lag
// threshold 60 s becomes 3 s and every `for` 3 s), and the alerts firing now.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tests/cli/prometheus_server.hpp"

namespace vasana::test {

// alerts.yml scaled down; "" when a constant to scale is missing (the rules changed shape: the
// tests must be looked at).
std::string scaled_alert_rules();

// Names of the alerts firing now, each with its instance label ("" when it has none).
std::vector<std::pair<std::string, std::string>> firing_alerts(const PrometheusServer& prom);

}  // namespace vasana::test
