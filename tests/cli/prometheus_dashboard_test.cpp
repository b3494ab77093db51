// A real Prometheus server (Debian's `prometheus` package) scrapes a three-node cluster on
// loopback, and every expression of every panel of ops/grafana/vasana.json is evaluated through
// its HTTP API (/api/v1/query): each must return at least one series, so no panel of the shipped
// dashboard is empty on a working cluster (a panel whose event cannot happen here, such as an
// integrity failure, is fed by a counter at 0). The digest panel must also show that the nodes
// agree once they have converged. Bounded: the server and the nodes are killed when the test
// ends, and every wait has a deadline.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/http_get.hpp"
#include "tests/cli/prometheus_server.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

}  // namespace

TEST_CASE("every panel of the Grafana dashboard has data when Prometheus scrapes a three-node cluster") {
  std::ifstream dash_file(std::string(VASANA_SOURCE_DIR) + "/ops/grafana/vasana.json");
  REQUIRE(dash_file.good());
  const json dashboard = json::parse(dash_file);
  std::vector<std::pair<std::string, std::string>> exprs;  // (panel title, expr)
  for (const json& panel : dashboard.at("panels"))
    for (const json& target : panel.at("targets")) exprs.emplace_back(panel.at("title"), target.at("expr"));
  REQUIRE(exprs.size() >= 10);

  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(3), "\n[metrics]\nlisten = \"127.0.0.1:0\"\n");
  REQUIRE(c.start_all() == "");
  REQUIRE(c.await_peers_up(20s) == "");
  const std::vector<std::string> targets = c.metrics_targets();
  for (const std::string& t : targets) REQUIRE_FALSE(t.empty());
  PrometheusServer prom(tmp, targets);
  INFO(prom.why());
  REQUIRE(prom.ok());
  REQUIRE(prom.await_series("count(up{job=\"vasana\"} == 1) == 3", 30s) == "");

  // Writes and recalls on every node, so the latency panels have observations in their windows.
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < c.size(); ++i) {
      auto id = c.remember(i, "ops", "node " + std::to_string(i) + " round " + std::to_string(round) +
                                         " keeps the backup schedule on tuesday");
      REQUIRE(id.ok());
      auto hits = c.recall_ids(i, "ops", "backup schedule");
      REQUIRE(hits.ok());
    }
    std::this_thread::sleep_for(1500ms);
  }
  REQUIRE(c.await_converged(9, 30s) == "");

  for (const auto& [title, expr] : exprs) {
    INFO("panel: " << title);
    CHECK(prom.await_series(expr, 30s) == "");
  }
  // Converged nodes agree: one distinct digest (the digest is recomputed at most every 10 s).
  CHECK(prom.await_series("count by (job) (count_values by (job) (\"digest\", vasana_state_digest))", 30s, 1.0) ==
        "");
  // Each node's own recall was measured per lane.
  CHECK(prom.await_series("count(sum by (instance) (vasana_recall_lane_seconds_count) > 0) == 3", 30s) == "");
}

}  // namespace vasana::test
