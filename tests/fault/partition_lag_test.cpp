// What a partition does to the lag figures (docs/replication.md, "Lag"): three nodes whose peer
// links go through fault proxies. A node cut off from both others must show its lag in seconds
// grow, per writer and per peer, in `vasana status` and on /metrics, and the figures must fall
// back once the cut heals. Before the cut (the negative control) nothing lags.
#include <catch2/catch.hpp>

#include <random>
#include <thread>

#include "status/status_json.hpp"
#include "sync/writer_lags.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/fault/cluster_checks.hpp"
#include "tests/fault/proxied_cluster.hpp"

namespace vasana::test {
using namespace std::chrono_literals;

TEST_CASE("A partition moves the lag figures: a cut-off node's lag in seconds grows, and falls back once healed",
          "[fault][partition]") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(3), "\n[metrics]\nlisten = \"127.0.0.1:0\"\n");  // adverts every 0.3 s
  ProxiedLinks links(c, seed);
  REQUIRE(c.start_all() == "");
  REQUIRE(c.await_peers_up(20s) == "");
  for (size_t i = 0; i < 3; ++i) REQUIRE(c.remember(i, "shared", c.node(i).name + " " + sentence(rng, 5)).ok());
  REQUIRE(c.await_converged(3, 20s) == "");

  // Negative control: connected and level, every node reads (nearly) no lag for the others' writers.
  std::this_thread::sleep_for(1s);
  for (size_t i = 0; i < 3; ++i) {
    const WriterLagRange v = writer_lag_range(c, i);
    INFO(v.text);
    CHECK(v.writers == 2);
    CHECK(v.most < 1.0);
  }

  // Node 2 is cut off from both others, which keep writing.
  links.partition({{0, 1}, {2}});
  for (int k = 0; k < 10; ++k) REQUIRE(c.remember(k % 2, "shared", "during the cut " + sentence(rng, 4)).ok());
  std::this_thread::sleep_for(3s);
  const WriterLagRange cut1 = writer_lag_range(c, 2);
  std::this_thread::sleep_for(2s);
  const WriterLagRange cut2 = writer_lag_range(c, 2);
  {
    INFO(cut2.text);
    CHECK(cut2.writers == 2);
    // Cut about 5 s ago, adverts every 0.3 s: each writer's lag has grown past 3 s and goes on growing.
    CHECK(cut1.least > 1.5);
    CHECK(cut2.least > 3.0);
    CHECK(cut2.least >= cut1.least + 1.5);
  }
  // The same figure on /metrics, which the lag alert watches.
  {
    const int port = metrics_port(c.node(2).process->stderr_text());
    REQUIRE(port > 0);
    const std::string m = http_get(port, "/metrics");
    INFO(m);
    const std::string w0 = c.status(0)->instance;
    CHECK(metric_sample(m, "vasana_writer_lag_seconds{writer=\"" + w0 + "\"}") > 3.0);
  }
  // The connected side stays level with each other: node 0 confirms writer 1 through node 1.
  {
    auto st0 = c.status(0);
    REQUIRE(st0.ok());
    const std::string w1 = c.status(1)->instance;
    for (const WriterLag& l : writer_lags(st0->peers))
      if (l.writer == w1) {
        INFO(status_to_text(*st0));
        CHECK(l.lag_seconds < 1.0);
      }
  }

  // Healed: the figures fall back within 5 s of the data converging.
  links.heal_all();
  REQUIRE(c.await_converged(13, 30s) == "");
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  WriterLagRange after;
  do {
    std::this_thread::sleep_for(200ms);
    after = writer_lag_range(c, 2);
  } while (after.most >= 1.0 && std::chrono::steady_clock::now() < deadline);
  INFO(after.text);
  CHECK(after.writers == 2);
  CHECK(after.most < 1.0);
}

}  // namespace vasana::test
