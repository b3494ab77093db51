// The lag figures and the lag alert in a real partition: four `vasana serve` processes, each in
// its own network namespace on one bridge (tests/fault/netns_hosts.hpp), CurveZMQ on, adverts
// every 0.3 s, and a real Prometheus evaluating the shipped rules (time constants scaled:
// tests/fault/alert_rules.hpp) that scrapes every node over its management link. One host's
// bridge link is taken down while the others write: its lag in seconds must start growing within
// about one advert interval of the cut and keep growing, and the lag alert must fire for it and
// no other node; after the link comes back, every lag figure on it returns to 0 within 5 s of the
// data converging and the alerts resolve. The test prints the times. Before the cut (the
// negative control) nothing lags and nothing fires. Needs root: skipped without it.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <set>
#include <random>
#include <thread>

#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/prometheus_server.hpp"
#include "tests/cli/test_cluster.hpp"
#include "tests/fault/cluster_checks.hpp"
#include "tests/fault/alert_rules.hpp"
#include "tests/fault/netns_hosts.hpp"
#include "tests/support/test_skip.hpp"

namespace vasana::test {
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST_CASE("In a real partition (network namespaces) a cut-off node's lag in seconds grows within an advert interval, "
          "the lag alert fires for it alone, and both return to 0 after the heal",
          "[fault][partition][netns]") {
  TempDir tmp;
  auto hosts = NetnsHosts::create(4, tmp.path());
  if (!hosts.ok()) VASANA_SKIP_TEST("no network namespaces here: " << hosts.status().message());
  std::mt19937_64 rng(7);
  // advert_interval_ms = 300, peer_timeout_ms = 1500; metrics on every interface of the host.
  TestCluster c(tmp, TestCluster::mesh(4), "\n[metrics]\nlisten = \"0.0.0.0:0\"\n");
  for (size_t i = 0; i < 4; ++i) c.place(i, (*hosts)->ip(i), (*hosts)->prefix(i));
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  REQUIRE(c.await_peers_up(30s) == "");
  for (size_t i = 0; i < 4; ++i) REQUIRE(c.remember(i, "shared", c.node(i).name + " " + sentence(rng, 5)).ok());
  REQUIRE(c.await_converged(4, 30s) == "");
  std::vector<std::string> targets;
  for (size_t i = 0; i < 4; ++i) {
    const int port = metrics_port(c.node(i).process->stderr_text());
    REQUIRE(port > 0);
    targets.push_back((*hosts)->management_ip(i) + ":" + std::to_string(port));
  }
  const std::string rules = scaled_alert_rules();
  REQUIRE_FALSE(rules.empty());
  const std::string rule_file = tmp.sub("alerts.yml");
  std::ofstream(rule_file) << rules;
  PrometheusServer prom(tmp, targets, rule_file);
  INFO(prom.why());
  REQUIRE(prom.ok());
  REQUIRE(prom.await_series("count(up{job=\"vasana\"} == 1) == 4", 30s) == "");
  REQUIRE(prom.await_series("count(vasana_writer_lag_seconds)", 30s) == "");
  std::set<std::pair<std::string, std::string>> fired;
  auto watch = [&] {
    for (const auto& a : firing_alerts(prom)) fired.insert(a);
  };

  // Negative control: connected and level, node 3 reads no lag for the other three writers.
  std::this_thread::sleep_for(1s);
  {
    const WriterLagRange v = writer_lag_range(c, 3);
    INFO(v.text);
    CHECK(v.writers == 3);
    CHECK(v.most < 1.0);
  }
  for (int k = 0; k < 10; ++k, std::this_thread::sleep_for(500ms)) watch();
  CHECK(fired.empty());

  // Host 3 is cut off; the others write on. Its lag must start growing.
  REQUIRE((*hosts)->cut(3) == "");
  const auto cut_at = Clock::now();
  std::atomic<bool> stop{false};
  std::atomic<int> written{0};
  std::thread writer([&] {
    for (int k = 0; !stop; ++k) {
      if (c.remember(size_t(k % 3), "shared", "during the cut " + std::to_string(k)).ok()) ++written;
      std::this_thread::sleep_for(100ms);
    }
  });
  double grew_s = -1;
  while (Clock::now() - cut_at < 10s) {
    if (writer_lag_range(c, 3).least > 0) {
      grew_s = std::chrono::duration<double>(Clock::now() - cut_at).count();
      break;
    }
    std::this_thread::sleep_for(50ms);
  }
  std::this_thread::sleep_for(2s);
  const WriterLagRange cut1 = writer_lag_range(c, 3);
  std::this_thread::sleep_for(2s);
  const WriterLagRange cut2 = writer_lag_range(c, 3);
  // The lag alert (3 s, for 3 s scaled; scrapes and evaluations every second) for host 3.
  const std::pair<std::string, std::string> lag_alert{"VasanaReplicationLagHigh", targets[3]};
  double alert_s = -1;
  while (Clock::now() - cut_at < 40s) {
    watch();
    if (fired.count(lag_alert)) {
      alert_s = std::chrono::duration<double>(Clock::now() - cut_at).count();
      break;
    }
    std::this_thread::sleep_for(250ms);
  }
  stop = true;
  writer.join();
  std::printf("  netns partition: lag seconds on the cut-off node above 0 after %.2f s (adverts every 0.30 s), "
              "lag alert firing after %.1f s (threshold 3 s, for 3 s)\n",
              grew_s, alert_s);
  CHECK(alert_s > 0);
  for (const auto& [name, instance] : fired) {
    INFO(name << " fired for " << instance);
    // Expected besides: a peer down, on every node.
    CHECK((name == "VasanaReplicationLagHigh" || name == "VasanaPeerDown"));
    if (name == "VasanaReplicationLagHigh") CHECK(instance == targets[3]);
  }
  {
    INFO(cut2.text);
    REQUIRE(grew_s >= 0);
    CHECK(grew_s < 1.5);  // one advert interval, the status poll and the scheduling of busy shared cores
    CHECK(cut2.writers == 3);
    CHECK(cut2.least >= cut1.least + 1.5);  // it goes on growing
  }
  // The connected side stays level: node 0 reads nearly no lag for nodes 1 and 2.
  {
    const WriterLagRange v0 = writer_lag_range(c, 0);
    INFO(v0.text);
    CHECK(v0.writers >= 2);
  }

  // Healed: every figure on node 3 returns to 0 within 5 s of the data converging.
  REQUIRE((*hosts)->heal(3) == "");
  const auto healed_at = Clock::now();
  REQUIRE(c.await_converged(4 + size_t(written.load()), 60s) == "");
  const auto converged_at = Clock::now();
  WriterLagRange after;
  do {
    after = writer_lag_range(c, 3);
    if (after.most == 0 && after.ops == 0) break;
    std::this_thread::sleep_for(100ms);
  } while (Clock::now() - converged_at < 5s);
  std::printf("  netns heal: converged %.2f s after the link came back, lag 0 %.2f s after that\n",
              std::chrono::duration<double>(converged_at - healed_at).count(),
              std::chrono::duration<double>(Clock::now() - converged_at).count());
  INFO(after.text);
  CHECK(after.writers == 3);
  CHECK(after.ops == 0);
  CHECK(after.most == 0);
  // And the alerts resolve (the lag alert's expression is below its threshold again).
  const auto resolve_by = Clock::now() + 30s;
  while (!firing_alerts(prom).empty() && Clock::now() < resolve_by) std::this_thread::sleep_for(500ms);
  CHECK(firing_alerts(prom).empty());
}

}  // namespace vasana::test
