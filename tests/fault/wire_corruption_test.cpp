// Bytes garbled on one direction of a peer link (tests/fault/link_proxy.hpp) are counted as failed
// connections by the node that received them (NodeStatus::connection_failures, the peer port's
// handshake_failures: sync/link_failures.hpp), never applied; and a link through the same proxies
// that garbles nothing counts no failure at all.
// VASANA_TEST_SEED=<seed> replays the words written and the garbled bytes' positions.
#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <thread>

#include "tests/cli/cli_test_support.hpp"
#include "tests/fault/cluster_checks.hpp"
#include "tests/fault/proxied_cluster.hpp"
#include "tests/fault/wire_failures.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

struct Workload {
  TestCluster& c;
  std::mt19937_64 rng;
  std::map<std::string, std::string> written;
  uint64_t next = 0;

  void write(size_t i) {
    const std::string text = c.node(i).name + " " + token(next++) + " " + sentence(rng, 4);
    auto id = c.remember(i, "shared", text);
    REQUIRE(id.ok());
    written[id->to_string()] = text;
  }
};

// Writes on node `writer` every 100 ms until done() or the deadline; done()'s last answer.
bool write_until(Workload& w, size_t writer, std::chrono::seconds limit, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    w.write(writer);
    std::this_thread::sleep_for(100ms);
  }
  return done();
}

// Failures node i counted since `before`, of side (every side when ""), for peer (every peer when "").
uint64_t grown(TestCluster& c, size_t i, const WireFailures& before, const std::string& side,
               const std::string& peer = "") {
  uint64_t n = 0;
  for (const auto& [key, count] : wire_failures_since(before, wire_failures(c, i)))
    if ((side.empty() || std::get<1>(key) == side) && (peer.empty() || std::get<0>(key) == peer)) n += count;
  return n;
}

}  // namespace

TEST_CASE("Bytes garbled on one direction of a peer link are counted by the node that received them",
          "[fault][corrupt][wire]") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  ProxiedLinks links(c, seed);
  Workload w{c, std::mt19937_64(seed)};
  REQUIRE(c.start_all() == "");
  REQUIRE(c.await_peers_up(20s) == "");
  w.write(0);
  w.write(1);
  REQUIRE(c.await_converged(w.written.size(), 20s) == "");

  // Negative control: the same proxies told to garble nothing; replication works, no failure.
  const WireFailures base0 = wire_failures(c, 0), base1 = wire_failures(c, 1);
  for (const auto& [key, link] : links.links()) link->corrupt(0.0);
  for (int k = 0; k < 3; ++k) {
    w.write(0);
    w.write(1);
  }
  INFO(links.report() << c.logs());
  REQUIRE(c.await_converged(w.written.size(), 20s) == "");
  std::this_thread::sleep_for(1s);  // several advert intervals
  CHECK(links.total().corrupted[0] + links.total().corrupted[1] == 0);
  CHECK(describe(wire_failures_since(base0, wire_failures(c, 0))) == "none");
  CHECK(describe(wire_failures_since(base1, wire_failures(c, 1))) == "none");

  // n1's bytes to n0's session (link 0->1, to_client: adverts and chunks of n1's writes) garbled:
  // n0 received them, and counts the failures on its session with n1.
  const std::string n1_from_n0 = links.link(0, 1).endpoint();  // n0's configured address of n1
  const WireFailures before0 = wire_failures(c, 0);
  links.link(0, 1).corrupt(0.002, LinkDirection::to_client);
  const bool seen0 = write_until(w, 1, 15s, [&] {
    return links.link(0, 1).counters().corrupted[int(LinkDirection::to_client)] > 0 &&
           grown(c, 0, before0, "session", n1_from_n0) > 0;
  });
  links.link(0, 1).pass();
  const WireFailures during0 = wire_failures_since(before0, wire_failures(c, 0));
  std::printf("wire: n0 received %llu garbled bytes on its session with n1: %s\n",
              static_cast<unsigned long long>(links.link(0, 1).counters().corrupted[int(LinkDirection::to_client)]),
              describe(during0).c_str());
  CHECK(links.link(0, 1).counters().corrupted[int(LinkDirection::to_client)] > 0);
  CHECK(seen0);

  // n0's session's bytes to n1's port (link 0->1, to_server: handshake, hello, fetches) garbled:
  // n1 received them, and counts the failures on its port. A cut makes n0's session connect and
  // say hello again through the fault.
  links.link(0, 1).cut();
  std::this_thread::sleep_for(300ms);  // n1's port counts the cut connection as dropped first
  const WireFailures before1 = wire_failures(c, 1);
  links.link(0, 1).pass();
  links.link(0, 1).corrupt(0.005, LinkDirection::to_server);
  const bool seen1 = write_until(w, 1, 15s, [&] {
    return links.link(0, 1).counters().corrupted[int(LinkDirection::to_server)] > 0 &&
           grown(c, 1, before1, "port") > 0;
  });
  links.link(0, 1).pass();
  const WireFailures during1 = wire_failures_since(before1, wire_failures(c, 1));
  std::printf("wire: n1 received %llu garbled bytes on its port from n0: %s\n",
              static_cast<unsigned long long>(links.link(0, 1).counters().corrupted[int(LinkDirection::to_server)]),
              describe(during1).c_str());
  CHECK(links.link(0, 1).counters().corrupted[int(LinkDirection::to_server)] > 0);
  CHECK(seen1);

  // Nothing garbled was applied: once healed, both nodes hold exactly what was written, and no
  // chunk got past CurveZMQ to the segment checks.
  links.heal_all();
  REQUIRE(c.await_converged(w.written.size(), 30s) == "");
  CHECK(texts_exact(c, "shared", w.written) == "");
  CHECK(await_lag_zero(c, 10s) == "");
  for (size_t i = 0; i < 2; ++i) {
    auto st = c.status(i);
    REQUIRE(st.ok());
    CHECK(st->integrity_failures["peer-chunk"] == 0);
  }
}

}  // namespace vasana::test
