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
#include <cstdlib>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "frontends/loopback_port.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// The full path of program found on PATH; "" when it is not there.
std::string on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// The body of an HTTP response ("" when there is none).
std::string body_of(const std::string& response) {
  const size_t at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

// /api/v1/query for expr: the "result" array, or null with *why set.
json query(int port, const std::string& expr, std::string* why) {
  const std::string body = body_of(http_get(port, "/api/v1/query?query=" + url_encode(expr)));
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    *why = "no JSON answer: " + body;
    return nullptr;
  }
  if (j.value("status", "") != "success") {
    *why = "query failed: " + body;
    return nullptr;
  }
  *why = "";
  return j["data"]["result"];
}

// Polls expr until it returns at least one series (and, when want is given, every series has
// that value), at most timeout. "" on success, else the last answer.
std::string await_series(int port, const std::string& expr, std::chrono::seconds timeout,
                         std::optional<double> want = std::nullopt) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    std::string why;
    const json result = query(port, expr, &why);
    if (result.is_array() && !result.empty()) {
      bool all = true;
      for (const json& series : result) {
        if (want && std::stod(series["value"][1].get<std::string>()) != *want) all = false;
      }
      if (all) return "";
      last = result.dump();
    } else {
      last = why.empty() ? "empty result" : why;
    }
    std::this_thread::sleep_for(500ms);
  }
  return expr + ": " + last;
}

}  // namespace

TEST_CASE("every panel of the Grafana dashboard has data when Prometheus scrapes a three-node cluster") {
  const std::string prometheus = on_path("prometheus");
  INFO("the prometheus binary (Debian package prometheus, installed by ops/install-deps.sh)");
  REQUIRE(prometheus != "");

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
  std::string targets;
  for (size_t i = 0; i < c.size(); ++i) {
    const int port = metrics_port(c.node(i).process->stderr_text());
    REQUIRE(port > 0);
    targets += std::string(targets.empty() ? "" : ", ") + "'127.0.0.1:" + std::to_string(port) + "'";
  }

  const int prom_port = free_loopback_port();
  const std::string config = tmp.sub("prometheus.yml");
  {
    std::ofstream f(config);
    f << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
      << "scrape_configs:\n  - job_name: vasana\n    static_configs:\n      - targets: [" << targets << "]\n";
  }
  ChildProcess server(prometheus,
                      {prometheus, "--config.file=" + config, "--storage.tsdb.path=" + tmp.sub("tsdb"),
                       "--web.listen-address=127.0.0.1:" + std::to_string(prom_port), "--log.level=warn"},
                      "", tmp.sub("prometheus.out"), tmp.sub("prometheus.err"));
  REQUIRE(server.pid() > 0);
  {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline &&
           http_get(prom_port, "/-/ready").find("200 OK") == std::string::npos)
      std::this_thread::sleep_for(200ms);
  }
  REQUIRE(http_get(prom_port, "/-/ready").find("200 OK") != std::string::npos);
  REQUIRE(await_series(prom_port, "count(up{job=\"vasana\"} == 1) == 3", 30s) == "");

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
    CHECK(await_series(prom_port, expr, 30s) == "");
  }
  // Converged nodes agree: one distinct digest (the digest is recomputed at most every 10 s).
  CHECK(await_series(prom_port, "count by (job) (count_values by (job) (\"digest\", vasana_state_digest))", 30s,
                     1.0) == "");
  // Each node's own recall was measured per lane.
  CHECK(await_series(prom_port, "count(sum by (instance) (vasana_recall_lane_seconds_count) > 0) == 3", 30s) == "");
}

}  // namespace vasana::test
