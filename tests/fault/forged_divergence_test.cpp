// The digest alert of the shipped rules (ops/prometheus/alerts.yml, unmodified) with a real
// Prometheus at a 15 s scrape interval, as a central Prometheus would scrape: two nodes hold
// copies of one data directory (one writer's stream restored on two hosts), so they applied the
// same ops and show one digest at one vector: compared, equal, no alert (the negative control).
// Then each is fed a different op at the same seqno of that writer: both stand at the same
// applied vector with different states. The first scrape after the forgery shows both digests
// at that vector, the next rule evaluation (every 15 s) makes the alert pending and the one
// after fires it (its `for: 15s`): within two intervals of the scrape that showed the digests.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/prometheus_server.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
using namespace std::chrono_literals;

namespace {

constexpr auto kScrape = 15s;
const char* kDigestsAtOneVector = "count by (vector) (count_values by (vector) (\"digest\", vasana_state_digest)) > 1";

bool digest_alert_firing(const PrometheusServer& prom) {
  const nlohmann::json alerts = prom.alerts();
  if (!alerts.is_array()) return false;
  for (const nlohmann::json& a : alerts)
    if (a["labels"].value("alertname", "") == "VasanaStateDigestsDiverge" && a.value("state", "") == "firing")
      return true;
  return false;
}

}  // namespace

TEST_CASE("A real Prometheus with the shipped digest rule fires within two scrapes when two nodes at one applied vector hold different states",
          "[fault][alerts]") {
  TempDir tmp;
  std::ifstream shipped(std::string(VASANA_SOURCE_DIR) + "/ops/prometheus/alerts.yml");
  std::stringstream rules;
  rules << shipped.rdbuf();
  REQUIRE(rules.str().find("alert: VasanaStateDigestsDiverge") != std::string::npos);
  const std::string rule_file = tmp.sub("alerts.yml");
  std::ofstream(rule_file) << rules.str();

  // n0 writes three memories and stops; n1's data directory becomes a copy of n0's.
  TestCluster c(tmp, {{}, {}}, "\n[metrics]\nlisten = \"127.0.0.1:0\"\n");
  REQUIRE(c.start(0) == "");
  for (int k = 0; k < 3; ++k) REQUIRE(c.remember(0, "shared", "the shared memory number " + std::to_string(k)).ok());
  REQUIRE(c.terminate(0) == "");
  std::filesystem::remove_all(c.node(1).data);
  std::filesystem::copy(c.node(0).data, c.node(1).data, std::filesystem::copy_options::recursive);
  REQUIRE(c.start_all() == "");
  const std::vector<std::string> targets = c.metrics_targets();
  for (const std::string& t : targets) REQUIRE_FALSE(t.empty());

  PrometheusServer prom(tmp, targets, rule_file, kScrape);
  INFO(prom.why());
  REQUIRE(prom.ok());

  // Negative control: the copies are compared (both at one vector) and agree.
  const std::string compared =
      prom.await_series("count by (vector) (vasana_state_digest) == 2", 3 * kScrape + 5s);
  if (!compared.empty()) FAIL(compared << "\n" << c.logs());
  std::string why;
  const nlohmann::json agreeing = prom.query(kDigestsAtOneVector, &why);
  REQUIRE(agreeing.is_array());
  CHECK(agreeing.empty());
  CHECK_FALSE(digest_alert_firing(prom));

  // The forgery: the same writer's next seqno carries a different op on each copy.
  REQUIRE(c.remember(0, "shared", "the deploy key rotates on Mondays").ok());
  REQUIRE(c.remember(1, "shared", "the deploy key never rotates").ok());
  const auto forged = std::chrono::steady_clock::now();

  std::optional<std::chrono::steady_clock::time_point> visible, fired;
  while (!fired && std::chrono::steady_clock::now() < forged + 6 * kScrape) {
    const nlohmann::json apart = prom.query(kDigestsAtOneVector, &why);
    if (!visible && apart.is_array() && !apart.empty()) visible = std::chrono::steady_clock::now();
    if (digest_alert_firing(prom)) fired = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(500ms);
  }
  REQUIRE(visible);
  REQUIRE(fired);
  const double to_visible = std::chrono::duration<double>(*visible - forged).count();
  const double visible_to_fired = std::chrono::duration<double>(*fired - *visible).count();
  WARN("forged ops seen at one vector after " << to_visible << " s; alert firing " << visible_to_fired
                                              << " s later (scrape interval " << kScrape.count() << " s)");
  // The digest is recomputed at the first scrape after the change (at most every 10 s, less than
  // a scrape interval); the rule is pending from the next evaluation and fires at the one after.
  CHECK(to_visible <= kScrape.count() + 2.0);
  CHECK(visible_to_fired <= 2 * kScrape.count() + 2.0);
}

}  // namespace vasana::test
