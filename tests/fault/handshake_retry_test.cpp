// A peer link whose connection fails with a protocol error (bytes that do not decode: a CURVE
// handshake or message broken on the wire) must be retried like a link that was cut: the node
// keeps replicating from that peer once the link carries good bytes again.
#include <catch2/catch.hpp>

#include <thread>

#include "tests/cli/cli_test_support.hpp"
#include "tests/fault/cluster_checks.hpp"
#include "tests/fault/proxied_cluster.hpp"

namespace vasana::test {

using namespace std::chrono_literals;

TEST_CASE("A node fetches from a peer again after its link garbled every byte for a while", "[fault][handshake]") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  ProxiedLinks links(c, seed);
  REQUIRE(c.start_all() == "");
  REQUIRE(c.await_peers_up(20s) == "");
  REQUIRE(c.remember(0, "shared", "before the fault").ok());
  REQUIRE(c.await_converged(1, 20s) == "");

  // Link 1->0 carries n0's writes to n1. Broken: every byte garbled (GENERATE: the fault), or
  // the control, a cut (connections reset, which ZeroMQ retries by itself).
  const bool garble = GENERATE(true, false);
  CAPTURE(garble);
  if (garble) links.link(1, 0).corrupt(1.0);
  else links.link(1, 0).cut();
  // Long enough for n1 to find the session silent and to try a new connection through the fault.
  std::this_thread::sleep_for(4s);
  links.link(1, 0).pass();
  const uint64_t connections = links.link(1, 0).counters().connections;

  REQUIRE(c.remember(0, "shared", "after the fault").ok());
  INFO(links.report() << c.logs());
  CHECK(c.await_converged(2, 15s) == "");
  CHECK(links.link(1, 0).counters().connections > connections);  // a new connection carried it
  CHECK(await_lag_zero(c, 10s) == "");
}

}  // namespace vasana::test
